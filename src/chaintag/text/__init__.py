"""Raw text: sentence splitting, tokenization with character offsets, and tagged documents with spans."""

from .document import Document, Span, Token
from .tokenize import LANGUAGES, pretokenized, split_text

__all__ = ["Document", "Span", "Token", "LANGUAGES", "split_text", "pretokenized"]
