"""Sentence splitting and tokenization of raw text, with the character offsets of every token.

The segmenter and tokenizer are syntok's (rule based, pure Python, no model to download). Its tokens
are then brought to the conventions of the treebanks the models learn from (Penn Treebank, UD):

- a word joined by a hyphen or an underscore stays one token (``well-known``, ``E-mail``), where
  syntok drops the hyphen, and so does a word with a capital inside (``mRNA``, ``HeLa``,
  ``NF-kappaB``, ``iPhone``), which syntok splits before the capital;
- a period that touches a short word before it and is followed by a word of the same sentence
  belongs to that word (``Dr.``, ``e.g.``, ``U.S.``), and so does one after a word of up to eight
  letters followed by a comma, a colon, a semicolon, a closing parenthesis or a lower-case word
  (``Calif.,``, ``Corp. said``), when the word looks like an abbreviation: it has a capital, a
  period or one letter, or is a lower-case abbreviation (``etc.``, ``vs.``, ``approx.``); a
  sentence-final period is a token of its own (``3pm .``, ``bad . it``);
- English splits clitics (``It 's``, ``do n't``); Spanish, Dutch and German keep a word with its
  apostrophe (Dutch ``auto's``, ``'s avonds``);
- a period of its own after a number or a word, followed by a capital letter or an opening
  ``¿`` / ``¡``, ends the sentence (``$3.50. I``, ``3.30h. ¿Qué``), where syntok goes on; so does
  one that touches a word and is followed by a lower-case word (``bad. it was``: text in lower case);
- one-letter abbreviations written together stay one token (German ``z.B.``, ``u.a.``, ``Ph.D.``);
- a list item's marker at a line's start (``1.``, ``2)``, ``a)``) is one token and opens a sentence, and
  the segmenter's splits after a title before a name (``Rev. Jones``) or after an abbreviation before
  a number (``pp. 5``, ``eq. 3``) or after a semicolon are undone; a ``?`` or ``!`` before a
  lower-case word ends the sentence (``ok? yes``);
- a combining mark (an accent written apart, the vowel signs of Indic and Thai scripts) stays with
  its letters, a soft hyphen joins the parts of its word, and a quotation mark inside a token of
  syntok's separates (``left."Why`` gives ``left . " Why``);
- a period after a symbol is a token of its own and ends the sentence before a capital (``5 %.``,
  ``3,50 €.``, an emoji), as after a word;
- Chinese and Japanese ``。`` ``！`` ``？`` are tokens of their own and end the sentence whatever follows
  (the words of those scripts are not segmented: the characters between spaces and punctuation are one
  token); a paragraph separator (U+2029), a form feed or a file, group or record separator ends a
  paragraph as a blank line does, and any other whitespace separates tokens;
- a bullet (``•``, ``*``, ...) at a line's start opens a sentence, as a list item's marker does, and so
  does a dash (``-``, ``–``, ``—``) after a line that ends in ``.``, ``!``, ``?``, ``:`` or ``;`` or is a
  list item itself (a dash of hard-wrapped prose opens none);
  a token of invisible format characters alone (a byte order mark, a word joiner, a soft hyphen
  between spaces) is no token, as a zero-width space is none; a sentence of more than
  :data:`MAX_SENTENCE_TOKENS` tokens (lines without punctuation) is cut at its line breaks, then
  every :data:`MAX_SENTENCE_TOKENS` tokens;
- Spanish, German and Dutch know their own abbreviations and titles (``Dra. Pérez``, ``EE. UU.``,
  ``bzw.``, ``Hauptstr. 5``, ``dhr. Jansen``), and in German a number of one or two digits with its
  period is an ordinal, one token, before a month or after an article or a preposition (``am 3.
  Oktober``, ``im 20. Jahrhundert``, ``der 1. FC``; ``Er war 25. Er`` ends a sentence).

Offsets always index the original text: ``text[token.start:token.end] == token.text``.
"""

