"""Numerical checks of the papers' theory.

* Collins (2002), Theorem 1: on data separable with margin ``delta`` by a unit
  vector ``U``, the perceptron makes at most ``R^2 / delta^2`` mistakes over
  all passes, ``R`` bounding ``||Phi(x, y) - Phi(x, z)||``.
* Collins (2002), Theorem 2: on any data, the first pass makes at most
  ``(R + D)^2 / delta^2`` mistakes, ``D = sqrt(sum_i eps_i^2)``,
  ``eps_i = max(0, delta - m_i)`` with ``m_i`` the margin of example i under U.
* The same theorems on data built so that the bounds nearly bind
  (:func:`tight_perceptron_bounds`), where a miscount would break them.
* SAPO (Sun et al., s. 3): the SAPO update ``Phi(y*) - sum_k P_k Phi(y_k)``
  approaches the CRF's stochastic gradient ``Phi(y*) - E[Phi]`` as n grows.

Synthetic data: random token sequences, one ``w[0]`` attribute per token
plus the bias, the ``all`` feature space, a random unit vector ``U`` over the
weights; gold labels are U's Viterbi outputs (Theorem 1) or those with some
labels flipped (Theorem 2). ``R`` and the margins are computed exactly by
enumerating every label sequence (short sentences, few labels).
"""

from __future__ import annotations

import itertools

import numpy as np

from chaintag.decoding.scoring import corpus_arrays, feature_entries
from chaintag.features.extract import AttributeExtractor
from chaintag.features.space import build_feature_index, remap_attributes
from chaintag.features.templates import resolve_templates
from chaintag.learners.perceptron_kernels import gold_feature_ids, perceptron_epoch


def _phi(attrs, index, s, path):
    L, F = index.n_labels, index.n_features
    v = np.zeros(index.n_weights)
    t0 = attrs.sent_ptr[s]
    for i, y in enumerate(path):
        for a in attrs.attr_ids[attrs.tok_ptr[t0 + i]:attrs.tok_ptr[t0 + i + 1]]:
            v[index.feat_ptr[a] + y] += 1  # the "all" space: labels 0..L-1 in order
        if i == 0:
            v[F + L * L + y] += 1
        else:
            v[F + path[i - 1] * L + y] += 1
    v[F + L * L + L + path[-1]] += 1
    return v


def _synthetic(n_sentences, length, n_labels, vocabulary, seed):
    rng = np.random.default_rng(seed)
    sents = [[(f"t{int(v)}",) for v in rng.integers(0, vocabulary, size=length)] for _ in range(n_sentences)]
    ex = AttributeExtractor(resolve_templates(["w[0]"], ("word",)), ("word",))
    attrs = ex.fit_transform(sents)
    dummy = np.arange(attrs.n_tokens, dtype=np.int32) % n_labels
    index, keep = build_feature_index(attrs, dummy, n_labels, ex.n_attributes, space="all")
    attrs = remap_attributes(attrs, ex.prune(keep))
    U = rng.normal(size=index.n_weights)
    U /= np.linalg.norm(U)
    paths = list(itertools.product(range(n_labels), repeat=length))
    phis = [np.array([_phi(attrs, index, s, p) for p in paths]) for s in range(n_sentences)]
    return rng, attrs, index, U, paths, phis


def _mistakes(attrs, index, gold, n_passes, until_clean):
    ent_lo, ent_n = feature_entries(attrs.attr_ids, index.feat_ptr, index.n_labels)
    gold = np.asarray(gold, dtype=np.int32)
    gf = gold_feature_ids(attrs.tok_ptr, ent_lo, ent_n, gold, index.feat_label)
    w = np.zeros(index.n_weights)
    order = np.arange(attrs.n_sentences, dtype=np.int64)
    total, per_pass, step = 0, [], 0
    for _ in range(n_passes):
        c = corpus_arrays(attrs.sent_ptr, attrs.tok_ptr, ent_lo, ent_n, None, index.feat_label, gold, gf)
        updates, _, step = perceptron_epoch(order, c, w, np.zeros(1), step, index.n_labels, False)
        per_pass.append(int(updates))
        total += int(updates)
        if until_clean and updates == 0:
            break
    return total, per_pass


