"""Read and write word-resource files: Brown paths, word vectors, chaintag cluster tables.

Formats
-------
Brown ``paths`` file (Liang's ``brown-cluster`` output)
    ``BITS<TAB>WORD[<TAB>COUNT]`` per line, ``BITS`` a string of 0 and 1.
Word vectors, text format (word2vec ``-binary 0``, GloVe, fastText ``.vec``)
    ``WORD V1 ... VD`` per line, space separated; an optional first line
    ``N D`` (word2vec, fastText). A word may hold spaces (GloVe 840B): it is
    then every field before the last ``D`` (:mod:`chaintag.io.vector_lines`).
chaintag cluster table (written by ``chaintag clusters``)
    A first line ``# chaintag word clusters 1``, further ``# key: value``
    comment lines (``normalize``, ``settings``), a header line
    ``word<TAB>path<TAB>km64<TAB>...`` naming the columns, then one word
    per line: its path (bits, or empty) and its cluster ids.

Each reader stops at the first malformed line with an
:class:`~chaintag.errors.InputError` naming the file and the line. A UTF-8
byte-order mark (at the start of the file or of any line) and the CR of
CRLF endings are dropped (:mod:`chaintag.io.text_lines`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re

import numpy as np

from ..errors import InputError
from ..io.text_lines import numbered_lines
from ..io.vector_lines import VectorLines, is_number
from .wordmaps import WordMaps

TABLE_MAGIC = "# chaintag word clusters 1"
#: Version of :func:`read_vectors`: raise it when the same bytes would give other words or values
#: (it keys the cached vectors, :mod:`chaintag.resources.cached`).
VECTORS_READER_VERSION = 1
_BITS = re.compile(r"^[01]+$")


def _lines(path):
    """``(line number, line)`` of a resource file: BOM and CRLF removed (file and line named on errors)."""
    return numbered_lines(path, what="resource file")


#: Lines of a resource file read to tell its format (:func:`sniff_kind`).
SNIFF_LINES = 100


def _gazetteer_line(line: str) -> bool:
    """Whether a line reads as ``type<TAB>string`` with a string that is not only numbers (``IL-2``,
    ``5 lipoxygenase``), not a word and a vector's values."""
    fields = line.split("\t")
    if len(fields) < 2 or not fields[0].strip() or is_number(fields[0]):
        return False
    words = fields[1].split()
    return bool(words) and not all(is_number(w) for w in words)


def sniff_kind(path) -> str:
    """``"table"``, ``"brown"``, ``"gazetteer"`` or ``"vectors"``: the format of a resource file, from its
    first lines (``#`` comments and blank lines skipped).

    A cluster table opens with its magic line; a Brown paths file's first line is ``BITS<TAB>WORD``; a
    gazetteer list has a line ``type<TAB>string`` whose string is not a number among its first
    :data:`SNIFF_LINES` (whatever their order: a first entry ``PROD<TAB>747`` does not make the list word
    vectors; ``the<TAB>17`` lines alone are no list, nor a list of numbers alone); word vectors otherwise,
    their header ``N D`` separated by a space or a tab.

    Raises
    ------
    InputError
        When the file cannot be read or is empty.
    """
    lines = []
    for lineno, line in _lines(path):
        if not lines and line.startswith(TABLE_MAGIC):
            return "table"
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        lines.append(line)
        if len(lines) >= SNIFF_LINES:
            break
    if not lines:
        raise InputError("empty resource file", path)
    head = lines[0].split()
    if len(head) == 2 and all(t.isdigit() for t in head) and len(lines) > 1 and len(lines[1].split()) > 2:
        return "vectors"  # the header N D of word2vec and fastText files
    fields = lines[0].split("\t")
    if len(fields) in (2, 3) and _BITS.match(fields[0]):
        return "brown"
    if any(_gazetteer_line(line) for line in lines):
        return "gazetteer"  # whatever its other lines: numbers (PROD<TAB>747), a trailing tab (refused by the reader)
    return "vectors"


def read_brown_paths(path, source: str | None = None) -> WordMaps:
    """Read a Brown clustering ``paths`` file.

    Parameters
    ----------
    path : str or os.PathLike
        ``BITS<TAB>WORD[<TAB>COUNT]`` per line (blank lines skipped).
    source : str, optional
        Description kept with the maps (default: the file name).

    Returns
    -------
    WordMaps
        With ``paths``; words are looked up as they are (no normalization).

    Raises
    ------
    InputError
        On a line without two or three tab-separated fields, a path that is
        not a bit string, a count that is not an integer, or a repeated word
        (file and line named).
    """
    words, paths, seen = [], [], {}
    for lineno, line in _lines(path):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) not in (2, 3):
            raise InputError(f"a Brown paths line has 2 or 3 tab-separated fields (bits, word, count), "
                             f"found {len(fields)}", path, lineno)
        bits, word = fields[0], fields[1]
        if not _BITS.match(bits):
            raise InputError(f"cluster path {bits[:40]!r} is not a string of 0 and 1", path, lineno)
        if not word:
            raise InputError("empty word", path, lineno)
        if len(fields) == 3 and not fields[2].strip().isdigit():
            raise InputError(f"count {fields[2][:40]!r} is not a non-negative integer", path, lineno)
        if word in seen:
            raise InputError(f"word {word!r} is listed twice (first on line {seen[word]})", path, lineno)
        seen[word] = lineno
        words.append(word)
        paths.append(bits)
    if not words:
        raise InputError("no words in the Brown paths file", path)
    return WordMaps(words, paths=paths, source=source or os.path.basename(os.fspath(path)))


