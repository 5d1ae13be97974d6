"""Word-map lookups: digit normalization and the memo of rows give what a plain lookup gives."""

from __future__ import annotations

import re

import numpy as np
import pytest

from chaintag.resources import wordmaps
from chaintag.resources.wordmaps import WordMaps


@pytest.mark.parametrize("value", ["abc", "A1b2", "1,000.5", "٣٤", "x९y", "", "Ⅻ", "²"])
def test_norm_digits_equals_the_expression(value):
    assert wordmaps._NORMALIZERS["norm"](value) == re.sub(r"\d", "0", value)


def test_rows_are_those_of_the_index_whatever_the_memo(monkeypatch):
    monkeypatch.setattr(wordmaps, "ROW_MEMO", 3)
    maps = WordMaps(["the", "cat", "00", "dog"], paths=["0", "10", "110", ""],
                    clusters={2: np.array([0, 1, 1, -1], dtype=np.int32)}, normalize=("lower", "norm"))
    brown2, km2 = maps.function("brown2"), maps.function("km2")
    asked = ["The", "CAT", "12", "dog", "bird", "the", "34", "Dog"] * 2
    assert [maps.row(v) for v in asked] == [0, 1, 2, 3, -1, 0, 2, 3] * 2
    assert [brown2(v) for v in asked] == ["0", "10", "11", None, None, "0", "11", None] * 2
    assert [km2(v) for v in asked] == ["0", "1", "1", None, None, "0", "1", None] * 2
    assert len(maps._row_memo) <= 3
