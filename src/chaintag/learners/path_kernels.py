"""The features of label paths, shared by the learners' compiled steps.

A linear-chain model scores ``w . Phi(x, y)``; the perceptron (Collins 2002,
s. 2), MIRA and N-best MIRA (Crammer & Singer 2003; McDonald et al. 2005)
update along ``Phi(x, y*) - Phi(x, z)`` for a gold sequence ``y*`` and a
predicted one ``z``. :func:`path_difference` lists that vector's entries for
one sentence, in one fixed order, and :func:`add_path_difference` adds a
multiple of it into the weights (with the lazy-averaging sums), so every
learner enumerates the features of a path with the same code, as one
feature enumeration serves every trainer of CRFsuite. Attributes with values
(:class:`chaintag.decoding.scoring.CorpusArrays`, ``ent_val``) contribute
their value, 0/1 attributes 1.

The CRF's gradient adds the start, transition and end features of the gold
sequence with :func:`add_path_chain` (its emission part is merged with the
marginals, feature by feature).

Only the positions and transitions where the two sequences differ are
listed (the rest cancel exactly). At such a token the entries come in their
order, each with ``+v`` for (attribute, gold label) then ``-v`` for
(attribute, predicted label); then the start, transition and end weights
(``+1`` / ``-1``).
"""

from __future__ import annotations

import numpy as np
from .._jit import njit

from ..decoding.scoring import corpus_arrays, entry_value, find_feature


def training_arrays(data, gold_feat=None):
    """The :class:`chaintag.decoding.scoring.CorpusArrays` of a learner's training data.

    Parameters
    ----------
    data : chaintag.learners.base.TrainData
        Its attributes (``attrs``), feature entries, values (None for 0/1 attributes), gold labels
        and feature index.
    gold_feat : integer array, optional
        From :func:`chaintag.learners.perceptron_kernels.gold_feature_ids` (for the learners that
        read it).
    """
    a = data.attrs
    return corpus_arrays(a.sent_ptr, a.tok_ptr, data.ent_lo, data.ent_n, data.ent_val, data.index.feat_label,
                         data.gold, gold_feat)


@njit(cache=True)
def difference_capacity(c):
    """Room for the entries :func:`path_difference` lists for any sentence of the corpus ``c``:
    two per (token, attribute) entry and per token, and four for the start and end."""
    best_entries = 0
    best_tokens = 0
    sent_ptr = c.sent_ptr
    for s in range(sent_ptr.shape[0] - 1):
        n = c.tok_ptr[sent_ptr[s + 1]] - c.tok_ptr[sent_ptr[s]]
        if n > best_entries:
            best_entries = n
        if sent_ptr[s + 1] - sent_ptr[s] > best_tokens:
            best_tokens = sent_ptr[s + 1] - sent_ptr[s]
    return 2 * best_entries + 2 * best_tokens + 4


@njit(cache=True)
def difference_work(c):
    """Work arrays ``(idx, val)`` of :func:`path_difference` for the corpus ``c`` (int64 and float64,
    shape (:func:`difference_capacity`,)); allocated in a call, so that a parallel loop gives each
    thread its own."""
    cap = difference_capacity(c)
    return np.zeros(cap, dtype=np.int64), np.zeros(cap)


