"""Raw text: sentence splitting, tokenization with character offsets, and tagged documents with spans."""

from .document import Document, Span, Token

__all__ = ["Document", "Span", "Token"]
