"""Optional dependencies: a missing scikit-learn, SciPy or matplotlib names the extra that installs it.

Each test makes a module unimportable (``sys.modules[name] = None``, its loaded submodules too) for
the test's duration, then asks for the part of chaintag that needs it.
"""

import sys

import numpy as np
import pytest

from chaintag.lazy import MissingExtraError, require

SENTS = [["the", "dog", "runs"], ["a", "cat", "sleeps"], ["the", "cat", "runs"]]
TAGS = [["D", "N", "V"], ["D", "N", "V"], ["D", "N", "V"]]


def _block(monkeypatch, top):
    """Make ``top`` and its submodules unimportable until the test ends."""
    for name in [m for m in sys.modules if m == top or m.startswith(top + ".")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, top, None)


def test_require_returns_the_module_and_names_the_extra_when_it_is_missing(monkeypatch):
    assert require("json", "maxent", "x").dumps([1]) == "[1]"
    _block(monkeypatch, "sklearn")
    with pytest.raises(MissingExtraError) as info:
        require("sklearn.linear_model", "maxent", "the maxent tagger")
    assert str(info.value) == ("the maxent tagger needs scikit-learn, which is not installed: "
                               "pip install 'chaintag[maxent]'")
    assert isinstance(info.value, ImportError)  # callers that catch ImportError still do


def test_an_import_error_inside_an_installed_module_passes_through(tmp_path, monkeypatch):
    (tmp_path / "half_installed_pkg.py").write_text("import no_such_module_of_chaintag_tests\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ImportError) as info:
        require("half_installed_pkg", "maxent", "x")
    assert not isinstance(info.value, MissingExtraError)
    assert info.value.name == "no_such_module_of_chaintag_tests"


def test_maxent_without_sklearn_names_the_maxent_extra(monkeypatch):
    from chaintag import make_learner
    _block(monkeypatch, "sklearn")
    with pytest.raises(MissingExtraError, match=r"pip install 'chaintag\[maxent\]'"):
        make_learner("maxent", features="pos").fit(SENTS, TAGS)


def test_maxent_design_matrix_without_scipy_names_the_maxent_extra(monkeypatch):
    from chaintag.learners.maxent import design_matrix
    _block(monkeypatch, "scipy")
    with pytest.raises(MissingExtraError, match=r"needs SciPy, which is not installed: "
                                                r"pip install 'chaintag\[maxent\]'"):
        design_matrix(np.array([0, 1]), np.array([0]), np.array([0]), 1, 1)


def test_crf_lbfgs_without_scipy_names_the_lbfgs_extra(monkeypatch):
    from chaintag import make_learner
    learner = make_learner("crf-lbfgs", features="pos", epochs=2)
    _block(monkeypatch, "scipy")
    with pytest.raises(MissingExtraError, match=r"crf-lbfgs \(L-BFGS\) needs SciPy, which is not installed: "
                                                r"pip install 'chaintag\[lbfgs\]'"):
        learner.fit(SENTS, TAGS)


def test_word_cluster_hierarchy_without_scipy_names_the_clusters_extra(monkeypatch):
    from chaintag.resources.induce import hierarchy_paths
    _block(monkeypatch, "scipy")
    with pytest.raises(MissingExtraError, match=r"pip install 'chaintag\[clusters\]'"):
        hierarchy_paths(np.eye(3))


def test_kmeans_of_word_vectors_without_sklearn_names_the_clusters_extra(monkeypatch):
    from chaintag.resources.kmeans import kmeans_ids
    _block(monkeypatch, "sklearn")
    with pytest.raises(MissingExtraError, match=r"k-means clusters of word vectors needs scikit-learn, which is "
                                                r"not installed: pip install 'chaintag\[clusters\]'"):
        kmeans_ids(np.eye(4), 2)


def test_the_cli_exits_2_with_the_extra_when_maxent_lacks_sklearn(tmp_path, monkeypatch, capsys):
    from chaintag.cli.main import main
    train = tmp_path / "train.txt"
    train.write_text("".join("".join(f"{w} {t}\n" for w, t in zip(s, ls)) + "\n" for s, ls in zip(SENTS, TAGS)))
    _block(monkeypatch, "sklearn")
    code = main(["train", "-a", "maxent", "--train", str(train), "--model", str(tmp_path / "m.npz"), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err[-1] == ("chaintag train: error: the maxent tagger needs scikit-learn, which is not installed: "
                       "pip install 'chaintag[maxent]'")


def test_learners_need_no_sklearn_until_sklearn_asks_for_their_tags(monkeypatch):
    from chaintag import make_learner
    _block(monkeypatch, "sklearn")
    model = make_learner("perceptron", features="pos", epochs=3).fit(SENTS, TAGS)
    assert model.predict([["the", "dog", "sleeps"]]) == [["D", "N", "V"]]
    assert model.get_params()["epochs"] == 3
    with pytest.raises(MissingExtraError, match=r"scikit-learn's estimator tags needs scikit-learn"):
        model.__sklearn_tags__()


def test_the_estimator_tags_with_sklearn():
    pytest.importorskip("sklearn")
    from chaintag import make_learner
    tags = make_learner("perceptron").__sklearn_tags__()
    assert tags.input_tags.string and not tags.input_tags.two_d_array and tags.target_tags.required


def test_one_error_class_for_every_missing_extra(monkeypatch):
    """Found by a user of the core install: scikit-learn's, PyTorch's and Dask's absence raised three
    different classes (two of them named MissingExtraError, one an InputError), none exported."""
    import sys

    import chaintag
    from chaintag.distributed.cluster import _import_distributed
    from chaintag.learners.neural import _torch
    assert chaintag.MissingExtraError is MissingExtraError is _torch.MissingExtraError
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if Dask were not installed
    with pytest.raises(chaintag.MissingExtraError, match=r"pip install 'chaintag\[dist\]'"):
        _import_distributed()
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(chaintag.MissingExtraError, match=r"pip install 'chaintag\[neural\]'"):
        _torch.require_torch()


def test_kmeans_of_vectors_without_scikit_learn_is_refused_before_the_file_is_read(tmp_path, monkeypatch):
    """The core install read and cached a whole GloVe file (80 MB written) before failing on the
    missing scikit-learn."""
    import sys

    from chaintag.features import spec as spec_module
    from chaintag.resources import files as files_module
    vectors = tmp_path / "vec.txt"
    vectors.write_text("the 1 0\ndog 0 1\n")
    read = []
    monkeypatch.setattr(files_module, "read_vectors", lambda *a, **k: read.append(a))
    monkeypatch.setattr(spec_module, "_CACHE", {})
    monkeypatch.setitem(sys.modules, "sklearn", None)
    monkeypatch.setitem(sys.modules, "sklearn.cluster", None)
    for features in (f"w[0];km4(w[0]);@clusters={vectors}", f"pos+km;@clusters={vectors}"):  # a preset's too
        with pytest.raises(MissingExtraError, match=r"pip install 'chaintag\[clusters\]'"):
            spec_module.resolve_resources(features)
    assert read == []