def read_vectors(path, source: str | None = None) -> WordMaps:
    """Read word vectors in text format (word2vec, GloVe, fastText ``.vec``).

    Parameters
    ----------
    path : str or os.PathLike
        ``WORD V1 ... VD`` per line; an optional first line ``N D``. ``D`` is
        the header's, else the number of values of the first vector line; a
        line with more fields takes the leading ones as its word (GloVe
        840B's ``at name@domain.com``), unless they are all numbers; the
        number of such words is logged (logger ``chaintag.io.vector_lines``).
    source : str, optional

    Returns
    -------
    WordMaps
        With ``vectors`` (float32, shape (n_words, D)); ``kmN`` is computed from them.

    Raises
    ------
    InputError
        On a line with another number of values than the first (or than
        the header says), a value that is not a number, a repeated word, or
        a header whose word count does not match (file and line named).
    """
    words, rows, seen = [], [], {}
    lines = VectorLines(_lines(path), path)
    for lineno, word, values, first in lines:
        dim = lines.dim
        if lines.header is not None and dim < 1:
            raise InputError("the header gives a vector dimension of 0", path, 1)
        if first and dim < 1:
            raise InputError("a vector line needs a word and at least one value", path, lineno)
        if len(values) != dim:
            raise InputError(f"{len(values)} values where the vectors have {dim}", path, lineno)
        try:
            with np.errstate(over="ignore"):  # a value beyond float32 becomes inf: refused below, once
                rows.append(np.array(values, dtype=np.float32))
        except ValueError:
            bad = next(v for v in values if not is_number(v))
            raise InputError(f"value {bad[:40]!r} is not a number", path, lineno) from None
        if word in seen:
            raise InputError(f"word {word!r} is listed twice (first on line {seen[word]})", path, lineno)
        seen[word] = lineno
        words.append(word)
    if not words:
        raise InputError("no vectors in the file", path)
    expect = lines.header[0] if lines.header is not None else None
    if expect is not None and expect != len(words):
        raise InputError(f"the header announces {expect} vectors, the file has {len(words)}", path, 1)
    vectors = np.vstack(rows).astype(np.float32)
    if not np.isfinite(vectors).all():
        bad = int(np.flatnonzero(~np.isfinite(vectors).all(axis=1))[0])
        raise InputError(f"the vector of {words[bad]!r} holds inf or nan", path, seen[words[bad]])
    return WordMaps(words, vectors=vectors, source=source or os.path.basename(os.fspath(path)))


def _table_row(line: str, header: list, ks: list, path, lineno: int):
    """One row of a cluster table: its word, its path and its cluster ids (checked, file and line named)."""
    fields = line.split("\t")
    if len(fields) != len(header):
        raise InputError(f"{len(fields)} tab-separated fields where the header has {len(header)}", path, lineno)
    word, bits = fields[0], fields[1]
    if not word:
        raise InputError("empty word", path, lineno)
    if bits and not _BITS.match(bits):
        raise InputError(f"cluster path {bits[:40]!r} is not a string of 0 and 1", path, lineno)
    row = []
    for k, v in zip(ks, fields[2:]):
        try:
            c = int(v)
        except ValueError:
            raise InputError(f"cluster id {v[:40]!r} of km{k} is not an integer", path, lineno) from None
        if not -1 <= c < k:
            raise InputError(f"cluster id {c} of km{k} is outside -1 .. {k - 1}", path, lineno)
        row.append(c)
    return word, bits, row


