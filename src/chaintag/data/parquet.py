"""Read one column of strings from a Parquet file, in pure Python (no pyarrow).

Only what the word index of a vector table needs is supported: a flat schema,
a ``BYTE_ARRAY`` column without nulls, pages ``PLAIN`` or dictionary encoded
(``PLAIN_DICTIONARY`` / ``RLE_DICTIONARY``), data pages of version 1 or 2,
no compression or Snappy. Anything else raises :class:`ParquetError` naming
the file and what is not supported.

The format is described in the Apache Parquet specification
(``parquet-format``: ``parquet.thrift``, ``Encodings.md``); the metadata is
Thrift's compact protocol, the Snappy block format is that of
``google/snappy`` (``format_description.txt``).
"""

from __future__ import annotations

import struct

import numpy as np

from chaintag.errors import ChaintagError

__all__ = ["ParquetError", "read_string_column", "snappy_decompress"]

_MAGIC = b"PAR1"

# Thrift compact protocol type ids
_STOP, _TRUE, _FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY, _LIST, _SET, _MAP, _STRUCT = \
    range(13)

# parquet.thrift enums
_BYTE_ARRAY = 6
_REQUIRED, _OPTIONAL = 0, 1
_UNCOMPRESSED, _SNAPPY = 0, 1
_PLAIN, _PLAIN_DICTIONARY, _RLE, _RLE_DICTIONARY = 0, 2, 3, 8
_DATA_PAGE, _DICTIONARY_PAGE, _DATA_PAGE_V2 = 0, 2, 3


class ParquetError(ChaintagError):
    """A Parquet file that is damaged or uses a feature this reader does not support."""


class _Compact:
    """A reader of Thrift's compact protocol; structs become ``{field id: value}`` dicts."""

    def __init__(self, buf: bytes, pos: int = 0):
        self.buf = buf
        self.pos = pos

    def byte(self) -> int:
        b = self.buf[self.pos]
        self.pos += 1
        return b

    def varint(self) -> int:
        shift = result = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            if b < 0x80:
                return result
            shift += 7

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def value(self, kind: int):
        if kind == _TRUE:
            return True
        if kind == _FALSE:
            return False
        if kind == _BYTE:
            b = self.byte()
            return b - 256 if b > 127 else b
        if kind in (_I16, _I32, _I64):
            return self.zigzag()
        if kind == _DOUBLE:
            (x,) = struct.unpack_from("<d", self.buf, self.pos)
            self.pos += 8
            return x
        if kind == _BINARY:
            n = self.varint()
            data = self.buf[self.pos:self.pos + n]
            if len(data) != n:
                raise IndexError("binary field runs past the end")
            self.pos += n
            return data
        if kind in (_LIST, _SET):
            head = self.byte()
            size, elem = head >> 4, head & 0x0F
            if size == 15:
                size = self.varint()
            if elem in (_TRUE, _FALSE):  # booleans in a list are one byte each
                return [self.byte() == 1 for _ in range(size)]
            return [self.value(elem) for _ in range(size)]
        if kind == _MAP:
            size = self.varint()
            if size == 0:
                return {}
            types = self.byte()
            return {self.value(types >> 4): self.value(types & 0x0F) for _ in range(size)}
        if kind == _STRUCT:
            return self.struct()
        raise ValueError(f"unknown Thrift compact type {kind}")

    def struct(self) -> dict:
        fields: dict[int, object] = {}
        last = 0
        while True:
            head = self.byte()
            kind = head & 0x0F
            if kind == _STOP:
                return fields
            delta = head >> 4
            fid = last + delta if delta else self.zigzag()
            fields[fid] = self.value(kind)
            last = fid


