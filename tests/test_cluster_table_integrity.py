"""Cluster tables carry their word count and a digest of their rows, checked on load; the same input
gives the same bytes."""

from __future__ import annotations

import numpy as np
import pytest

from chaintag.cli.main import main
from chaintag.errors import InputError
from chaintag.resources.files import read_cluster_table, write_cluster_table
from chaintag.resources.wordmaps import WordMaps


def _maps():
    words = ["the", "dog", "cat", "runs"]
    return WordMaps(words, ["0", "10", "11", "1"], {2: np.array([0, 1, 1, 0], dtype=np.int32)},
                    normalize=["lower"], source="t")


def test_a_table_round_trips_and_records_its_count_and_digest(tmp_path):
    path = tmp_path / "c.tsv"
    write_cluster_table(path, _maps(), {"method": "test"})
    text = path.read_text(encoding="utf-8")
    assert "# words: 4\n" in text and "# sha256: " in text
    back = read_cluster_table(path)
    assert back.words == _maps().words and back.clusters[2].tolist() == [0, 1, 1, 0]


def test_a_table_cut_at_a_line_end_or_changed_is_refused(tmp_path):
    path = tmp_path / "c.tsv"
    write_cluster_table(path, _maps())
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp_path / "cut.tsv").write_text("".join(lines[:-1]), encoding="utf-8")
    with pytest.raises(InputError, match="announces 4 words but holds 3"):
        read_cluster_table(tmp_path / "cut.tsv")
    changed = "".join(lines).replace("cat\t11\t1", "cat\t11\t0")
    (tmp_path / "changed.tsv").write_text(changed, encoding="utf-8")
    with pytest.raises(InputError, match="do not match its sha256 line"):
        read_cluster_table(tmp_path / "changed.tsv")


def test_a_table_of_an_earlier_version_without_the_lines_still_loads(tmp_path):
    path = tmp_path / "c.tsv"
    write_cluster_table(path, _maps())
    old = "".join(ln for ln in path.read_text(encoding="utf-8").splitlines(keepends=True)
                  if not ln.startswith(("# words:", "# sha256:")))
    (tmp_path / "old.tsv").write_text(old, encoding="utf-8")
    assert read_cluster_table(tmp_path / "old.tsv").words == _maps().words


def test_the_same_vectors_give_the_same_table_bytes(tmp_path):
    pytest.importorskip("sklearn")
    pytest.importorskip("scipy")
    rng = np.random.default_rng(0)
    lines = [f"w{i} " + " ".join(f"{v:.4f}" for v in np.eye(3)[i % 3] * 4 + rng.normal(0, 0.1, 3)) for i in range(30)]
    vec = tmp_path / "v.txt"
    vec.write_text("\n".join(lines) + "\n", encoding="utf-8")
    outs = []
    for name in ("a.tsv", "b.tsv"):
        assert main(["clusters", "--vectors", str(vec), "--k", "3", "--out", str(tmp_path / name), "--quiet"]) == 0
        outs.append((tmp_path / name).read_bytes())
    assert outs[0] == outs[1] and b'"seconds"' not in outs[0]
