"""Token-level accuracy of predicted labels."""

from __future__ import annotations

from typing import Sequence

from .chunks import _check_sentence, _check_sentence_counts, _count_agreeing

__all__ = ["token_accuracy"]


def _is_flat(labels: Sequence) -> bool:
    """True when ``labels`` looks like one sentence (its items are strings)."""
    return len(labels) > 0 and isinstance(labels[0], str)


def token_accuracy(gold: Sequence, pred: Sequence) -> float:
    """Percentage of tokens whose predicted label equals the gold label.

    Parameters
    ----------
    gold : sequence of sequences of str, or sequence of str
        Gold labels, one sequence per sentence; a single flat sequence of
        labels is also accepted and read as one sentence.
    pred : same shape as ``gold``
        Predicted labels, aligned with ``gold``.

    Returns
    -------
    float
        ``100 * correct / total`` in ``[0, 100]``; 0 when there are no tokens.

    Raises
    ------
    ValueError
        If the numbers of sentences differ, if a sentence has a different
        number of labels in ``gold`` and ``pred`` (the message gives the
        0-based sentence index and both lengths), or if one argument is a
        flat label sequence and the other a sequence of sentences.
    TypeError
        If an argument is a single string or a label is not a string.

    Notes
    -----
    This is the "accuracy" that ``conlleval`` prints: two labels agree when
    they have the same prefix and type, which for ordinary labels means the
    strings are equal. It equals ``evaluate(gold, pred).accuracy``.
    """
    for name, value in (("gold", gold), ("pred", pred)):
        if isinstance(value, str):
            raise TypeError(f"{name} must be a sequence of labels or of sentences, not a string")
    gold_flat, pred_flat = _is_flat(gold), _is_flat(pred)
    if len(gold) and len(pred) and gold_flat != pred_flat:
        raise ValueError(
            "gold and pred have different shapes: one is a flat sequence of labels, "
            "the other a sequence of sentences")
    if gold_flat or pred_flat:
        if len(gold) != len(pred):
            raise ValueError(f"gold has {len(gold)} label{'' if len(gold) == 1 else 's'} but pred has {len(pred)}")
        gold, pred = [gold], [pred]
    _check_sentence_counts(gold, pred)
    cache: dict = {}
    total = 0
    correct = 0
    for index, (gold_sentence, pred_sentence) in enumerate(zip(gold, pred)):
        _check_sentence(index, gold_sentence, pred_sentence)
        total += len(gold_sentence)
        correct += _count_agreeing(gold_sentence, pred_sentence, cache)
    return 100.0 * correct / total if total > 0 else 0.0