def snappy_decompress(data: bytes) -> bytes:
    """Decompress one raw Snappy block (not the framed stream format).

    Parameters
    ----------
    data : bytes
        A Snappy block: the uncompressed length as a varint, then literals and copies.

    Returns
    -------
    bytes
        The uncompressed data.

    Raises
    ------
    ValueError
        The block is damaged (a copy reaching before the start, a length that does
        not match, data running past the end).
    """
    reader = _Compact(data)
    try:
        size = reader.varint()
    except IndexError:
        raise ValueError("empty Snappy block") from None
    out = bytearray()
    pos, end = reader.pos, len(data)
    while pos < end:
        tag = data[pos]
        pos += 1
        kind = tag & 3
        if kind == 0:  # literal
            n = tag >> 2
            if n >= 60:
                extra = n - 59
                n = int.from_bytes(data[pos:pos + extra], "little")
                pos += extra
            n += 1
            if pos + n > end:
                raise ValueError("Snappy literal runs past the end of the block")
            out += data[pos:pos + n]
            pos += n
            continue
        if kind == 1:
            n = 4 + ((tag >> 2) & 7)
            offset = ((tag >> 5) << 8) | data[pos]
            pos += 1
        elif kind == 2:
            n = (tag >> 2) + 1
            offset = int.from_bytes(data[pos:pos + 2], "little")
            pos += 2
        else:
            n = (tag >> 2) + 1
            offset = int.from_bytes(data[pos:pos + 4], "little")
            pos += 4
        if offset == 0 or offset > len(out):
            raise ValueError(f"Snappy copy with offset {offset} at output length {len(out)}")
        start = len(out) - offset
        if offset >= n:
            out += out[start:start + n]
        else:  # overlapping copy: the pattern of the last ``offset`` bytes repeats
            pattern = out[start:]
            out += (pattern * (n // offset + 1))[:n]
    if len(out) != size:
        raise ValueError(f"Snappy block says {size} bytes but holds {len(out)}")
    return bytes(out)


def _hybrid(buf: bytes, pos: int, end: int, bit_width: int, count: int) -> np.ndarray:
    """Decode ``count`` values of the RLE / bit-packing hybrid encoding from ``buf[pos:end]``."""
    out = np.empty(count, dtype=np.int64)
    filled = 0
    reader = _Compact(buf, pos)
    nbytes = (bit_width + 7) // 8
    while filled < count:
        if reader.pos >= end:
            raise ValueError(f"RLE data ends after {filled} of {count} values")
        header = reader.varint()
        if header & 1:  # bit-packed groups of 8 values, least significant bit first
            groups = header >> 1
            size = groups * bit_width
            chunk = np.frombuffer(buf, dtype=np.uint8, count=size, offset=reader.pos)
            reader.pos += size
            if bit_width == 0:
                values = np.zeros(groups * 8, dtype=np.int64)
            else:
                bits = np.unpackbits(chunk, bitorder="little").reshape(-1, bit_width)
                values = bits.astype(np.int64) @ (np.int64(1) << np.arange(bit_width,
                                                                            dtype=np.int64))
            take = min(len(values), count - filled)
            out[filled:filled + take] = values[:take]
            filled += take
        else:  # a run of one repeated value
            run = header >> 1
            value = int.from_bytes(buf[reader.pos:reader.pos + nbytes], "little")
            reader.pos += nbytes
            take = min(run, count - filled)
            out[filled:filled + take] = value
            filled += take
    return out


def _plain_strings(buf: bytes, pos: int, count: int) -> list[bytes]:
    """``count`` PLAIN byte arrays (4-byte little-endian length, then the bytes)."""
    values = []
    for _ in range(count):
        (n,) = struct.unpack_from("<I", buf, pos)
        pos += 4
        item = buf[pos:pos + n]
        if len(item) != n:
            raise ValueError("a PLAIN byte array runs past the end of the page")
        values.append(item)
        pos += n
    return values


def _uncompress(codec: int, data: bytes, size: int) -> bytes:
    if codec == _UNCOMPRESSED:
        return data
    out = snappy_decompress(data)
    if len(out) != size:
        raise ValueError(f"page uncompresses to {len(out)} bytes, its header says {size}")
    return out


def read_string_column(data: bytes, column: str, *, source: str = "<parquet>") -> list[str]:
    """All values of one string column of a Parquet file, in row order.

    Parameters
    ----------
    data : bytes
        The whole Parquet file.
    column : str
        Name of a top-level ``BYTE_ARRAY`` column (UTF-8 strings) holding no nulls.
    source : str
        Name of the file, for error messages.

    Returns
    -------
    list of str
        One string per row, over every row group.

    Raises
    ------
    ParquetError
        Not a Parquet file; no such column; nulls, nested columns, a codec other
        than none or Snappy, or an encoding other than PLAIN or dictionary; a
        damaged page; bytes that are not UTF-8. The message names ``source``.
    """
    if len(data) < 12 or data[:4] != _MAGIC or data[-4:] != _MAGIC:
        raise ParquetError(f"{source}: not a Parquet file (no PAR1 magic at both ends)")
    (meta_len,) = struct.unpack_from("<I", data, len(data) - 8)
    meta_start = len(data) - 8 - meta_len
    if meta_start < 4:
        raise ParquetError(f"{source}: footer length {meta_len} is larger than the file")
    try:
        meta = _Compact(data, meta_start).struct()
    except (IndexError, ValueError, struct.error) as exc:
        raise ParquetError(f"{source}: unreadable file metadata: {exc}") from exc
    schema = meta.get(2, [])
    leaves = [s for s in schema[1:] if not s.get(5)]
    names = [s.get(4, b"").decode("utf-8", "replace") for s in leaves]
    if len(leaves) != len(schema) - 1:
        raise ParquetError(f"{source}: nested columns are not supported")
    if column not in names:
        raise ParquetError(f"{source}: no column {column!r}; columns: {', '.join(names)}")
    element = leaves[names.index(column)]
    if element.get(1) != _BYTE_ARRAY:
        raise ParquetError(f"{source}: column {column!r} is not a BYTE_ARRAY column")
    max_def = 1 if element.get(3, _REQUIRED) == _OPTIONAL else 0
    if element.get(3, _REQUIRED) not in (_REQUIRED, _OPTIONAL):
        raise ParquetError(f"{source}: column {column!r} is repeated")
    strings: list[bytes] = []
    for group in meta.get(4, []):
        chunks = [c.get(3, {}) for c in group.get(1, [])]
        match = [c for c in chunks if [p.decode("utf-8", "replace") for p in c.get(3, [])]
                 == [column]]
        if len(match) != 1:
            raise ParquetError(f"{source}: a row group has no chunk of column {column!r}")
        try:
            strings.extend(_read_chunk(data, match[0], max_def, source))
        except (IndexError, ValueError, struct.error) as exc:
            raise ParquetError(f"{source}: damaged column {column!r}: {exc}") from exc
    try:
        return [s.decode("utf-8") for s in strings]
    except UnicodeDecodeError as exc:
        raise ParquetError(f"{source}: column {column!r} holds bytes that are not UTF-8: "
                           f"{exc}") from exc


def _read_chunk(data: bytes, meta: dict, max_def: int, source: str) -> list[bytes]:
    codec = meta.get(4, _UNCOMPRESSED)
    if codec not in (_UNCOMPRESSED, _SNAPPY):
        raise ParquetError(f"{source}: compression codec {codec} is not supported "
                           "(only none and Snappy)")
    total = meta.get(5, 0)
    pos = meta.get(11) or meta.get(9)
    dictionary: list[bytes] | None = None
    values: list[bytes] = []
    while len(values) < total:
        reader = _Compact(data, pos)
        header = reader.struct()
        body = data[reader.pos:reader.pos + header[3]]
        pos = reader.pos + header[3]
        kind, size = header[1], header[2]
        if kind == _DICTIONARY_PAGE:
            page = _uncompress(codec, body, size)
            dictionary = _plain_strings(page, 0, header[7][1])
            continue
        if kind == _DATA_PAGE:
            page = _uncompress(codec, body, size)
            info = header[5]
            count, encoding, at = info[1], info[2], 0
            if max_def:
                (n,) = struct.unpack_from("<I", page, 0)
                levels = _hybrid(page, 4, 4 + n, 1, count)
                at = 4 + n
                if not levels.all():
                    raise ParquetError(f"{source}: the column holds nulls")
        elif kind == _DATA_PAGE_V2:
            info = header[8]
            count, encoding = info[1], info[4]
            if info.get(2, 0):
                raise ParquetError(f"{source}: the column holds nulls")
            skip = info.get(5, 0) + info.get(6, 0)
            rest = body[skip:]
            if info.get(7, True):
                rest = _uncompress(codec, rest, size - skip)
            page, at = rest, 0
        else:
            continue  # index pages carry nothing needed here
        if encoding == _PLAIN:
            values.extend(_plain_strings(page, at, count))
        elif encoding in (_PLAIN_DICTIONARY, _RLE_DICTIONARY):
            if dictionary is None:
                raise ParquetError(f"{source}: a dictionary-encoded page comes before any "
                                   "dictionary page")
            width = page[at]
            idx = _hybrid(page, at + 1, len(page), width, count)
            if count and int(idx.max()) >= len(dictionary):
                raise ParquetError(f"{source}: dictionary index {int(idx.max())} out of range "
                                   f"({len(dictionary)} entries)")
            values.extend(dictionary[i] for i in idx.tolist())
        else:
            raise ParquetError(f"{source}: page encoding {encoding} is not supported "
                               "(only PLAIN and dictionary)")
    return values