from __future__ import annotations

import re
import unicodedata

from ..errors import InputError
from .abbreviations import (BEFORE_ORDINAL, GERMAN_MONTHS, LANG_ABBREVIATIONS, LANG_NUMBER_ABBREVIATIONS, LANG_TITLES,
                            LOWER_ABBREVIATIONS, MAY_END, NUMBERED, SHARED_ABBREVIATIONS, TITLES)
from .document import Document, Token

__all__ = ["LANGUAGES", "MAX_SENTENCE_TOKENS", "split_text", "pretokenized"]

MAX_SENTENCE_TOKENS = 1000
"""The longest sentence :func:`split_text` makes: a longer one (lines without punctuation, a table) is
cut at its line breaks, then into pieces of this many tokens."""

LANGUAGES = ("en", "es", "nl", "de")
"""Languages :func:`split_text` knows (English splits clitics; the others keep apostrophes)."""

_JOINERS = ("-", "_", "\u00ad")
_WORD = re.compile(r"\S+")
#: One or two letters each followed by a period (``z.``, ``z.B.``, ``Ph.D.``).
_LETTER_DOTS = re.compile(r"(?:[^\W\d_]{1,2}\.)+")
#: A list item's marker: a number of up to three digits or one letter, with a period or a parenthesis.
_ITEM_MARKER = re.compile(r"(?:\d{1,3}|[A-Za-z])[.)]")
#: Bullets that open a list item at a line's start.
_BULLETS = frozenset("\u2022\u2023\u25e6\u2043\u2219\u00b7\u25aa\u25ab\u25cf\u25cb\u25a0\u25a1*")
#: Dashes, which open a list item at a line's start only after a line that ends a sentence or a clause
#: (``.``, ``:``, ...) or is an item itself: a dash of hard-wrapped prose (``that\n— as expected —``) opens none.
_DASHES = frozenset("-\u2013\u2014")
#: Quotation marks that separate the parts of a token of syntok's.
_QUOTES = "\"\u201c\u201d\u201e\u00ab\u00bb"
#: Full-width sentence-final marks of Chinese and Japanese text, which end a sentence whatever follows.
_WIDE_ENDS = "\u3002\uff01\uff1f\uff61"
#: Separators that end a paragraph as a blank line does (paragraph separator, form feed, file, group
#: and record separators).
_HARD_BREAKS = re.compile("[\u2029\x0c\x1c\x1d\x1e]")
#: A German ordinal: a number of one or two digits whose period belongs to it (``am 3. Oktober``).
_ORDINAL = re.compile(r"\d{1,2}")


def _invisible(piece: str) -> bool:
    """Whether a token is format characters alone (Unicode category Cf: a byte order mark, a word joiner,
    a soft hyphen), which show nothing and are no word."""
    return all(unicodedata.category(c) == "Cf" for c in piece)


def _mark(c: str) -> bool:
    """Whether ``c`` is a combining mark (Unicode category M)."""
    return unicodedata.category(c).startswith("M")


def _known(word: str, lang: str) -> bool:
    """Whether a word is a known abbreviation: English's lower-case ones in English; in the other languages
    their own and the Latin and scholarly ones all share (not English ``no``, ``al``, ``ave``: Spanish
    words), and German street names in ``str.`` (``Hauptstr.``)."""
    low = word.lower()
    if lang == "en":
        return low in LOWER_ABBREVIATIONS
    return (low in SHARED_ABBREVIATIONS or low in LANG_ABBREVIATIONS[lang] or low in LANG_NUMBER_ABBREVIATIONS[lang]
            or (lang == "de" and len(low) > 3 and low.endswith("str")))


def _abbreviation(word: str, lang: str = "en") -> bool:
    """Whether a word before a period looks like an abbreviation (see the module's notes)."""
    return len(word) == 1 or "." in word or any(c.isupper() for c in word) or _known(word, lang)


