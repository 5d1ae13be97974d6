"""Model and checkpoint files: every damaged byte is refused with one line naming the file.

A tiny model is saved, then one bit of it is flipped at every byte offset
(every ``.npy`` header, every zip local header, the central directory, the
end record and the checksum) and at random offsets in the array data; each
damaged copy must raise ``ModelFormatError`` (never another exception, never
a silent load), and the CLI must answer with exit code 2 and one stderr line.
"""

import io
import json
import random
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

import chaintag
from chaintag import ModelFormatError, StructuredPerceptron
from chaintag.io.model_file import FORMAT_VERSION, load_model, save_model

from toy_corpus import LABELS, SENTS  # noqa: E402

FEATURES = ["w[0]", "pos[0]", "pos[-1]|pos[0]"]


def _model(tmp_path) -> Path:
    path = tmp_path / "tiny.npz"
    StructuredPerceptron(features=FEATURES, columns=("word", "pos"), epochs=2, progress=False) \
        .fit(SENTS, LABELS).save(path)
    return path


def _checkpoint(tmp_path) -> Path:
    ck = tmp_path / "ck"
    StructuredPerceptron(features=FEATURES, columns=("word", "pos"), epochs=2, progress=False) \
        .fit(SENTS, LABELS, dev=(SENTS, LABELS), checkpoint_dir=ck)
    return ck / "checkpoint.npz"


def _regions(raw: bytes) -> dict[str, list[int]]:
    """Byte offsets of each region of a model file: npy headers, zip local headers, data, directory."""
    zf = zipfile.ZipFile(io.BytesIO(raw))
    out = {"npy headers": [], "local headers": [], "data": [], "central directory": [], "end": []}
    for info in zf.infolist():
        start = info.header_offset
        n_name, n_extra = int.from_bytes(raw[start + 26:start + 28], "little"), \
            int.from_bytes(raw[start + 28:start + 30], "little")
        body = start + 30 + n_name + n_extra
        out["local headers"] += range(start, body)
        header_len = int.from_bytes(raw[body + 8:body + 10], "little")  # npy format 1.0
        out["npy headers"] += range(body, body + 10 + header_len)
        out["data"] += range(body + 10 + header_len, body + info.file_size)
    cd = raw.find(b"PK\x01\x02")
    eocd = raw.rfind(b"PK\x05\x06")
    out["central directory"] = list(range(cd, eocd))
    out["end"] = list(range(eocd, len(raw)))  # end record, the comment, the checksum
    return out


def _assert_refused(path: Path) -> str:
    with pytest.raises(ModelFormatError) as info:
        load_model(path)
    message = str(info.value)
    assert "\n" not in message and str(path) in message
    return message


def _flip_sweep(src: Path, offsets, bad: Path) -> int:
    raw = src.read_bytes()
    n = 0
    for pos in offsets:
        b = bytearray(raw)
        b[pos] ^= 1 << (pos % 8)  # every bit position across the sweep
        bad.write_bytes(b)
        _assert_refused(bad)
        n += 1
    return n


def test_regions_cover_the_whole_file(tmp_path):
    raw = _model(tmp_path).read_bytes()
    regions = _regions(raw)
    covered = sorted(set().union(*map(set, regions.values())))
    assert covered == list(range(len(raw)))
    assert all(regions.values())


@pytest.mark.parametrize("region", ["npy headers", "local headers", "central directory", "end"])
def test_every_byte_of_the_structure_flipped_is_refused(region, tmp_path):
    path = _model(tmp_path)
    offsets = _regions(path.read_bytes())[region]
    assert _flip_sweep(path, offsets, tmp_path / "bad.npz") == len(offsets)


def test_random_flips_in_the_data_are_refused(tmp_path):
    path = _model(tmp_path)
    data = _regions(path.read_bytes())["data"]
    rng = random.Random(17)
    _flip_sweep(path, rng.sample(data, 300), tmp_path / "bad.npz")