def perceptron_bounds(n_sentences=300, length=4, n_labels=3, vocabulary=12, noise=0.1, seed=0) -> dict:
    """Check Collins's Theorems 1 and 2 on synthetic data; returns the figures.

    Returns
    -------
    dict
        ``theorem1``: delta, R, bound ``R^2/delta^2``, mistakes over all
        passes until a clean pass; ``theorem2``: delta, R, D, bound
        ``(R+D)^2/delta^2``, first-pass mistakes, share of flipped labels.
    """
    rng, attrs, index, U, paths, phis = _synthetic(n_sentences, length, n_labels, vocabulary, seed)
    scores = [P @ U for P in phis]
    best = [int(np.argmax(sc)) for sc in scores]
    margins = np.array([sc[b] - np.max(np.delete(sc, b)) for sc, b in zip(scores, best)])
    R = max(np.sqrt(((P - P[b]) ** 2).sum(axis=1)).max() for P, b in zip(phis, best))
    # Theorem 1: keep the examples whose margin is at least the 30th percentile
    delta = float(np.quantile(margins, 0.3))
    kept = np.flatnonzero(margins >= delta)
    sub_attrs, sub_gold = _subset(attrs, kept, [paths[best[s]] for s in kept])
    m1, per_pass = _mistakes(sub_attrs, index, sub_gold, 1000, True)
    bound1 = R ** 2 / delta ** 2
    # Theorem 2: every example, with a share of labels flipped at random
    gold2 = []
    eps = []
    for s in range(n_sentences):
        y = list(paths[best[s]])
        for i in range(length):
            if rng.random() < noise:
                y[i] = int(rng.integers(0, n_labels))
        k = paths.index(tuple(y))
        sc = scores[s]
        m = sc[k] - np.max(np.delete(sc, k))
        eps.append(max(0.0, delta - m))
        gold2.extend(y)
    D = float(np.sqrt(np.sum(np.square(eps))))
    R2 = max(np.sqrt(((P - P[paths.index(tuple(gold2[s * length:(s + 1) * length]))]) ** 2).sum(axis=1)).max()
             for s, P in enumerate(phis))
    m2, _ = _mistakes(attrs, index, gold2, 1, False)
    return {"theorem1": {"n_examples": int(len(kept)), "delta": delta, "R": float(R), "bound": float(bound1),
                         "mistakes": m1, "passes": len(per_pass), "per_pass": per_pass},
            "theorem2": {"n_examples": n_sentences, "delta": delta, "R": float(R2), "D": D,
                         "bound": float((R2 + D) ** 2 / delta ** 2), "first_pass_mistakes": m2,
                         "noise": noise},
            "setting": {"length": length, "n_labels": n_labels, "vocabulary": vocabulary, "seed": seed,
                        "n_weights": index.n_weights}}


