"""Model files: a zip of ``.npy`` arrays (``np.load``-compatible) plus JSON metadata.

The format is non-executable: arrays are read with ``allow_pickle=False`` and
the metadata is JSON stored as the uint8 array ``__meta__``. Entries carry a
fixed timestamp so that equal models give equal bytes. Files are written
atomically (temporary file + rename).

Integrity (format version 2)
----------------------------
Every file carries two SHA-256 checks, verified on load before anything in
it is trusted:

- the **file digest**: the zip comment (the last 80 bytes of the file) is
  ``chaintag-sha256:`` and the hex SHA-256 of every byte before it, so a
  change anywhere (array data, ``.npy`` headers, zip headers, central
  directory) is caught before the zip or the arrays are parsed;
- the **array digests**: the metadata lists each array's dtype, shape and
  SHA-256 of ``name | dtype | shape | C-order bytes``; they are checked
  again on the parsed arrays.

Any failure raises :class:`~chaintag.errors.ModelFormatError` with one line
naming the file. Files of format version 1 (no digests) still load: the
zip's CRC-32 of every entry is checked. Entries must be stored (not
compressed), as :func:`save_model` writes them.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
import zlib

import numpy as np

from .._version import __version__
from ..errors import ModelFormatError
from .atomic import atomic_open

FORMAT_NAME = "chaintag-model"
FORMAT_VERSION = 2
_EPOCH = (1980, 1, 1, 0, 0, 0)
_MAGIC = b"chaintag-sha256:"
_TRAILER = len(_MAGIC) + 64
_INTEGRITY = "integrity"  # metadata key of the array digests (not returned by load_model)


def array_digest(name: str, arr: np.ndarray) -> str:
    """Hex SHA-256 of an array's name, dtype, shape and C-order bytes."""
    arr = np.ascontiguousarray(arr)
    h = hashlib.sha256(f"{name}|{arr.dtype.str}|{list(arr.shape)}|".encode("utf-8"))
    h.update(arr.reshape(-1).view(np.uint8))
    return h.hexdigest()


def save_model(path, meta: dict, arrays: dict[str, np.ndarray]) -> None:
    """Write a model file atomically, with its integrity checks.

    Parameters
    ----------
    path : str or os.PathLike
        Destination (conventionally ``*.npz``).
    meta : dict
        JSON-serializable description; ``format``, ``format_version``,
        ``chaintag_version`` and the array digests are added. Any Python
        string is carried: metadata that UTF-8 cannot hold (a lone
        surrogate) is written with JSON's ASCII escapes, which
        :func:`load_model` reads back to the same strings.
    arrays : dict of str to ndarray
        Numeric arrays (no object dtype).

    Raises
    ------
    ValueError
        If an array has object dtype.
    OSError
        If the file cannot be written (the message names ``path``).
    """
    items = []
    digests = {}
    for name, arr in sorted(arrays.items()):
        arr = np.ascontiguousarray(np.asarray(arr))
        if arr.dtype == object:
            raise ValueError(f"array {name!r} has object dtype; models hold numeric arrays only")
        items.append((name, arr))
        digests[name] = {"dtype": arr.dtype.str, "shape": list(arr.shape), "sha256": array_digest(name, arr)}
    meta = {k: v for k, v in meta.items() if k != _INTEGRITY}
    meta.update(format=FORMAT_NAME, format_version=FORMAT_VERSION, chaintag_version=__version__)
    meta[_INTEGRITY] = {"arrays": digests}
    try:
        blob = json.dumps(meta, ensure_ascii=False, sort_keys=True).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: JSON's \u escapes carry any Python string, in ASCII
        blob = json.dumps(meta, ensure_ascii=True, sort_keys=True).encode("ascii")
    items.insert(0, ("__meta__", np.frombuffer(blob, dtype=np.uint8)))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as zf:
        for name, arr in items:
            entry = io.BytesIO()
            np.lib.format.write_array(entry, arr, allow_pickle=False)
            info = zipfile.ZipInfo(name + ".npy", date_time=_EPOCH)
            info.external_attr = 0o644 << 16
            zf.writestr(info, entry.getvalue())
        zf.comment = _MAGIC + b"0" * 64
    data = buf.getbuffer()
    body = data[:len(data) - _TRAILER]
    with atomic_open(path, "wb") as f:
        f.write(body)
        f.write(_MAGIC + hashlib.sha256(body).hexdigest().encode("ascii"))


def _corrupt(path: str, what: str) -> ModelFormatError:
    return ModelFormatError(f"{path}: damaged or not a chaintag model file ({what}); refusing to load it")


