"""One Unicode form for the words that attributes and gazetteers read."""

from __future__ import annotations

import unicodedata

__all__ = ["nfc"]


def nfc(value: str) -> str:
    """``value`` in Unicode normal form C (composed: ``"Ma\\u0301laga"`` is ``"Málaga"``); ASCII as it is.

    A word typed with a composed letter and the same word with a letter and a combining accent (text
    from macOS file names, PDFs, some web pages) look alike and mean the same: attributes and gazetteer
    matching read the composed form, so both get the same attributes.

    Parameters
    ----------
    value : str

    Returns
    -------
    str
    """
    return value if value.isascii() else unicodedata.normalize("NFC", value)
