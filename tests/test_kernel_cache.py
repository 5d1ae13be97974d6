"""The kernels' caches follow every kernel module (chaintag._jit): the list of kernel modules is the
package's, each imports ``njit`` from ``_jit``, and a change to one module's source changes the stamp
of every chaintag kernel's cache, which numba then compiles again."""

import re
from pathlib import Path

import numpy as np
import pytest

from chaintag import _jit

SRC = Path(_jit.__file__).parent


def test_the_kernel_modules_are_those_of_the_package_and_take_njit_from_jit():
    found = sorted(str(p.relative_to(SRC)).replace("\\", "/") for p in SRC.rglob("*.py")
                   if "njit" in p.read_text(encoding="utf-8") and p.name != "_jit.py")
    assert found == sorted(_jit.KERNEL_MODULES)
    for rel in found:
        text = (SRC / rel).read_text(encoding="utf-8")
        assert re.search(r"^from \.+_jit import njit", text, re.M), rel
        assert not re.search(r"^\s*(from numba import|import numba)", text, re.M), rel


def test_the_stamp_of_a_kernel_cache_holds_the_digest_of_every_kernel_module(monkeypatch, tmp_path):
    assert _jit.INSTALLED
    from chaintag.decoding.viterbi import viterbi_kernel
    locator = viterbi_kernel._cache._impl.locator
    assert type(locator).__name__.startswith("Chaintag")
    before = locator.get_source_stamp()
    assert before[1] == _jit.kernel_digest()
    # another content of one module (here a copy of the package's files with one byte changed)
    for rel in _jit.KERNEL_MODULES:
        dst = tmp_path / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes((SRC / rel).read_bytes())
    changed = tmp_path / "decoding" / "scoring.py"
    changed.write_bytes(changed.read_bytes() + b"\n# another line\n")
    monkeypatch.setattr(_jit, "_PACKAGE", str(tmp_path))
    _jit.kernel_digest.cache_clear()
    try:
        after = _jit.kernel_digest()
        assert after != before[1]
        assert locator.get_source_stamp() == (before[0], after)
    finally:
        monkeypatch.undo()
        _jit.kernel_digest.cache_clear()
    assert _jit.kernel_digest() == before[1]


def test_a_kernel_outside_the_package_keeps_numbas_own_stamp(tmp_path, monkeypatch):
    mod = tmp_path / "outside_kernel.py"
    mod.write_text("from numba import njit\n\n@njit(cache=True)\ndef twice(x):\n    return 2 * x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import outside_kernel
    assert outside_kernel.twice(np.int64(3)) == 6
    assert not type(outside_kernel.twice._cache._impl.locator).__name__.startswith("Chaintag")


def test_numba_cache_dir_is_still_honoured(tmp_path, monkeypatch):
    from numba.core import caching, config

    from chaintag.decoding.viterbi import viterbi_kernel
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path))
    impl = type(viterbi_kernel._cache._impl)(viterbi_kernel.py_func)
    locator = impl.locator
    assert type(locator).__name__ == "ChaintagUserProvidedCacheLocator"
    assert locator.get_cache_path().startswith(str(tmp_path))
    assert locator.get_source_stamp()[1] == _jit.kernel_digest()
    monkeypatch.setattr(config, "CACHE_DIR", "")
    assert type(type(viterbi_kernel._cache._impl)(viterbi_kernel.py_func).locator).__name__ == "ChaintagInTreeCacheLocator"


def test_a_kernel_is_compiled_without_a_cache_where_none_can_be_written(monkeypatch, caplog):
    """A read-only installation with no writable home: numba refused cache=True when a kernel was defined,
    so every command failed, --version included. The kernel now compiles uncached, with one warning."""
    import logging
    from chaintag import _jit
    calls = []

    def fake_njit(*args, **kwargs):
        calls.append(kwargs.get("cache"))

        def define(func):
            if kwargs.get("cache"):
                raise RuntimeError(f"cannot cache function {func.__name__!r}: no locator available for file 'x.py'")
            return func
        return define
    monkeypatch.setattr(_jit, "_numba_njit", fake_njit)
    monkeypatch.setattr(_jit, "_WARNED", [])
    with caplog.at_level(logging.WARNING, logger="chaintag"):
        first = _jit.njit(cache=True)(lambda x: x + 1)
        second = _jit.njit(cache=True, nogil=True)(lambda x: x * 2)
    assert first(1) == 2 and second(2) == 4 and calls == [True, False, True, False]
    assert caplog.text.count("NUMBA_CACHE_DIR") == 1  # warned once


def test_other_errors_of_a_kernel_definition_are_not_hidden(monkeypatch):
    from chaintag import _jit

    def fake_njit(*args, **kwargs):
        def define(func):
            raise RuntimeError("something else")
        return define
    monkeypatch.setattr(_jit, "_numba_njit", fake_njit)
    with pytest.raises(RuntimeError, match="something else"):
        _jit.njit(cache=True)(lambda x: x)


def test_numba_s_own_refusal_to_cache_is_the_one_caught(monkeypatch):
    """numba cannot cache a function without a source file; that refusal, numba's own words, is the one the
    fallback catches (the tests above fake it)."""
    from chaintag import _jit
    monkeypatch.setattr(_jit, "_WARNED", [])  # this process's kernels stay cached
    namespace = {}
    exec("def double(x):\n    return 2 * x\n", namespace)  # no file: no cache locator
    assert _jit.njit(cache=True)(namespace["double"])(21) == 42
    assert _jit.njit(namespace["double"], cache=True)(4) == 8  # the direct form
    assert _jit.uncached()