def _read_entries(path: str, data: bytes, end: int, check_crc: bool) -> dict[str, memoryview]:
    """Every entry's bytes, as views of ``data`` (stored entries only; ``end``: where the zip's
    entries must end). ``check_crc``: compare each entry's zip CRC-32 (files without a digest)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = zf.infolist()
    except Exception as exc:  # zipfile raises many kinds (BadZipFile, NotImplementedError, struct.error, ...)
        raise _corrupt(path, f"unreadable zip archive: {_one_line(exc)}") from None
    view = memoryview(data)
    out: dict[str, memoryview] = {}
    for info in infos:
        name = info.filename
        if name in out:
            raise _corrupt(path, "an entry name occurs twice")
        if info.compress_type != zipfile.ZIP_STORED:
            raise _corrupt(path, f"entry {name!r} is compressed, and chaintag writes its models uncompressed "
                                 "(an archive of numpy.savez_compressed or another program is no chaintag model)")
        if info.compress_size != info.file_size:
            raise _corrupt(path, f"entry {name!r}: its stored and its full sizes differ")
        h = info.header_offset
        if h < 0 or h + 30 > end or data[h:h + 4] != b"PK\x03\x04":
            raise _corrupt(path, f"entry {name!r}: no local header where the directory says")
        start = h + 30 + int.from_bytes(data[h + 26:h + 28], "little") + int.from_bytes(data[h + 28:h + 30], "little")
        stop = start + info.file_size
        if stop > end:
            raise _corrupt(path, f"entry {name!r} runs past the end of the archive")
        out[name] = view[start:stop]
        if check_crc and zlib.crc32(out[name]) != info.CRC:
            raise _corrupt(path, f"entry {name!r}: CRC-32 mismatch")
    return out


def _parse_array(path: str, name: str, raw: memoryview) -> np.ndarray:
    """An ``.npy`` entry as an array (a writable copy), refusing object arrays and stray bytes."""
    fmt = np.lib.format
    try:
        if len(raw) < 10 or bytes(raw[:6]) != fmt.MAGIC_PREFIX:
            raise ValueError("not an .npy array")
        size_len = 2 if raw[6] == 1 else 4
        offset = 8 + size_len + int.from_bytes(raw[8:8 + size_len], "little")
        if offset > len(raw):
            raise ValueError("its header runs past the entry")
        fp = io.BytesIO(bytes(raw[:offset]))
        version = fmt.read_magic(fp)
        if version == (1, 0):
            shape, fortran, dtype = fmt.read_array_header_1_0(fp)
        elif version == (2, 0):
            shape, fortran, dtype = fmt.read_array_header_2_0(fp)
        else:
            raise ValueError(f"unsupported .npy version {version}")
        if dtype.hasobject:
            raise ValueError("it holds pickled (executable) data, which chaintag refuses to load")
        count = 1
        for n in shape:
            count *= n
        if len(raw) - offset != count * dtype.itemsize:
            raise ValueError(f"{len(raw) - offset} data bytes for shape {shape} of {dtype}")
        arr = np.frombuffer(raw, dtype=dtype, count=count, offset=offset).copy()
        return arr.reshape(shape[::-1]).transpose() if fortran else arr.reshape(shape)
    except Exception as exc:  # header parsing raises ValueError, SyntaxError, TokenError, ...
        raise _corrupt(path, f"array {name!r} unreadable: {_one_line(exc)}") from None


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:200]


def load_model(path) -> tuple[dict, dict[str, np.ndarray]]:
    """Read a model file written by :func:`save_model`, checking its integrity.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    meta : dict
        The metadata as saved (without the array digests).
    arrays : dict of str to ndarray

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ModelFormatError
        If the file is truncated, corrupt (a digest does not match), not a
        chaintag model, or of a newer format version than this release
        reads. The message is one line that names the file.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such model file")
    if os.path.isdir(path):
        raise ModelFormatError(f"{path}: is a folder, not a model file")
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise ModelFormatError(f"{path}: cannot read the model file: {exc.strerror or exc}") from None
    checked = data[-_TRAILER:-64] == _MAGIC if len(data) >= _TRAILER else False
    if checked:
        stored = data[-64:]
        if hashlib.sha256(memoryview(data)[:-_TRAILER]).hexdigest().encode("ascii") != stored:
            raise _corrupt(path, "its SHA-256 checksum does not match its contents: it was changed or "
                                 "damaged after it was written")
    elif not zipfile.is_zipfile(io.BytesIO(data)):
        raise ModelFormatError(f"{path}: not a chaintag model file (not an npz archive; "
                               "truncated, or some other kind of file)")
    entries = _read_entries(path, data, len(data) - _TRAILER if checked else len(data), check_crc=not checked)
    if "__meta__.npy" not in entries:
        raise ModelFormatError(f"{path}: not a chaintag model file (no metadata)")
    try:
        meta = json.loads(bytes(_parse_array(path, "__meta__", entries.pop("__meta__.npy"))).decode("utf-8"))
    except ModelFormatError:
        raise
    except (ValueError, UnicodeDecodeError) as exc:
        raise _corrupt(path, f"metadata unreadable: {_one_line(exc)}") from None
    except RecursionError:  # JSON nested past the parser's depth
        raise _corrupt(path, "metadata nested too deeply") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        raise ModelFormatError(f"{path}: not a chaintag model file")
    version = meta.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise _corrupt(path, f"format version {version!r}")
    if version > FORMAT_VERSION:
        raise ModelFormatError(
            f"{path}: model format version {version} is newer than this chaintag "
            f"({__version__}) reads (up to {FORMAT_VERSION}); upgrade chaintag")
    if version >= 2 and not checked:
        raise _corrupt(path, "its SHA-256 checksum is missing from the end of the file")
    arrays = {}
    for entry, raw in entries.items():
        if not entry.endswith(".npy"):
            raise _corrupt(path, f"unexpected entry {entry!r}")
        name = entry[:-4]
        arrays[name] = _parse_array(path, name, raw)
    if version >= 2:
        _check_digests(path, meta.pop(_INTEGRITY, None), arrays)
    return meta, arrays


def _check_digests(path: str, integrity, arrays: dict[str, np.ndarray]) -> None:
    listed = integrity.get("arrays") if isinstance(integrity, dict) else None
    if not isinstance(listed, dict):
        raise _corrupt(path, "the array digests are missing from its metadata")
    if set(listed) != set(arrays):
        raise _corrupt(path, "its arrays are not the ones its metadata lists")
    for name, arr in arrays.items():
        want = listed[name]
        if not isinstance(want, dict) or want.get("dtype") != arr.dtype.str \
                or want.get("shape") != list(arr.shape) or want.get("sha256") != array_digest(name, arr):
            raise _corrupt(path, f"array {name!r} does not match its SHA-256 digest")
