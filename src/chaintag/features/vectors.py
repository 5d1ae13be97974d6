"""Word vectors as real-valued attributes of column-file templates (``vec(w[0])``).

A template ``vec(x)`` (one atom, ``vec`` outermost) gives, for a token whose
atom value has a vector ``v`` in the word resource (``--clusters FILE`` with
a word2vec / GloVe / fastText text file), the D attributes
``vec(x)[0] .. vec(x)[D-1]`` with the real values ``c * v[k]``: the
emission score of label ``l`` gains ``sum_k c v[k] W[a_k, l]`` (Collobert et
al. 2011 and Turian et al. 2010, s. 7.2: embeddings as real-valued
features of a linear model). The factor ``c`` makes the standard deviation
of all the components of the resource's vectors equal ``sigma``
(``@vecscale=SIGMA``, default 0.1, Turian et al.'s choice; ``@vecscale=raw``
gives ``c = 1``). With ``@vecdim=D`` the vectors are first replaced by
their coordinates on their first D principal components (Turian et al.
used 25-200 dimensions; fewer dimensions make fewer entries per token).
A value whose word has no vector (or an all-zero vector)
gives no vector attribute: no "unknown" vector is used.

The entries are appended after each token's indicator entries in the CSR
layout of :class:`chaintag.features.extract.Attributes`, whose
``attr_values`` (float64, one per entry; 1 for the indicator entries) the
learners with valued kernels read (perceptron, SAPO, CRFs, MIRA, max-ent).
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from .._jit import njit


def scale_factor(vectors: np.ndarray, sigma: float | None) -> float:
    """The factor that brings the standard deviation of the vectors' components to ``sigma``.

    Parameters
    ----------
    vectors : float array, shape (n_words, dim)
        All-zero rows (words without a vector) are left out of the statistic.
    sigma : float or None
        Wanted standard deviation; None keeps the values (factor 1).

    Returns
    -------
    float
        1.0 when ``sigma`` is None or the components have no spread.
    """
    if sigma is None:
        return 1.0
    x = np.asarray(vectors, dtype=np.float64)
    live = np.any(x != 0.0, axis=1)
    std = float(x[live].std()) if live.any() else 0.0
    return float(sigma) / std if std > 0 else 1.0


def principal_components(vectors: np.ndarray, dim: int | None) -> np.ndarray:
    """The vectors' coordinates on their first ``dim`` principal components (PCA by SVD).

    Parameters
    ----------
    vectors : float array, shape (n_words, d)
        All-zero rows (words without a vector) are left out of the fit and stay zero.
    dim : int or None
        None, or ``dim >= d``, returns ``vectors`` unchanged.

    Returns
    -------
    float32 array, shape (n_words, min(dim, d))
        Each component's sign is fixed so that its largest loading is positive (a deterministic result).

    Raises
    ------
    chaintag.errors.InputError
        When fewer than ``dim`` words have a vector (no more components exist).
    """
    x = np.asarray(vectors, dtype=np.float32)
    if dim is None or dim >= x.shape[1]:
        return x
    live = np.any(x != 0.0, axis=1)
    if int(live.sum()) - 1 < dim:  # n centred points span at most n - 1 principal components
        raise InputError(f"@vecdim={dim} asks for {dim} principal components; the vectors of "
                         f"{int(live.sum())} word(s) give at most {max(int(live.sum()) - 1, 0)}")
    rows = x[live].astype(np.float64)
    mean = rows.mean(axis=0)
    _, _, vt = np.linalg.svd(rows - mean, full_matrices=False)
    comp = vt[:dim]
    comp *= np.sign(comp[np.arange(dim), np.abs(comp).argmax(axis=1)])[:, None]
    out = np.zeros((x.shape[0], dim), dtype=np.float32)
    out[live] = ((rows - mean) @ comp.T).astype(np.float32)
    return out


def shift_rows(rows: np.ndarray, sent_ptr: np.ndarray, offset: int) -> np.ndarray:
    """``out[i] = rows[i + offset]`` within each sentence, -1 where ``i + offset`` falls outside it.

    Parameters
    ----------
    rows : int32 array, shape (n_tokens,)
    sent_ptr : int64 array, shape (n_sentences + 1,)
    offset : int

    Returns
    -------
    int32 array, shape (n_tokens,)
    """
    n = len(rows)
    if offset == 0 or n == 0:
        return rows
    sent = np.repeat(np.arange(len(sent_ptr) - 1), np.diff(sent_ptr))
    j = np.arange(n) + offset
    ok = (j >= sent_ptr[sent]) & (j < sent_ptr[sent + 1])
    out = np.full(n, -1, dtype=np.int32)
    out[ok] = rows[j[ok]]
    return out


@njit(cache=True)
def append_vector_entries(tok_ptr, attr_ids, rows, dim_attr, vectors, factor):
    """Append each token's vector entries after its indicator entries.

    Parameters
    ----------
    tok_ptr : int64 array, shape (n_tokens + 1,)
    attr_ids : int32 array, shape (n_entries,)
        The indicator entries.
    rows : int32 array, shape (n_vec, n_tokens)
        Row of ``vectors`` that vector template ``j`` reads at token ``i``, -1 for none.
    dim_attr : int32 array, shape (n_vec, dim)
        Attribute id of dimension ``k`` of vector template ``j``, -1 when it has none (pruned).
    vectors : float32 array, shape (n_words, dim)
    factor : float
        Scale of the values.

    Returns
    -------
    new_ptr : int64 array, shape (n_tokens + 1,)
    new_ids : int32 array
    values : float64 array
        1.0 for the indicator entries, ``factor * vectors[row, k]`` for the vector entries.
    """
    n_tok = tok_ptr.shape[0] - 1
    n_vec = rows.shape[0]
    dim = dim_attr.shape[1]
    live = np.zeros(n_vec, dtype=np.int64)
    for j in range(n_vec):
        for k in range(dim):
            if dim_attr[j, k] >= 0:
                live[j] += 1
    new_ptr = np.zeros(n_tok + 1, dtype=np.int64)
    for i in range(n_tok):
        c = tok_ptr[i + 1] - tok_ptr[i]
        for j in range(n_vec):
            if rows[j, i] >= 0:
                c += live[j]
        new_ptr[i + 1] = new_ptr[i] + c
    new_ids = np.empty(new_ptr[n_tok], dtype=np.int32)
    values = np.empty(new_ptr[n_tok], dtype=np.float64)
    for i in range(n_tok):
        p = new_ptr[i]
        for e in range(tok_ptr[i], tok_ptr[i + 1]):
            new_ids[p] = attr_ids[e]
            values[p] = 1.0
            p += 1
        for j in range(n_vec):
            r = rows[j, i]
            if r < 0:
                continue
            for k in range(dim):
                a = dim_attr[j, k]
                if a >= 0:
                    new_ids[p] = a
                    values[p] = factor * vectors[r, k]
                    p += 1
    return new_ptr, new_ids, values