@njit(cache=True, inline="always")
def _difference_body(c, t0, t1, path, n_labels, idx, val, valued):
    n_features = c.feat_label.shape[0]
    t_off = n_features
    s_off = t_off + n_labels * n_labels
    e_off = s_off + n_labels
    gold = c.gold
    n = 0
    T = t1 - t0
    for i in range(T):
        y = gold[t0 + i]
        z = path[i]
        if y != z:
            for k in range(c.tok_ptr[t0 + i], c.tok_ptr[t0 + i + 1]):
                x = entry_value(c.ent_val, valued, k)
                fg = c.gold_feat[k]
                if fg >= 0:
                    idx[n] = fg
                    val[n] = x
                    n += 1
                fz = find_feature(c.feat_label, c.ent_lo[k], c.ent_n[k], z)
                if fz >= 0:
                    idx[n] = fz
                    val[n] = -x
                    n += 1
        if i == 0:
            if y != z:
                idx[n] = s_off + y
                val[n] = 1.0
                idx[n + 1] = s_off + z
                val[n + 1] = -1.0
                n += 2
        else:
            yp = gold[t0 + i - 1]
            zp = path[i - 1]
            if yp != zp or y != z:
                idx[n] = t_off + yp * n_labels + y
                val[n] = 1.0
                idx[n + 1] = t_off + zp * n_labels + z
                val[n + 1] = -1.0
                n += 2
    y = gold[t1 - 1]
    z = path[T - 1]
    if y != z:
        idx[n] = e_off + y
        val[n] = 1.0
        idx[n + 1] = e_off + z
        val[n + 1] = -1.0
        n += 2
    return n


@njit(cache=True)
def path_difference(c, t0, t1, path, n_labels, idx, val):
    """The entries of ``Phi(x, y*) - Phi(x, z)`` for the sentence ``t0:t1``; returns their number.

    Parameters
    ----------
    c : CorpusArrays
        With ``gold`` and ``gold_feat`` (:func:`chaintag.learners.perceptron_kernels.gold_feature_ids`).
    t0, t1 : int
        Token range of the sentence (``t1 > t0``).
    path : int32 array, shape (>= t1 - t0,)
        ``z``, indexed from 0.
    n_labels : int
    idx : int64 array, shape (>= :func:`difference_capacity`,)
        Receives the weight indices, in the order of the module's description (an index may recur).
    val : float64 array, same shape
        Receives their values (``+v`` / ``-v``, ``+1`` / ``-1``).

    Returns
    -------
    int
        ``n``: the entries are ``idx[:n]``, ``val[:n]``.
    """
    if c.ent_val.shape[0] == 0:
        return _difference_body(c, t0, t1, path, n_labels, idx, val, False)
    return _difference_body(c, t0, t1, path, n_labels, idx, val, True)


@njit(cache=True)
def add_path_difference(c, t0, t1, path, n_labels, scale, w, u, step, averaged, idx, val):
    """``w += scale * (Phi(x, y*) - Phi(x, z))`` for the sentence ``t0:t1``, and with ``averaged``
    ``u += step * (the same change)`` (the perceptron's lazy averaging, Collins 2002, s. 2.5).

    Arguments as :func:`path_difference` (``idx`` and ``val`` are its work arrays). The entries are
    added in the order :func:`path_difference` lists them; ``scale`` negative subtracts. Returns the
    number of entries.
    """
    n = path_difference(c, t0, t1, path, n_labels, idx, val)
    for j in range(n):
        f = idx[j]
        d = scale * val[j]
        w[f] += d
        if averaged:
            u[f] += step * d
    return n


@njit(cache=True, inline="always")
def add_path_chain(labels, t0, T, n_features, n_labels, scale, target, u, avg_coef, averaged):
    """``target += scale * `` the start, transition and end features of the label path ``labels[t0:t0+T]``
    (``T >= 1``), and with ``averaged`` ``u += avg_coef * (the same change)``.

    The weights follow the flat layout of :func:`chaintag.decoding.scoring.weight_views` (transitions
    from ``n_features``, then start, then end); a transition met at several positions receives its
    additions in position order.
    """
    t_off = n_features
    s_off = t_off + n_labels * n_labels
    e_off = s_off + n_labels
    for f in (s_off + labels[t0], e_off + labels[t0 + T - 1]):
        target[f] += scale
        if averaged:
            u[f] += avg_coef * scale
    for i in range(1, T):
        f = t_off + labels[t0 + i - 1] * n_labels + labels[t0 + i]
        target[f] += scale
        if averaged:
            u[f] += avg_coef * scale
