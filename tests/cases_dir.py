"""The folder of reported input cases: ``CHAINTAG_CASES``, else ``shared/cases`` beside the repository."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

#: The skip reason of the tests that read the cases.
REASON = "handed cases folder not available (set CHAINTAG_CASES)"


def cases_dir() -> Path | None:
    """The cases folder, or None when there is none."""
    env = os.environ.get("CHAINTAG_CASES")
    folder = Path(env) if env else Path(__file__).resolve().parents[1].parent / "shared" / "cases"
    return folder if folder.is_dir() else None


def needs_cases():
    """A pytest mark that skips a test (or module) without the cases folder."""
    return pytest.mark.skipif(cases_dir() is None, reason=REASON)
