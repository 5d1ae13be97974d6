"""The emission sums (valued and plain: full rows four at a time), the valued Hogwild SAPO pass and
parallel valued tagging against the serial kernels and plain references."""

import numpy as np
import pytest

from chaintag import SAPO
from chaintag.decoding.scoring import NO_VALUES, emission_scores
from chaintag.decoding.scoring import emission_scores as emission_scores_valued
from chaintag.decoding.scoring import tag_corpus as tag_corpus_valued_parallel
from chaintag.decoding.scoring import tag_corpus_serial as tag_corpus_valued
from chaintag.learners.hogwild_kernels import sapo_epoch_hogwild as sapo_epoch_valued_hogwild
from chaintag.learners.hogwild_kernels import sapo_scales
from chaintag.learners.path_kernels import training_arrays
from chaintag.learners.sapo_kernels import sapo_epoch as sapo_epoch_valued

from test_hogwild import captured, synthetic

#: a fixed 5-dimensional "vector" of each of the 30 synthetic words
VECTORS = np.random.default_rng(7).normal(size=(30, 5))


def valued(sents):
    """Feature dicts: the word, and its vector as five real-valued attributes (dense: every token)."""
    return [[{"w": w, **{f"v{k}": float(VECTORS[int(w[1:]), k]) for k in range(5)}} for w, _ in s]
            for s in sents]


def _sequential_emissions(tok_ptr, ent_lo, ent_n, ent_val, t0, t1, feat_label, w, n_labels):
    """The emission sums in plain Python, one entry after the other (the order the kernel must keep)."""
    out = [[0.0] * n_labels for _ in range(t1 - t0)]
    for i in range(t0, t1):
        for k in range(tok_ptr[i], tok_ptr[i + 1]):
            for f in range(ent_lo[k], ent_lo[k] + ent_n[k]):
                out[i - t0][feat_label[f]] += float(ent_val[k]) * float(w[f])
    return np.array(out)


@pytest.mark.parametrize("values", [True, False])
def test_emission_sums_are_the_sequential_sums_bit_for_bit(values):
    """Runs of full rows (summed four at a time), single full rows and partial rows, mixed; with values
    and without (every value 1: the plain kernel)."""
    rng = np.random.default_rng(3)
    L, n_attr = 6, 40
    counts = rng.integers(1, L + 1, size=n_attr)
    counts[::3] = L  # many full rows
    feat_ptr = np.concatenate([[0], np.cumsum(counts)])
    feat_label = np.concatenate([np.sort(rng.choice(L, size=c, replace=False)) for c in counts]).astype(np.int32)
    w = rng.normal(size=feat_ptr[-1] + L * L + 2 * L)
    n_tok = 30
    sizes = rng.integers(0, 15, size=n_tok)
    tok_ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    attrs = rng.integers(0, n_attr, size=tok_ptr[-1])
    attrs[:12] = np.flatnonzero(counts == L)[:12]  # a long run of full rows at the first tokens
    ent_lo = feat_ptr[attrs].astype(np.int32)
    ent_n = counts[attrs].astype(np.int16)
    ent_val = rng.normal(size=tok_ptr[-1]) if values else np.ones(tok_ptr[-1])
    E = np.zeros((n_tok, L))
    if values:
        emission_scores_valued(tok_ptr, ent_lo, ent_n, ent_val, 0, n_tok, feat_label, w, E)
    else:
        emission_scores(tok_ptr, ent_lo, ent_n, NO_VALUES, 0, n_tok, feat_label, w, E)
    ref = _sequential_emissions(tok_ptr, ent_lo, ent_n, ent_val, 0, n_tok, feat_label, w, L)
    assert E.tobytes() == ref.tobytes()
    assert (ent_n[:12] == L).all() and np.abs(E).max() > 0


@pytest.mark.parametrize("space", ["gold", "all"])
def test_valued_hogwild_with_one_part_is_the_serial_pass(space):
    sents, labels = synthetic(60, 2)
    data, _ = captured(SAPO(epochs=1, feature_space=space, progress=False), valued(sents), labels)
    assert data.ent_val is not None and (data.ent_n == data.index.n_labels).sum() > 0
    a = data.attrs
    n_train, L = a.n_sentences, data.index.n_labels
    order = np.random.default_rng(1).permutation(n_train).astype(np.int64)
    lr0, l2 = 0.3, 2.0
    v = np.zeros(data.index.n_weights)
    sigma, step, n_upd, n_err, loss, _ = sapo_epoch_valued(
        order, training_arrays(data), v, 1.0, 5, L, 3, False, 50, np.inf, lr0, True, l2, n_train, True, False,
        np.zeros(1), np.zeros(1), 0.0, 0.0, 0)
    v1 = np.zeros(data.index.n_weights)
    gammas, sigmas = sapo_scales(len(order), 1.0, 5, lr0, True, l2, n_train, True)
    n_upd1, n_err1, loss1 = sapo_epoch_valued_hogwild(
        order, training_arrays(data), v1, gammas, sigmas, L, 3, False, 50, np.inf, 1)
    assert v.tobytes() == v1.tobytes()
    assert sigmas[-1] == sigma and step == 5 + len(order)
    assert (n_upd, n_err, loss) == (n_upd1, n_err1, loss1)
    assert n_upd > 0


def test_valued_sapo_on_two_threads_learns_as_well_and_one_thread_is_deterministic():
    sents, labels = synthetic(400, 3)
    test_s, test_l = synthetic(200, 4)
    X, Xt = valued(sents), valued(test_s)
    kw = dict(epochs=5, feature_space="all", progress=False)
    serial = SAPO(**kw).fit(X, labels)
    again = SAPO(n_jobs=1, **kw).fit(X, labels)
    assert serial.weights_.tobytes() == again.weights_.tobytes()
    par = SAPO(n_jobs=2, **kw).fit(X, labels)
    acc_s = serial.evaluate(Xt, test_l).accuracy
    acc_p = par.evaluate(Xt, test_l).accuracy
    assert acc_s > 90
    assert acc_p > acc_s - 3


def test_parallel_valued_tagging_is_the_serial_tagging():
    sents, labels = synthetic(300, 5)  # more sentences than one parallel chunk holds
    X = valued(sents)
    model = SAPO(epochs=2, progress=False).fit(X, labels)
    attrs = model.extractor_.transform(model._rows(X))
    from chaintag.decoding.scoring import feature_entries
    L = len(model.labels_)
    ent_lo, ent_n = feature_entries(attrs.attr_ids, model.feature_index_.feat_ptr, L)
    outs = []
    for kernel in (tag_corpus_valued, tag_corpus_valued_parallel):
        out = np.full(attrs.n_tokens, -1, dtype=np.int32)
        kernel(attrs.sent_ptr, attrs.tok_ptr, ent_lo, ent_n, attrs.attr_values, model.feature_index_.feat_label,
               model.weights_, L, out)
        outs.append(out)
    assert (outs[0] >= 0).all() and outs[0].tobytes() == outs[1].tobytes()
    assert attrs.n_sentences > 64
    pred = model.predict(X)  # the parallel path of predict
    assert [model.labels_.index(y) for s in pred for y in s] == outs[0].tolist()