def _german_ordinal(number: str, before: str, nxt: str) -> bool:
    """Whether ``number`` with its period is a German ordinal (one token): one or two digits followed by a
    word, and the word is a month (``3. Oktober``) or a lower-case word (``19. und 20.``, ``als 3. ins``),
    or an article, a possessive, ``jede`` or a preposition comes before the number (``am 3.``, ``im 20.
    Jahrhundert``, ``der 1. FC``, ``seiner 2. Frau``); ``Er war 25. Er`` ends a sentence."""
    return (_ORDINAL.fullmatch(number) is not None and nxt[:1].isalpha()
            and (nxt.lower().rstrip(".") in GERMAN_MONTHS or before.lower() in BEFORE_ORDINAL
                 or nxt[:1].islower()))


def _symbol(c: str) -> bool:
    """Whether ``c`` is a symbol a sentence may end on before its period (``5 %.``, ``3,50 €.``, an emoji)."""
    return c in "%\u2030" or unicodedata.category(c).startswith("S")


def _closing(token: Token, text: str) -> bool:
    """Whether a token is one closing mark (``」``, ``）``, ``»``; an ASCII quote when a space or the text's
    end follows it): it stays with the sentence before it."""
    piece = token.text
    if len(piece) != 1:
        return False
    if piece in "\"'":
        return token.end == len(text) or text[token.end].isspace()
    return unicodedata.category(piece) in ("Pe", "Pf")


def _split_inner(spans: list[list[int]], text: str) -> list[list[int]]:
    """Token spans of syntok's split where it leaves them joined: at whitespace it does not know
    (``\\x1c``-``\\x1f``, ``\\x85``), around full-width sentence ends (``Köln。Ana``), and before the
    period after a symbol (``€.``, ``%.``, an emoji), so that :func:`_ends_sentence` decides on it."""
    out: list[list[int]] = []
    for a, b in spans:
        piece = text[a:b]
        if piece.isalnum() or len(piece) < 2:
            out.append([a, b])
            continue
        start = a
        for i in range(a, b):
            c = text[i]
            if c.isspace():
                if start < i:
                    out.append([start, i])
                start = i + 1
            elif c in _WIDE_ENDS:
                if start < i:
                    out.append([start, i])
                out.append([i, i + 1])
                start = i + 1
        if start < b:
            if b - start >= 2 and text[b - 1] == "." and _symbol(text[b - 2]):
                out += [[start, b - 1], [b - 1, b]]
            else:
                out.append([start, b])
    return out


def _split_quotes(spans: list[list[int]], text: str) -> list[list[int]]:
    """Token spans with the quotation marks inside a span (``left."Why``) made tokens of their own, and the
    period before such a mark split from its word, so that the rules of :func:`_merge` decide on it."""
    out: list[list[int]] = []
    for a, b in spans:
        if b - a < 2 or not any(c in _QUOTES for c in text[a:b]):
            out.append([a, b])
            continue
        start = a
        for i in range(a, b + 1):
            if i == b or text[i] in _QUOTES:
                if start < i:
                    if text[i - 1] == "." and i - 1 > start and i < b:
                        out += [[start, i - 1], [i - 1, i]]
                    else:
                        out.append([start, i])
                if i < b:
                    out.append([i, i + 1])
                start = i + 1
    return out


def _check_lang(lang: str) -> None:
    if lang not in LANGUAGES:
        raise InputError(f"unknown language {lang!r}; choose one of {', '.join(LANGUAGES)}")


