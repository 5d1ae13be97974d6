"""Feature-dict tokens (sklearn-crfsuite style input) and scikit-learn interoperability."""

import numpy as np
import pytest

import chaintag
from chaintag.errors import InputError
from chaintag.learners import LEARNERS
from chaintag.learners.sklearn_compat import sequence_scorer
from toy_corpus import LABELS, SENTS


def as_dicts(sents, extra=None):
    out = []
    for s in sents:
        toks = []
        for i, (w, p) in enumerate(s):
            d = {"bias": 1.0, "word": w, "pos": p}
            if extra:
                d.update(extra(s, i))
            toks.append(d)
        out.append(toks)
    return out


def _weights_by_name(model, rename):
    out = {}
    ptr = model.feature_index_.feat_ptr
    for a in range(len(ptr) - 1):
        name = rename(model.extractor_.attribute_name(a))
        for f in range(ptr[a], ptr[a + 1]):
            out[(name, model.labels_[model.feature_index_.feat_label[f]])] = model.weights_[f]
    return out


@pytest.mark.parametrize("name", ["perceptron", "mira", "crf-lbfgs"])
def test_dicts_learn_the_same_model_as_templates(name):
    """{"bias": 1, "w": word, "p": pos} carries the attributes of the templates w[0];pos[0] (plus their bias)."""
    kw = {"epochs": 3} if name != "crf-lbfgs" else {}
    tmpl = chaintag.make_learner(name, features="w[0];pos[0]", columns=("word", "pos"), **kw).fit(SENTS, LABELS)
    dic = chaintag.make_learner(name, **kw).fit(as_dicts(SENTS), LABELS)
    a = _weights_by_name(tmpl, lambda n: n.replace("[0]", ""))
    b = _weights_by_name(dic, lambda n: n)
    assert set(a) == set(b) and len(a) > 10
    np.testing.assert_allclose([b[k] for k in a], [a[k] for k in a], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(dic.transitions_.values, tmpl.transitions_.values, rtol=1e-9, atol=1e-9)
    assert dic.predict(as_dicts(SENTS)) == tmpl.predict(SENTS)


def test_value_rules():
    # True and 1 are the same present attribute; False, 0 and a missing key are the same absence
    X1 = as_dicts(SENTS, lambda s, i: {"first": i == 0, "one": 1})
    X2 = as_dicts(SENTS, lambda s, i: {"first": 1.0, "one": True} if i == 0 else {"first": 0, "one": 1.0})
    m1 = chaintag.StructuredPerceptron(epochs=3).fit(X1, LABELS)
    m2 = chaintag.StructuredPerceptron(epochs=3).fit(X2, LABELS)
    assert m1.extractor_.names == m2.extractor_.names
    np.testing.assert_array_equal(m1.weights_, m2.weights_)
    assert "first" in m1.extractor_.names and "word=dog" in m1.extractor_.names
    assert not any(n.startswith("first=") for n in m1.extractor_.names)


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_real_values_are_refused_not_misread(name):
    X = as_dicts(SENTS, lambda s, i: {"len": len(s[i][0]) / 3})
    if name in ("bilstm", "bilstm-crf"):
        pytest.importorskip("torch")
    learner = chaintag.make_learner(name)
    if name in ("perceptron2", "bilstm", "bilstm-crf"):  # no feature-dict input at all
        with pytest.raises(InputError, match="feature dict"):
            learner.fit(X, LABELS)
    else:
        with pytest.raises(InputError, match="real value"):
            learner.fit(X, LABELS)


def test_dict_and_column_tokens_are_never_mixed_up(tmp_path):
    cols = chaintag.StructuredPerceptron(features="w[0]", epochs=1).fit(SENTS, LABELS)
    with pytest.raises(InputError, match="feature dict"):
        cols.predict(as_dicts(SENTS))
    dic = chaintag.StructuredPerceptron(epochs=2).fit(as_dicts(SENTS), LABELS)
    with pytest.raises(InputError, match="expected a feature dict"):
        dic.predict(SENTS)
    with pytest.raises(InputError, match="real value"):
        dic.predict(as_dicts(SENTS, lambda s, i: {"x": 0.5}))
    with pytest.raises(InputError, match="type list"):
        chaintag.StructuredPerceptron().fit([[{"x": [1]}]], [["A"]])
    path = tmp_path / "d.npz"
    dic.save(path)
    again = chaintag.load(path)
    assert again.predict(as_dicts(SENTS)) == dic.predict(as_dicts(SENTS))
    np.testing.assert_array_equal(again.weights_, dic.weights_)
    # constrained decoding and n-best work on dict tokens too
    assert again.predict_nbest(as_dicts(SENTS[:1]), 2, constrain=True)[0][0][0] == \
        dic.predict(as_dicts(SENTS[:1]), constrain=True)[0]


def test_sklearn_clone_grid_search_and_cross_val_score():
    from sklearn.base import clone
    from sklearn.model_selection import GridSearchCV, KFold, cross_val_score

    X, y = as_dicts(SENTS) * 2, LABELS * 2
    est = chaintag.StructuredPerceptron(epochs=2, random_state=3)
    c = clone(est)
    assert c is not est and c.get_params() == est.get_params()
    scorer = sequence_scorer("f1")
    cv = KFold(2)
    got = cross_val_score(est, X, y, cv=cv, scoring=scorer)
    want = []
    for tr, te in cv.split(X):
        m = clone(est).fit([X[i] for i in tr], [y[i] for i in tr])
        want.append(m.evaluate([X[i] for i in te], [y[i] for i in te]).f1)
    np.testing.assert_allclose(got, want)
    grid = GridSearchCV(est, {"epochs": [1, 4]}, cv=cv, scoring=scorer).fit(X, y)
    assert grid.best_params_["epochs"] in (1, 4)
    assert grid.best_estimator_.predict(X[:1])[0] and len(grid.cv_results_["mean_test_score"]) == 2
    with pytest.raises(ValueError):
        sequence_scorer("bleu")