def read_cluster_table(path, source: str | None = None) -> WordMaps:
    """Read a cluster table written by :func:`write_cluster_table`.

    Raises
    ------
    InputError
        On a missing first line or header, an unknown column, a row with
        another number of fields than the header, a path that is not a bit
        string, an id that is not an integer in ``-1 .. N-1``, or a repeated
        word (file and line named).
    """
    normalize: list[str] = []
    header = None
    words, paths, ids, seen = [], [], [], {}
    ks: list[int] = []
    announced = digest = None
    rows = hashlib.sha256()
    for lineno, line in _lines(path):
        if lineno == 1:
            if not line.startswith(TABLE_MAGIC):
                raise InputError(f"not a chaintag cluster table (the first line should be {TABLE_MAGIC!r})",
                                 path, lineno)
            continue
        if header is None:
            if line.startswith("# normalize:"):
                normalize = [n.strip() for n in line.split(":", 1)[1].split(",") if n.strip()]
                continue
            if line.startswith("# words:"):  # written since tables carry their count and digest
                announced = line.split(":", 1)[1].strip()
                continue
            if line.startswith("# sha256:"):
                digest = line.split(":", 1)[1].strip()
                continue
            if line.startswith("#") or not line.strip():
                continue
            header = line.split("\t")
            if header[:2] != ["word", "path"]:
                raise InputError("the header line should start with 'word<TAB>path'", path, lineno)
            for col in header[2:]:
                m = re.match(r"^km([1-9][0-9]*)$", col)
                if not m:
                    raise InputError(f"unknown column {col!r} (expected kmN)", path, lineno)
                ks.append(int(m.group(1)))
            continue
        if not line.strip():
            continue
        rows.update(line.encode("utf-8") + b"\n")
        word, bits, row = _table_row(line, header, ks, path, lineno)
        if word in seen:
            raise InputError(f"word {word!r} is listed twice (first on line {seen[word]})", path, lineno)
        seen[word] = lineno
        words.append(word)
        paths.append(bits)
        ids.append(row)
    if header is None or not words:
        raise InputError("no words in the cluster table", path)
    if announced is not None and announced != str(len(words)):
        raise InputError(f"the table announces {announced} words but holds {len(words)}: the file was cut "
                         "short or changed; write it again with chaintag clusters", path)
    if digest is not None and digest != rows.hexdigest():
        raise InputError("the rows of the table do not match its sha256 line: the file was changed or damaged; "
                         "write it again with chaintag clusters", path)
    arr = np.asarray(ids, dtype=np.int32).reshape(len(words), len(ks))
    has_paths = any(paths)
    return WordMaps(words, paths if has_paths else None, {k: arr[:, j] for j, k in enumerate(ks)},
                    normalize=normalize, source=source or os.path.basename(os.fspath(path)))


def write_cluster_table(path, maps: WordMaps, settings: dict | None = None) -> None:
    """Write ``maps`` (paths and k-means ids; not vectors) as a cluster table, atomically.

    Parameters
    ----------
    path : str or os.PathLike
    maps : WordMaps
    settings : dict, optional
        How the clusters were induced; written as a ``# settings:`` JSON line.
    """
    from ..io.atomic import atomic_open
    ks = sorted(maps.clusters)
    with atomic_open(path, "w", newline="\n") as f:
        f.write(TABLE_MAGIC + "\n")
        f.write("# normalize: " + ",".join(maps.normalize) + "\n")
        if settings:
            f.write("# settings: " + json.dumps(settings, sort_keys=True) + "\n")
        cols = [maps.clusters[k] for k in ks]
        rows = [("\t".join([w, maps.paths[j] if maps.paths is not None else ""]
                           + [str(int(c[j])) for c in cols]) + "\n") for j, w in enumerate(maps.words)]
        digest = hashlib.sha256("".join(rows).encode("utf-8")).hexdigest()
        f.write(f"# words: {len(rows)}\n# sha256: {digest}\n")  # checked on load: a cut or changed file is refused
        f.write("\t".join(["word", "path"] + [f"km{k}" for k in ks]) + "\n")
        f.writelines(rows)


def write_vectors(path, maps: WordMaps) -> None:
    """Write the vectors of ``maps`` in word2vec text format (header ``N D``), atomically."""
    from ..io.atomic import atomic_open
    with atomic_open(path, "w", newline="\n") as f:
        f.write(f"{len(maps.words)} {maps.vectors.shape[1]}\n")
        for w, v in zip(maps.words, maps.vectors):
            f.write(w + " " + " ".join(f"{x:.6g}" for x in v.tolist()) + "\n")


def read_resource(path, kind: str | None = None) -> WordMaps:
    """Read a resource file of any of the three formats (``kind`` detected when None).

    Raises
    ------
    InputError
        On an unknown kind or a malformed file (file and line named).
    """
    kind = kind or sniff_kind(path)
    readers = {"table": read_cluster_table, "brown": read_brown_paths, "vectors": read_vectors}
    if kind not in readers:
        raise InputError(f"unknown resource kind {kind!r} (table, brown, vectors)", path)
    return readers[kind](path)


def load_resources(paths) -> WordMaps | None:
    """Read and merge the resource files ``paths`` (None when there are none)."""
    paths = [p for p in (paths or []) if p]
    if not paths:
        return None
    return WordMaps.merge([read_resource(p) for p in paths])