def _merge(spans: list[list[int]], text: str, lang: str) -> list[list[int]]:
    """Token spans ``[start, end]`` of one sentence, joined where the conventions above say so."""
    # the token being built (``prev``) is read only where a rule needs it, and its last character
    # otherwise: a word of many joined pieces (``a-a-a-...``) costs its length once, not once a piece
    out: list[list[int]] = []
    for i, (a, b) in enumerate(spans):
        if out:
            pa, pb = out[-1]
            gap = text[pb:a]
            piece = text[a:b]
            end = text[pb - 1]  # the last character of the token so far
            joined = ((gap in _JOINERS or (gap == "" and "'" not in piece and "\u2019" not in piece))
                      and end.isalnum() and piece[:1].isalnum()) or (
                gap == "" and (_mark(piece[0]) or (_mark(end) and piece[:1].isalnum())))
            apostrophe = lang != "en" and gap == "" and piece[:1] in "'\u2019" and end.isalnum()
            lone = lang != "en" and gap == "" and pb - pa == 1 and end in ("'", "\u2019") and piece[:1].isalpha() and (
                pa == 0 or not text[pa - 1].isalnum())
            if joined or apostrophe or lone or (gap == "" and piece in (".", ")")
                                                and _period_joins(out, i, spans, text, lang)):
                out[-1][1] = b
                continue
        out.append([a, b])
    return _join_letter_dots(out, text)


def _period_joins(out: list[list[int]], i: int, spans: list[list[int]], text: str, lang: str) -> bool:
    """Whether piece ``i`` (``.`` or ``)``, touching the token ``out[-1]``) belongs to that token: an
    abbreviation's period, a German ordinal's, or a list item's marker at a line's start."""
    pa, pb = out[-1]
    a, b = spans[i]
    piece, prev = text[a:b], text[pa:pb]
    nxt = "" if i == len(spans) - 1 else text[spans[i + 1][0]:spans[i + 1][1]]
    if piece == ".":
        follows = (nxt[:1].isalnum() and (len(prev) <= 4 or _known(prev, lang))) or (
            nxt != "" and (nxt[:1] in ",;:)" or nxt[:1].islower()) and (len(prev) <= 8 or _known(prev, lang))) or (
            nxt[:1] == "(" and _known(prev, lang))  # "et al. (2001)"
        if (follows and _abbreviation(prev, lang) and prev[-1:].isalpha()
                and all(c.isalpha() or c == "." for c in prev)):
            return True
        before = text[out[-2][0]:out[-2][1]] if len(out) >= 2 else ""
        if lang == "de" and _german_ordinal(prev, before, nxt):
            return True
    return _ITEM_MARKER.fullmatch(prev + piece) is not None and _at_line_start(pa, text)


def _join_letter_dots(spans: list[list[int]], text: str) -> list[list[int]]:
    """One-letter abbreviations written together made one token (German ``z.B.``, ``u.a.``), which
    syntok and the period rule leave as ``z.`` ``B.``."""
    out: list[list[int]] = []
    dots = False  # whether out[-1] is letters with periods (a run of them joined stays one)
    for a, b in spans:
        piece_dots = _LETTER_DOTS.fullmatch(text[a:b]) is not None
        if out and out[-1][1] == a and dots and piece_dots:
            out[-1][1] = b
        else:
            dots = piece_dots
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
    for base, paragraph in _paragraphs(text, segmenter):
        sentences = []
        for sentence in paragraph:
            spans = [[base + t.offset, base + t.offset + len(t.value)] for t in sentence if t.value]
            spans = _split_quotes(_split_inner([s for s in spans if text[s[0]:s[1]].strip()], text), text)
            spans = [s for s in spans if not _invisible(text[s[0]:s[1]])]
            if spans:
                sentences.append(spans)
        for spans in _rejoin(sentences, text, lang):
            first = len(doc.tokens)
            for a, b in _merge(spans, text, lang):
                doc.tokens.append(Token(text[a:b], a, b))
                if len(doc.tokens) - 1 > first and _opens_item(doc.tokens[-1], text):  # a list item's marker
                    doc.sentences.append((first, len(doc.tokens) - 1))
                    first = len(doc.tokens) - 1
                elif _ends_sentence(doc.tokens, first, text):  # a period the segmenter left inside
                    doc.sentences.append((first, len(doc.tokens) - 1))
                    first = len(doc.tokens) - 1
            doc.sentences.append((first, len(doc.tokens)))
    doc.sentences = _capped(doc.sentences, doc.tokens, text)
    return doc