def tight_perceptron_bounds(n_examples: int = 40, n_attrs: int = 20, n_noisy: int = 8) -> dict:
    """Collins's Theorems 1 and 2 on data built so that the bounds nearly bind.

    Every sentence has one token with ``n_attrs`` attributes of its own (no
    attribute is shared between sentences), 2 labels, gold labels alternating
    1, 0, 1, 0, ... Then ``Phi(x_i, y*) - Phi(x_i, z)`` is an own part of
    squared norm ``2 n_attrs`` plus the start/end transition part (squared
    norm 4) whose sign alternates, so no update helps a later sentence in the
    first pass: the perceptron errs on every sentence of the first pass and on
    none afterwards (``n_examples`` mistakes in all). With ``U`` the unit sum
    of the own parts, ``delta = sqrt(2 n_attrs / n_examples)`` and
    ``R^2 = 2 n_attrs + 4``: Theorem 1's bound is
    ``n_examples (1 + 2 / n_attrs)``, just above the mistakes made.
    Theorem 2 takes ``U`` from all but ``n_noisy`` sentences, whose margin is
    then 0 (so ``eps_i = delta``, ``D = delta sqrt(n_noisy)``): its bound
    ``(R + D)^2 / delta^2`` is less than twice the first pass's mistakes.

    Collins (2002), section 3, Theorems 1 and 2. ``R``, the margins and ``D``
    are computed exactly from the two label sequences of each sentence.

    Returns
    -------
    dict
        ``theorem1``: delta, R, bound, mistakes over all passes until a clean
        one, passes; ``theorem2``: delta, R, D, bound, first-pass mistakes;
        ``setting``.
    """
    from chaintag.features.extract import Attributes

    n, k = n_examples, n_attrs
    attrs = Attributes(np.arange(n + 1, dtype=np.int64), np.arange(n + 1, dtype=np.int64) * k,
                       np.arange(n * k, dtype=np.int32))
    gold = np.array([1 - (i % 2) for i in range(n)], dtype=np.int32)
    index, keep = build_feature_index(attrs, gold, 2, n * k, space="all")
    if not np.all(keep):  # pragma: no cover - the "all" space keeps every attribute
        raise AssertionError("attributes were pruned")
    F = index.n_features
    diffs = np.array([_phi(attrs, index, s, (int(gold[s]),)) - _phi(attrs, index, s, (1 - int(gold[s]),))
                      for s in range(n)])
    own = diffs.copy()
    own[:, F:] = 0.0  # the transition part is shared (with alternating signs)
    R = float(np.sqrt((diffs ** 2).sum(axis=1)).max())

    def margins(U):
        U = U / np.linalg.norm(U)
        return diffs @ U

    m1 = margins(own.sum(axis=0))
    delta1 = float(m1.min())
    mistakes, per_pass = _mistakes(attrs, index, gold, 100, True)
    clean = np.ones(n, dtype=bool)
    clean[np.linspace(0, n - 1, n_noisy).astype(int)] = False
    m2 = margins(own[clean].sum(axis=0))
    delta2 = float(m2[clean].min())
    D = float(np.sqrt(np.sum(np.maximum(0.0, delta2 - m2) ** 2)))
    first, _ = _mistakes(attrs, index, gold, 1, False)
    return {"theorem1": {"n_examples": n, "delta": delta1, "R": R, "bound": R ** 2 / delta1 ** 2,
                         "mistakes": mistakes, "passes": len(per_pass), "per_pass": per_pass},
            "theorem2": {"n_examples": n, "n_noisy": int(n_noisy), "delta": delta2, "R": R, "D": D,
                         "bound": (R + D) ** 2 / delta2 ** 2, "first_pass_mistakes": first},
            "setting": {"n_examples": n, "n_attrs": k, "n_labels": 2, "n_weights": index.n_weights}}


def _subset(attrs, keep, gold_paths):
    from chaintag.features.extract import Attributes
    sent_ptr = [0]
    tok_ptr = [0]
    ids = []
    for s in keep:
        t0, t1 = attrs.sent_ptr[s], attrs.sent_ptr[s + 1]
        for i in range(t0, t1):
            row = attrs.attr_ids[attrs.tok_ptr[i]:attrs.tok_ptr[i + 1]]
            ids.extend(row.tolist())
            tok_ptr.append(len(ids))
        sent_ptr.append(sent_ptr[-1] + (t1 - t0))
    sub = Attributes(np.array(sent_ptr, dtype=np.int64), np.array(tok_ptr, dtype=np.int64),
                     np.array(ids, dtype=np.int32))
    return sub, [lab for p in gold_paths for lab in p]