def test_every_byte_of_a_checkpoint_flipped_is_refused(tmp_path):
    path = _checkpoint(tmp_path)
    raw = path.read_bytes()
    regions = _regions(raw)
    rng = random.Random(3)
    offsets = [p for name, ps in regions.items() if name != "data" for p in ps] + rng.sample(regions["data"], 200)
    _flip_sweep(path, offsets, tmp_path / "bad.npz")
    # resuming from a damaged checkpoint is refused the same way
    b = bytearray(raw)
    b[regions["data"][len(regions["data"]) // 2]] ^= 0x10
    path.write_bytes(b)
    with pytest.raises(ModelFormatError, match="checkpoint.npz"):
        StructuredPerceptron(features=FEATURES, columns=("word", "pos"), epochs=3, progress=False) \
            .fit(SENTS, LABELS, dev=(SENTS, LABELS), checkpoint_dir=path.parent, resume=True)


def test_truncations_are_refused(tmp_path):
    path = _model(tmp_path)
    raw = path.read_bytes()
    bad = tmp_path / "cut.npz"
    for n in list(range(0, len(raw), 97)) + [len(raw) - 1]:
        bad.write_bytes(raw[:n])
        _assert_refused(bad)


def test_header_length_flip_is_refused_not_shifted(tmp_path):
    """Case 19: a flip in the weights' npy header length field used to load shifted weights."""
    path = _model(tmp_path)
    raw = path.read_bytes()
    info = zipfile.ZipFile(path).getinfo("weights.npy")
    h = raw[info.header_offset:info.header_offset + 30]
    pos = info.header_offset + 30 + int.from_bytes(h[26:28], "little") + int.from_bytes(h[28:30], "little") + 8
    b = bytearray(raw)
    b[pos] ^= 0x10
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b)
    assert "checksum" in _assert_refused(bad)


def test_swapped_arrays_are_refused_even_with_a_valid_file_checksum(tmp_path):
    """The array digests catch arrays that do not belong to the metadata, whatever the file checksum."""
    path = _model(tmp_path)
    meta, arrays = load_model(path)
    arrays["weights"] = arrays["weights"] + 1.0
    save_model(tmp_path / "ok.npz", meta, arrays)  # a well-formed file with its own digests
    zf = zipfile.ZipFile(tmp_path / "ok.npz")
    orig = zipfile.ZipFile(path)
    # graft the original metadata (and its digests) onto the changed weights, fixing the file checksum
    import hashlib
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as out:
        for name in zf.namelist():
            out.writestr(name, (orig if name == "__meta__.npy" else zf).read(name))
        out.comment = b"chaintag-sha256:" + b"0" * 64
    body = buf.getvalue()[:-80]
    grafted = tmp_path / "grafted.npz"
    grafted.write_bytes(body + b"chaintag-sha256:" + hashlib.sha256(body).hexdigest().encode())
    assert "'weights' does not match its SHA-256" in _assert_refused(grafted)


def test_version_1_files_still_load_and_are_crc_checked(tmp_path):
    """Files of format version 1 (no digests) load; a flipped data byte is still caught (CRC-32)."""
    path = _model(tmp_path)
    meta, arrays = load_model(path)
    meta["format_version"] = 1
    old = tmp_path / "v1.npz"
    with zipfile.ZipFile(old, "w") as zf:
        for name, arr in [("__meta__", np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))] + \
                sorted(arrays.items()):
            b = io.BytesIO()
            np.save(b, arr)
            zf.writestr(name + ".npy", b.getvalue())
    loaded = chaintag.load(old)
    assert loaded.predict(SENTS) == chaintag.load(path).predict(SENTS)
    raw = old.read_bytes()
    data = _regions(raw)["data"]
    for pos in random.Random(5).sample(data, 50):
        b = bytearray(raw)
        b[pos] ^= 0x10
        (tmp_path / "bad.npz").write_bytes(b)
        _assert_refused(tmp_path / "bad.npz")
    # a version-2 file whose checksum trailer is gone is refused, not read as version 1
    meta["format_version"] = FORMAT_VERSION
    with zipfile.ZipFile(tmp_path / "v2bare.npz", "w") as zf:
        zf.writestr("__meta__.npy", _npy(np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)))
    assert "checksum is missing" in _assert_refused(tmp_path / "v2bare.npz")


def _npy(arr) -> bytes:
    b = io.BytesIO()
    np.save(b, arr)
    return b.getvalue()


def test_cli_refuses_damaged_models_with_one_line(tmp_path, capsys):
    from chaintag.cli.main import main
    path = _model(tmp_path)
    raw = path.read_bytes()
    test = tmp_path / "test.txt"
    test.write_text("\n\n".join("\n".join(f"{w} {p} {lab}" for (w, p), lab in zip(s, ls))
                                for s, ls in zip(SENTS, LABELS)) + "\n")
    regions = _regions(raw)
    rng = random.Random(1)
    for region, offsets in regions.items():
        for pos in rng.sample(offsets, min(5, len(offsets))):
            b = bytearray(raw)
            b[pos] ^= 0x10
            bad = tmp_path / "bad.npz"
            bad.write_bytes(b)
            for argv in (["eval", "--model", str(bad), "--test", str(test)],
                         ["tag", "--model", str(bad), str(test)]):
                capsys.readouterr()
                assert main(argv + ["--quiet"]) == 2, (region, pos)
                err = capsys.readouterr().err
                assert err.count("\n") == 1 and str(bad) in err and "Traceback" not in err


def test_case_19_script_through_the_cli(tmp_path):
    """The reported case: the flip script's output is refused by `chaintag eval` (exit 2, one line)."""
    import os
    cases = os.environ.get("CHAINTAG_CASES") or Path(__file__).resolve().parents[1].parent / "shared" / "cases"
    script = Path(cases) / "19_flip_byte.py"
    if not script.exists():
        pytest.skip(f"no reported cases folder ({script.parent})")
    path = _model(tmp_path)
    test = tmp_path / "test.txt"
    test.write_text("\n\n".join("\n".join(f"{w} {p} {lab}" for (w, p), lab in zip(s, ls))
                                for s, ls in zip(SENTS, LABELS)) + "\n")
    for entry, off in [("weights.npy", 8), ("feat_ptr.npy", 60), ("CD", 10)]:
        bad = tmp_path / "bad.npz"
        subprocess.run([sys.executable, str(script), str(path), str(bad), entry, str(off)], check=True,
                       capture_output=True)
        r = subprocess.run([sys.executable, "-m", "chaintag.cli.main", "eval", "--model", str(bad),
                            "--test", str(test), "-q"], capture_output=True, text=True)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and "bad.npz" in r.stderr, r.stderr


def test_plot_names_a_damaged_model_as_a_model(tmp_path, capsys):
    """A model whose zip end record is damaged is still read as a model (and refused as one), not as
    a history file of JSON lines."""
    from chaintag.cli.main import main
    raw = bytearray(_model(tmp_path).read_bytes())
    raw[raw.rfind(b"PK\x05\x06")] ^= 0x10
    bad = tmp_path / "bad.npz"
    bad.write_bytes(raw)
    assert main(["plot", str(bad), "-o", str(tmp_path / "c.png")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "checksum does not match" in err and str(bad) in err