def _capped(sentences: list[tuple[int, int]], tokens: list[Token], text: str) -> list[tuple[int, int]]:
    """The sentences, those of more than :data:`MAX_SENTENCE_TOKENS` tokens cut at the tokens that start a
    line, and pieces still longer cut every :data:`MAX_SENTENCE_TOKENS` tokens."""
    out: list[tuple[int, int]] = []
    for a, b in sentences:
        if b - a <= MAX_SENTENCE_TOKENS:
            out.append((a, b))
            continue
        cuts = [a] + [i for i in range(a + 1, b) if "\n" in text[tokens[i - 1].end:tokens[i].start]] + [b]
        for lo, hi in zip(cuts, cuts[1:]):
            out += [(k, min(k + MAX_SENTENCE_TOKENS, hi)) for k in range(lo, hi, MAX_SENTENCE_TOKENS)]
    return out


def _paragraphs(text: str, segmenter):
    """``(offset, paragraph)`` of syntok's paragraphs of each part of ``text`` between hard breaks
    (:data:`_HARD_BREAKS`), which end a paragraph as a blank line does; offsets are the part's start."""
    start = 0
    for m in list(_HARD_BREAKS.finditer(text)) + [None]:
        end = len(text) if m is None else m.start()
        if text[start:end].strip():
            for paragraph in segmenter.analyze(text[start:end]):
                yield start, paragraph
        if m is not None:
            start = m.end()


def _at_line_start(start: int, text: str) -> bool:
    """Whether only spaces stand between the last line break (or the text's start) and ``start`` (read
    backwards, so that a token deep in a long line costs the spaces before it, not the line)."""
    k = start - 1
    while k >= 0 and text[k] != "\n":
        if not text[k].isspace():
            return False
        k -= 1
    return True


def _opens_item(token: Token, text: str) -> bool:
    """Whether a token is a list item's marker or a bullet at the start of a line (``1.``, ``2)``, ``a)``,
    ``•``), or a dash there after a line that ends a sentence or a clause or is an item itself."""
    if not _at_line_start(token.start, text):
        return False
    if _ITEM_MARKER.fullmatch(token.text) is not None or token.text in _BULLETS:
        return True
    if token.text not in _DASHES:
        return False
    # the next line opens with a dash too (a list of them), or the line before ends a sentence or a
    # clause or opens an item itself (looking past an item's indented continuation lines)
    end = text.find("\n", token.start)
    nxt = text[end + 1:text.find("\n", end + 1) if text.find("\n", end + 1) >= 0 else len(text)] if end >= 0 else ""
    if nxt.lstrip()[:1] == token.text and nxt.lstrip()[1:2].isspace():
        return True
    line = text.rfind("\n", 0, token.start)
    while line > 0:
        start = text.rfind("\n", 0, line) + 1
        before = text[start:line]
        if before.strip() and not (before[:1].isspace() and start > 0):  # not an indented continuation
            break
        line = start - 1
    else:
        return False
    before = before.strip()
    first = before.split(None, 1)[0] if before else ""
    return bool(before) and (before[-1] in ".!?:;" or first in _BULLETS or first in _DASHES
                             or _ITEM_MARKER.fullmatch(first) is not None)