def sapo_crf_distance(train="conll2000:train", features="chunking", n_values=(1, 2, 5, 10, 20, 50, 100),
                      n_train=2000, n_eval=100, data_dir=None) -> dict:
    """Distance between SAPO's update and the CRF's stochastic gradient, as n grows.

    A CRF is trained (averaged SGD, 2 passes) on the first ``n_train``
    sentences; at its weights, for each of the first ``n_eval`` sentences,
    the CRF gradient ``Phi(y*) - E[Phi]`` and the SAPO update direction
    ``Phi(y*) - sum_k P_k Phi(y_k)`` over the top-n are compared.

    Returns
    -------
    dict
        ``n``: the values of n; ``relative_distance``: mean over sentences of
        ``||g_sapo - g_crf|| / ||g_crf||`` for each n.
    """
    from chaintag.data.datasets import load_corpus
    from chaintag.learners import make_learner
    from chaintag.learners.crf_kernels import crf_objective
    from chaintag.learners.mira_kernels import feature_difference
    from chaintag.learners.path_kernels import difference_capacity

    corpus = load_corpus(train, data_dir=data_dir)
    tokens, labels = corpus.tokens[:n_train], corpus.labels[:n_train]
    model = make_learner("crf", features=features, columns=corpus.columns, epochs=2, progress=False)
    model.fit(tokens, labels)
    fi, L = model.feature_index_, len(model.labels_)
    attrs = model.extractor_.transform(tokens[:n_eval])
    gold = np.array([model.labels_.index(lab) for ls in labels[:n_eval] for lab in ls], dtype=np.int32)
    ent_lo, ent_n = feature_entries(attrs.attr_ids, fi.feat_ptr, L)
    gf = gold_feature_ids(attrs.tok_ptr, ent_lo, ent_n, gold, fi.feat_label)
    w = model.weights_
    scratch = np.zeros(fi.n_weights)
    listed = np.zeros(fi.n_weights, dtype=np.bool_)
    c = corpus_arrays(attrs.sent_ptr, attrs.tok_ptr, ent_lo, ent_n, None, fi.feat_label, gold, gf)
    cap = difference_capacity(c)
    touched = np.zeros(cap, dtype=np.int64)
    idx = np.zeros(cap, dtype=np.int64)
    val = np.zeros(cap)
    nbests = {n: model.predict_nbest(tokens[:n_eval], k=n) for n in n_values}
    out = {n: [] for n in n_values}
    g = np.zeros(fi.n_weights)
    for s in range(n_eval):
        t0, t1 = attrs.sent_ptr[s], attrs.sent_ptr[s + 1]
        crf_objective(w, c._replace(sent_ptr=np.array([t0, t1], dtype=np.int64)), L, 0.0, g)
        g_crf = -g
        norm = np.linalg.norm(g_crf)
        for n in n_values:
            diff = g_crf.copy()
            for labs, _, p in nbests[n][s]:
                path = np.array([model.labels_.index(lab) for lab in labs], dtype=np.int32)
                k = feature_difference(c, t0, t1, path, L, scratch, listed, touched, idx, val)
                diff[idx[:k]] -= p * val[:k]
            out[n].append(np.linalg.norm(diff) / norm if norm > 0 else 0.0)
    return {"n": list(n_values), "relative_distance": [float(np.mean(out[n])) for n in n_values],
            "setting": {"train": train, "n_train": n_train, "n_eval": n_eval, "crf_epochs": 2}}


