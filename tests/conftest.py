"""Every test run keeps chaintag's cache folder (built models, derived resources) in a temporary
folder of its own, so that tests neither read nor leave entries in the user's cache."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def _own_cache_folder(tmp_path_factory):
    before = os.environ.get("CHAINTAG_CACHE")
    os.environ["CHAINTAG_CACHE"] = str(tmp_path_factory.mktemp("chaintag-cache"))
    yield
    if before is None:
        os.environ.pop("CHAINTAG_CACHE", None)
    else:
        os.environ["CHAINTAG_CACHE"] = before
