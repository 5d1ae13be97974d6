"""Significance tests for comparing two taggers on the same test sentences.

Both tests work from *per-sentence counts* (:func:`sentence_stats`), so that a
run need not keep its predicted labels: an array of shape
``(n_sentences, 5)`` holds, for every test sentence, its number of tokens,
correctly labelled tokens, gold chunks, predicted chunks and correct chunks.
Corpus-level scores are ratios of the summed counts (:func:`corpus_score`),
exactly as :func:`chaintag.evaluate` computes them.

- :func:`paired_t_test`: Student's paired t-test over per-sentence scores
  (the SAPO paper's test; ``scipy.stats.ttest_rel``).
- :func:`approximate_randomization`: the approximate randomization test
  (Noreen 1989; Riezler & Maxwell 2005; Yeh 2000 for F1): under the null
  hypothesis the two systems are exchangeable, so each sentence's pair of
  outputs is swapped between them with probability 1/2, and the p-value is
  the share of shuffles whose corpus-level difference is at least the
  observed one. It suits corpus-level F1, which is not a mean of
  per-sentence scores.

Examples
--------
>>> a = sentence_stats([["B-NP", "I-NP", "O"]], [["B-NP", "I-NP", "O"]])
>>> a.tolist()
[[3, 3, 1, 1, 1]]
>>> corpus_score(a, "f1")
100.0
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from chaintag.evaluation import extract_chunks

#: Columns of a per-sentence statistics array.
STAT_COLUMNS = ("n_tokens", "n_correct_tokens", "n_gold_chunks", "n_pred_chunks", "n_correct_chunks")
TOKENS, CORRECT_TOKENS, GOLD_CHUNKS, PRED_CHUNKS, CORRECT_CHUNKS = range(5)

METRICS = ("accuracy", "f1")


def sentence_stats(gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]]) -> np.ndarray:
    """Per-sentence token and chunk counts of a predicted labelling.

    Parameters
    ----------
    gold, pred : sequence of sequences of str
        Gold and predicted labels, sentence by sentence, of equal lengths.

    Returns
    -------
    int64 array, shape (n_sentences, 5)
        Columns :data:`STAT_COLUMNS`. Chunks are read with ``conlleval``'s
        rules (:func:`chaintag.evaluation.extract_chunks`); a predicted chunk
        is correct when gold has the same chunk (type, start, end). For
        labels that are not chunk labels (POS tags) the chunk columns count
        "chunks" of the tag set and are not meant to be read.

    Raises
    ------
    ValueError
        When the numbers of sentences or of tokens in a sentence differ.
    """
    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold sentences but {len(pred)} predicted ones")
    out = np.zeros((len(gold), 5), dtype=np.int64)
    for s, (g, p) in enumerate(zip(gold, pred)):
        if len(g) != len(p):
            raise ValueError(f"sentence {s}: {len(g)} gold labels but {len(p)} predicted ones")
        gold_chunks = set(extract_chunks(g))
        pred_chunks = set(extract_chunks(p))
        out[s] = (len(g), sum(a == b for a, b in zip(g, p)), len(gold_chunks), len(pred_chunks),
                  len(gold_chunks & pred_chunks))
    return out


def corpus_score(stats: np.ndarray, metric: str) -> float:
    """Corpus-level token accuracy or chunk F1, in percent, from summed per-sentence counts.

    Parameters
    ----------
    stats : int array, shape (n_sentences, 5)
        From :func:`sentence_stats`.
    metric : {"accuracy", "f1"}

    Returns
    -------
    float
        ``100 * correct tokens / tokens``, or ``100 * 2 correct / (gold + predicted)``
        chunks (equal to ``2 P R / (P + R)``); 0 when the denominator is 0.
    """
    return float(_scores(np.asarray(stats, dtype=np.float64).sum(axis=0)[None, :], metric)[0])


def _scores(totals: np.ndarray, metric: str) -> np.ndarray:
    """Scores (percent) of summed counts, shape (k, 5) -> (k,)."""
    if metric == "accuracy":
        num, den = totals[:, CORRECT_TOKENS], totals[:, TOKENS]
    elif metric == "f1":
        num, den = 2.0 * totals[:, CORRECT_CHUNKS], totals[:, GOLD_CHUNKS] + totals[:, PRED_CHUNKS]
    else:
        raise ValueError(f"metric must be one of {', '.join(METRICS)}, not {metric!r}")
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, 100.0 * num / np.where(den > 0, den, 1.0), 0.0)


def sentence_accuracy(stats: np.ndarray) -> np.ndarray:
    """Token accuracy of each sentence (a fraction in [0, 1]); NaN for an empty sentence."""
    stats = np.asarray(stats, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(stats[:, TOKENS] > 0, stats[:, CORRECT_TOKENS] / stats[:, TOKENS], np.nan)


@dataclass(frozen=True)
class TTestResult:
    """Outcome of :func:`paired_t_test`.

    Attributes
    ----------
    statistic : float
        t; positive when system A scores higher on average.
    p_value : float
        Two-sided p-value; 1.0 when the scores are identical everywhere.
    mean_difference : float
        Mean of ``a - b`` over the sentences used.
    n : int
        Number of sentences used (pairs where either score is NaN are dropped).
    """

    statistic: float
    p_value: float
    mean_difference: float
    n: int


def paired_t_test(scores_a, scores_b) -> TTestResult:
    """Paired two-sided t-test of per-sentence scores of two systems.

    Parameters
    ----------
    scores_a, scores_b : float arrays, shape (n_sentences,)
        The same sentences scored for each system (e.g. :func:`sentence_accuracy`).

    Returns
    -------
    TTestResult

    Raises
    ------
    ValueError
        On arrays of different lengths.

    Notes
    -----
    ``scipy.stats.ttest_rel`` gives NaN when every difference is 0; this
    function returns ``t = 0, p = 1`` then (no evidence of a difference).
    With fewer than 2 usable pairs it returns ``p = 1`` as well.
    """
    from scipy import stats as sst

    a = np.asarray(scores_a, dtype=np.float64)
    b = np.asarray(scores_b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"score arrays differ in shape: {a.shape} and {b.shape}")
    keep = ~(np.isnan(a) | np.isnan(b))
    a, b = a[keep], b[keep]
    diff = a - b
    mean_diff = float(diff.mean()) if len(diff) else 0.0
    if len(diff) < 2 or not np.any(diff):
        return TTestResult(0.0, 1.0, mean_diff, int(len(diff)))
    res = sst.ttest_rel(a, b)
    t, p = float(res.statistic), float(res.pvalue)
    if np.isnan(p):  # constant non-zero differences: infinitely significant
        t, p = (np.inf if mean_diff > 0 else -np.inf), 0.0
    return TTestResult(t, p, mean_diff, int(len(diff)))


@dataclass(frozen=True)
class RandomizationResult:
    """Outcome of :func:`approximate_randomization`.

    Attributes
    ----------
    score_a, score_b : float
        Corpus-level scores (percent) of the two systems.
    difference : float
        ``score_a - score_b``.
    p_value : float
        ``(1 + r) / (1 + n_shuffles)``, ``r`` the shuffles whose absolute
        difference is at least the observed one (two-sided); in ``(0, 1]``.
    n_shuffles : int
    """

    score_a: float
    score_b: float
    difference: float
    p_value: float
    n_shuffles: int


def approximate_randomization(stats_a, stats_b, metric: str = "f1", n_shuffles: int = 1000,
                              random_state: int = 0, batch: int = 200) -> RandomizationResult:
    """Two-sided approximate randomization test on a corpus-level score.

    Parameters
    ----------
    stats_a, stats_b : int arrays, shape (n_sentences, 5)
        Per-sentence counts of the two systems on the same sentences
        (:func:`sentence_stats`).
    metric : {"f1", "accuracy"}
        Corpus-level score compared (:func:`corpus_score`).
    n_shuffles : int, default 1000
        Number of random relabellings ``R``.
    random_state : int, default 0
        Seed of the swaps (numpy's default generator): the same inputs and
        seed give the same p-value.
    batch : int, default 200
        Shuffles computed at once (memory ``batch x n_sentences``).

    Returns
    -------
    RandomizationResult

    Raises
    ------
    ValueError
        On arrays of different shapes, ``n_shuffles < 1`` or an unknown metric.

    Notes
    -----
    Each shuffle swaps the two systems' counts of every sentence with
    probability 1/2 and recomputes both corpus scores from the summed counts:
    ``O(R n)`` work, done as a matrix product per batch. Differences within
    1e-9 of the observed one count as "at least as large", so two identical
    systems get ``p = 1``. The ``+1`` in numerator and denominator makes the
    test valid with a finite ``R`` (Noreen 1989); the smallest possible
    p-value is ``1 / (R + 1)``.

    References
    ----------
    E. W. Noreen. Computer-Intensive Methods for Testing Hypotheses. Wiley, 1989.
    A. Yeh. More accurate tests for the statistical significance of result
    differences. COLING 2000.
    """
    a = np.asarray(stats_a, dtype=np.float64)
    b = np.asarray(stats_b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 2 or a.shape[1] != 5:
        raise ValueError(f"expected two (n_sentences, 5) arrays of the same shape, got {a.shape} and {b.shape}")
    if n_shuffles < 1:
        raise ValueError("n_shuffles must be at least 1")
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {', '.join(METRICS)}, not {metric!r}")
    total_a, total_b = a.sum(axis=0), b.sum(axis=0)
    score_a, score_b = (float(s) for s in _scores(np.stack([total_a, total_b]), metric))
    observed = abs(score_a - score_b)
    delta = b - a  # (n_sentences, 5): what a swap moves from B to A
    rng = np.random.default_rng(random_state)
    hits = 0
    done = 0
    while done < n_shuffles:
        k = min(batch, n_shuffles - done)
        swap = rng.random((k, len(a))) < 0.5  # (k, n_sentences)
        moved = swap.astype(np.float64) @ delta  # (k, 5)
        diff = _scores(total_a + moved, metric) - _scores(total_b - moved, metric)
        hits += int(np.count_nonzero(np.abs(diff) >= observed - 1e-9))
        done += k
    return RandomizationResult(score_a, score_b, score_a - score_b, (hits + 1) / (n_shuffles + 1), n_shuffles)


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjustment of p-values for multiple comparisons.

    A family of ``m`` hypotheses is rejected at level ``alpha`` where its
    adjusted p-value is below ``alpha``; this controls the family-wise error
    rate (the chance of any false rejection) at ``alpha``, without assuming
    the tests independent.

    Parameters
    ----------
    p_values : sequence of float, shape (m,)

    Returns
    -------
    numpy.ndarray of float64, shape (m,)
        Adjusted p-values in the input order: with ``p_(1) <= ... <= p_(m)``
        sorted, ``p~_(i) = max_{j <= i} min(1, (m - j + 1) p_(j))``.

    References
    ----------
    S. Holm. A simple sequentially rejective multiple test procedure.
    Scandinavian Journal of Statistics 6(2), 1979.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03]).round(3).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=np.float64)
    m = len(p)
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    adjusted = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted = np.maximum.accumulate(adjusted)
    out = np.empty(m)
    out[order] = adjusted
    return out


def timing_test(seconds_a, seconds_b) -> float:
    """Two-sided Mann-Whitney U test of two samples of per-pass times.

    Parameters
    ----------
    seconds_a, seconds_b : sequences of float
        Seconds per training pass of two learners (the first pass, which
        carries one-off start-up costs, should be left out by the caller).

    Returns
    -------
    float
        The p-value (``scipy.stats.mannwhitneyu``); 1.0 when either sample
        has fewer than 2 values.
    """
    from scipy import stats as sst

    a = np.asarray([x for x in seconds_a if x is not None], dtype=np.float64)
    b = np.asarray([x for x in seconds_b if x is not None], dtype=np.float64)
    if len(a) < 2 or len(b) < 2:
        return 1.0
    return float(sst.mannwhitneyu(a, b, alternative="two-sided").pvalue)