def write_report(out_dir, data_dir=None) -> str:
    """Run both checks and write ``README.md``, ``theory.json`` and ``sapo_crf_distance.png`` to ``out_dir``."""
    import json
    import os

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(out_dir, exist_ok=True)
    bounds = perceptron_bounds()
    tight = tight_perceptron_bounds()
    dist = sapo_crf_distance(data_dir=data_dir)
    with open(os.path.join(out_dir, "theory.json"), "w", encoding="utf-8") as f:
        json.dump({"perceptron_bounds": bounds, "tight_perceptron_bounds": tight, "sapo_crf_distance": dist}, f,
                  indent=1)
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    ax.plot(dist["n"], dist["relative_distance"], marker="o", label="SAPO update vs CRF gradient")
    ax.set_xscale("log")
    ax.set_xlabel("n (size of the top-n, log scale)")
    ax.set_ylabel("||g_SAPO - g_CRF|| / ||g_CRF||")
    ax.set_title("SAPO's update approaches the CRF gradient as n grows")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "sapo_crf_distance.png"), dpi=120)
    plt.close(fig)
    t1, t2 = bounds["theorem1"], bounds["theorem2"]
    u1, u2 = tight["theorem1"], tight["theorem2"]
    rows = "\n".join(f"| {n} | {d:.3f} |" for n, d in zip(dist["n"], dist["relative_distance"]))
    text = f"""# The theory, checked numerically

Generated by `python -m chaintag_research.theory docs/results/theory`.

## Collins (2002), Theorems 1 and 2 (synthetic data)

Random sentences of {bounds['setting']['length']} tokens over {bounds['setting']['vocabulary']} symbols,
{bounds['setting']['n_labels']} labels, one attribute per token plus the bias; weights for every
attribute-label pair and every label transition, start and end ({bounds['setting']['n_weights']} weights in
all); a random unit vector U labels them (Viterbi). R and the
margins are exact (every label sequence enumerated).

| check | examples | delta | R | D | bound | observed mistakes |
|---|---:|---:|---:|---:|---:|---:|
| Theorem 1: all passes until a clean one, separable subset (margin >= delta) | {t1['n_examples']} | {t1['delta']:.4f} | {t1['R']:.3f} | - | {t1['bound']:.0f} | {t1['mistakes']} (in {t1['passes']} passes) |
| Theorem 2: first pass, {int(t2['noise'] * 100)}% of labels flipped | {t2['n_examples']} | {t2['delta']:.4f} | {t2['R']:.3f} | {t2['D']:.3f} | {t2['bound']:.0f} | {t2['first_pass_mistakes']} |

Both bounds hold, by a wide margin (they are worst-case bounds), so these random data could not
catch a wrong count. The data below are built so that the bounds nearly bind: {tight['setting']['n_examples']}
one-token sentences, each with {tight['setting']['n_attrs']} attributes of its own, 2 labels, gold labels
alternating (see `tight_perceptron_bounds`). No first-pass update helps a later sentence, so the
perceptron errs on every sentence once and then never; Theorem 2's U leaves out
{u2['n_noisy']} sentences, whose margin is then 0.

| check (tight data) | examples | delta | R | D | bound | observed mistakes | mistakes / bound |
|---|---:|---:|---:|---:|---:|---:|---:|
| Theorem 1: all passes until a clean one | {u1['n_examples']} | {u1['delta']:.4f} | {u1['R']:.3f} | - | {u1['bound']:.1f} | {u1['mistakes']} (in {u1['passes']} passes) | {u1['mistakes'] / u1['bound']:.2f} |
| Theorem 2: first pass | {u2['n_examples']} | {u2['delta']:.4f} | {u2['R']:.3f} | {u2['D']:.3f} | {u2['bound']:.1f} | {u2['first_pass_mistakes']} | {u2['first_pass_mistakes'] / u2['bound']:.2f} |

The tests check these counts exactly and check that the bounds hold with little room, so a
miscounted mistake or a wrong R, delta or D would fail them.

## SAPO's update approaches the CRF's gradient (CoNLL-2000)

At the weights of a CRF trained for 2 passes on the first {dist['setting']['n_train']} training sentences,
mean over the first {dist['setting']['n_eval']} sentences of the relative distance between SAPO's update
direction over the top-n and the CRF's stochastic gradient:

| n | relative distance |
|---:|---:|
{rows}

![distance](sapo_crf_distance.png)
"""
    with open(os.path.join(out_dir, "README.md"), "w", encoding="utf-8") as f:
        f.write(text)
    return text


if __name__ == "__main__":  # pragma: no cover
    import sys
    print(write_report(sys.argv[1] if len(sys.argv) > 1 else "results/theory"))