def _rejoin(sentences: list[list[list[int]]], text: str, lang: str = "en") -> list[list[list[int]]]:
    """The segmenter's sentences of a paragraph, joined where it split after a title before a name
    (``Rev. Jones``, Spanish ``Dra. Pérez``, ``EE. UU.``), after an abbreviation before a number (``pp. 5``,
    ``eq. 3``, German ``Hauptstr. 5``), after a German ordinal before a word (``am 3. Oktober``), or after a
    list item's marker (``1.`` at a line's start), or after a semicolon (``yesterday; Officials``)."""
    out: list[list[list[int]]] = []
    for spans in sentences:
        if out and len(out[-1]) >= 2:
            (wa, wb), (pa, pb) = out[-1][-2], out[-1][-1]
            word, nxt = text[wa:wb], text[spans[0][0]:spans[0][1]]
            stuck = wb == pa and text[pa:pb] in (".", ")")
            marker = stuck and _ITEM_MARKER.fullmatch(word + text[pa:pb]) and _at_line_start(wa, text)
            low = word.lower()
            title = stuck and text[pa:pb] == "." and (
                ((low in TITLES or low in LANG_TITLES[lang]) and nxt[:1].isupper())
                or ((low in NUMBERED or _known(word, lang)) and nxt[:1].isdigit())
                or (_known(word, lang) and lang != "en" and nxt[:1].islower())
                or (low in LANG_ABBREVIATIONS[lang] and low not in MAY_END and nxt[:1].isupper()))
            before = text[out[-1][-3][0]:out[-1][-3][1]] if len(out[-1]) >= 3 else ""
            ordinal = (lang == "de" and stuck and text[pa:pb] == "." and not marker
                       and _german_ordinal(word, before, nxt))
            semicolon = text[pa:pb] == ";"  # a semicolon joins clauses of one sentence, whatever follows
            if marker or title or ordinal or semicolon:
                out[-1].extend(spans)  # in place: many joins cost their spans, not the sentence so far
                continue
        out.append(spans)
    return out


def _ends_sentence(tokens: list[Token], first: int, text: str = "") -> bool:
    """Whether the last token opens a new sentence: it follows a period of its own (a token ``.``,
    not an abbreviation's) after a number or a word, and it begins with a capital letter or an
    opening ``¿`` / ``¡`` (``$3.50. I``, ``3.30h. ¿Qué``), or with a lower-case letter after a period
    that touches its word (``bad. it``), which the segmenter does not split."""
    n = len(tokens)
    if n - first >= 2 and tokens[-2].text in ("?", "!") and tokens[-1].text[:1].islower():
        return True  # a question or an exclamation before a lower-case word (chat: "ok? yes")
    k = n - 2  # Chinese and Japanese sentence ends (。！？), with the closing marks that follow them (。」)
    while k > first and _closing(tokens[k], text):
        k -= 1
    if n - first >= 2 and tokens[k].text in _WIDE_ENDS and not _closing(tokens[-1], text):
        # after closing marks, only a space ends the sentence: 「こんにちは。」と言った is one
        return k == n - 2 or tokens[-1].start > tokens[-2].end
    if n - first < 3 or tokens[-2].text != ".":
        return False
    nxt = tokens[-1].text[:1]
    before = tokens[-3].text[-1:]
    touching = tokens[-2].start == tokens[-3].end and before.isalpha()
    return (before.isalnum() or _symbol(before)) and (
        nxt.isupper() or nxt in "\u00bf\u00a1" or (nxt.islower() and touching))


def pretokenized(text: str) -> Document:
    """Text already tokenized: one sentence per line, tokens separated by whitespace.

    Parameters
    ----------
    text : str

    Returns
    -------
    Document
        One sentence per non-blank line (a line of more than :data:`MAX_SENTENCE_TOKENS` tokens cut
        into sentences of that many); offsets into ``text``.
    """
    doc = Document(text)
    pos = 0
    for line in re.findall(r"[^\n]*\n|[^\n]+", text):  # lines end at LF only (not at U+2028, FF, VT, ...)
        first = len(doc.tokens)
        doc.tokens += [Token(m.group(), pos + m.start(), pos + m.end()) for m in _WORD.finditer(line)
                       if not _invisible(m.group())]
        if len(doc.tokens) > first:
            doc.sentences.append((first, len(doc.tokens)))
        pos += len(line)
    doc.sentences = _capped(doc.sentences, doc.tokens, text)  # a line of more than MAX_SENTENCE_TOKENS
    return doc
