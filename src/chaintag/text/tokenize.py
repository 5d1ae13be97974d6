"""Sentence splitting and tokenization of raw text, with the character offsets of every token.

The segmenter and tokenizer are syntok's (rule based, pure Python, no model to download). Its tokens
are then brought to the conventions of the treebanks the models learn from (Penn Treebank, UD):

- a word joined by a hyphen or an underscore stays one token (``well-known``, ``E-mail``), where
  syntok drops the hyphen, and so does a word with a capital inside (``mRNA``, ``HeLa``,
  ``NF-kappaB``, ``iPhone``), which syntok splits before the capital;
- a period that touches a short word before it and is followed by a word of the same sentence
  belongs to that word (``Dr.``, ``e.g.``, ``U.S.``), and so does one after a word of up to eight
  letters followed by a comma, a colon, a semicolon, a closing parenthesis or a lower-case word
  (``Calif.,``, ``Corp. said``); a sentence-final period is a token of its own (``3pm .``);
- English splits clitics (``It 's``, ``do n't``); Spanish, Dutch and German keep a word with its
  apostrophe (Dutch ``auto's``, ``'s avonds``);
- a period of its own after a number or a word, followed by a capital letter or an opening
  ``¿`` / ``¡``, ends the sentence (``$3.50. I``, ``3.30h. ¿Qué``), where syntok goes on.

Offsets always index the original text: ``text[token.start:token.end] == token.text``.
"""

from __future__ import annotations

import re

from ..errors import InputError
from .document import Document, Token

__all__ = ["LANGUAGES", "split_text", "pretokenized"]

LANGUAGES = ("en", "es", "nl", "de")
"""Languages :func:`split_text` knows (English splits clitics; the others keep apostrophes)."""

_JOINERS = ("-", "_")
_WORD = re.compile(r"\S+")


def _check_lang(lang: str) -> None:
    if lang not in LANGUAGES:
        raise InputError(f"unknown language {lang!r}; choose one of {', '.join(LANGUAGES)}")


def _merge(spans: list[list[int]], text: str, lang: str) -> list[list[int]]:
    """Token spans ``[start, end]`` of one sentence, joined where the conventions above say so."""
    out: list[list[int]] = []
    n = len(spans)
    for i, (a, b) in enumerate(spans):
        if out:
            pa, pb = out[-1]
            gap = text[pb:a]
            piece = text[a:b]
            prev = text[pa:pb]
            last = i == n - 1
            joined = (gap in _JOINERS or (gap == "" and "'" not in piece and "\u2019" not in piece)) \
                and prev[-1:].isalnum() and piece[:1].isalnum()
            nxt = "" if last else text[spans[i + 1][0]:spans[i + 1][1]]
            follows = (nxt[:1].isalnum() and len(prev) <= 4) or (
                nxt != "" and (nxt[:1] in ",;:)" or nxt[:1].islower()) and len(prev) <= 8)
            period = (gap == "" and piece == "." and follows
                      and prev[-1:].isalpha() and all(c.isalpha() or c == "." for c in prev))
            apostrophe = lang != "en" and gap == "" and piece[:1] in "'\u2019" and prev[-1:].isalnum()
            lone = lang != "en" and gap == "" and prev in ("'", "\u2019") and piece[:1].isalpha() and (
                pa == 0 or not text[pa - 1].isalnum())
            if joined or period or apostrophe or lone:
                out[-1][1] = b
                continue
        out.append([a, b])
    return out


def split_text(text: str, lang: str = "en") -> Document:
    """Split raw text into sentences and tokens, keeping each token's character offsets.

    Parameters
    ----------
    text : str
        Raw text; a blank line always ends a sentence (paragraphs).
    lang : {"en", "es", "nl", "de"}
        The language's conventions (see the module's notes).

    Returns
    -------
    Document
        Tokens (``label`` None) and sentences; ``text[t.start:t.end] == t.text`` for every token.

    Raises
    ------
    InputError
        For an unknown language.
    """
    _check_lang(lang)
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    from syntok import segmenter

    doc = Document(text)
    for paragraph in segmenter.analyze(text):
        for sentence in paragraph:
            spans = [[t.offset, t.offset + len(t.value)] for t in sentence if t.value]
            spans = [s for s in spans if text[s[0]:s[1]].strip()]
            if not spans:
                continue
            first = len(doc.tokens)
            for a, b in _merge(spans, text, lang):
                doc.tokens.append(Token(text[a:b], a, b))
                if _ends_sentence(doc.tokens, first):  # a period the segmenter left inside
                    doc.sentences.append((first, len(doc.tokens) - 1))
                    first = len(doc.tokens) - 1
            doc.sentences.append((first, len(doc.tokens)))
    return doc


def _ends_sentence(tokens: list[Token], first: int) -> bool:
    """Whether the last token opens a new sentence: it follows a period of its own (a token ``.``,
    not an abbreviation's) after a number or a word, and it begins with a capital letter or an
    opening ``¿`` / ``¡`` (``$3.50. I``, ``3.30h. ¿Qué``), which the segmenter does not split."""
    n = len(tokens)
    if n - first < 3 or tokens[-2].text != ".":
        return False
    nxt = tokens[-1].text[:1]
    return (nxt.isupper() or nxt in "\u00bf\u00a1") and tokens[-3].text[-1:].isalnum()


def pretokenized(text: str) -> Document:
    """Text already tokenized: one sentence per line, tokens separated by whitespace.

    Parameters
    ----------
    text : str

    Returns
    -------
    Document
        One sentence per non-blank line; offsets into ``text``.
    """
    doc = Document(text)
    pos = 0
    for line in text.splitlines(keepends=True):
        first = len(doc.tokens)
        doc.tokens += [Token(m.group(), pos + m.start(), pos + m.end()) for m in _WORD.finditer(line)]
        if len(doc.tokens) > first:
            doc.sentences.append((first, len(doc.tokens)))
        pos += len(line)
    return doc
