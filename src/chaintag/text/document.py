"""Tagged text: tokens with character offsets, labels, and labelled spans with their confidence.

A :class:`Document` is what raw text becomes: its tokens (each with the offsets of its characters in
``text``, so that ``text[token.start:token.end] == token.text``), the sentences as token ranges, and,
once tagged, one label per token and the spans (chunks, entities) those labels make.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Token", "Span", "Document"]


@dataclass(frozen=True)
class Token:
    """One token.

    Attributes
    ----------
    text : str
        The token as the tagger reads it.
    start, end : int
        Character offsets of the token in the document's ``text`` (``end`` exclusive).
    label : str or None
        The predicted label, once tagged.
    """

    text: str
    start: int
    end: int
    label: str | None = None

    def to_dict(self) -> dict:
        return {"text": self.text, "start": self.start, "end": self.end, "label": self.label}


@dataclass(frozen=True)
class Span:
    """A labelled span (a chunk or an entity), as conlleval counts it.

    Attributes
    ----------
    label : str
        The chunk type (``"PER"``, ``"NP"``, ...), without its prefix.
    start, end : int
        Character offsets in the document's ``text`` (``end`` exclusive).
    text : str
        ``document.text[start:end]``.
    confidence : float or None
        The probability of the whole span under the model, in [0, 1]; None where it was not asked for.
    first, last : int
        Token indices in the document: ``tokens[first:last]`` make the span (``last`` exclusive).
    """

    label: str
    start: int
    end: int
    text: str
    confidence: float | None
    first: int
    last: int

    def to_dict(self) -> dict:
        return {"label": self.label, "start": self.start, "end": self.end, "text": self.text,
                "confidence": self.confidence}


@dataclass
class Document:
    """Raw or pretokenized text as tokens, sentences and, once tagged, labels and spans.

    Attributes
    ----------
    text : str
        The original text.
    tokens : list of Token
        Every token of every sentence, in order.
    sentences : list of (int, int)
        Token index ranges ``(first, last)`` (``last`` exclusive), one per sentence.
    spans : list of Span
        The labelled spans, empty before tagging or for labels without chunks (POS tags).
    line : int or None
        The line of the input file where the text starts (1-based), for a document read from a file
        (:func:`chaintag.api.text_tagging.iter_documents`); None otherwise.
    """

    text: str
    tokens: list[Token] = field(default_factory=list)
    sentences: list[tuple[int, int]] = field(default_factory=list)
    spans: list[Span] = field(default_factory=list)
    line: int | None = None

    def sentence_tokens(self) -> list[list[str]]:
        """The tokens' texts, one list per sentence (what a tagger reads)."""
        return [[t.text for t in self.tokens[a:b]] for a, b in self.sentences]

    def to_dict(self) -> dict:
        """The JSON form: ``{"text", "tokens": [...], "spans": [...], "sentences": [[first, last], ...]}``,
        and ``"line"`` for a document read from a file."""
        out = {"text": self.text, "tokens": [t.to_dict() for t in self.tokens],
               "spans": [s.to_dict() for s in self.spans],
               "sentences": [list(s) for s in self.sentences]}
        if self.line is not None:
            out["line"] = self.line
        return out
