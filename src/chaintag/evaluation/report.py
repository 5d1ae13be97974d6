"""Text report in the layout printed by ``conlleval``."""

from __future__ import annotations

from .chunks import EvalResult

__all__ = ["conlleval_report"]


def conlleval_report(result: EvalResult) -> str:
    """Lay out an :class:`EvalResult` the way ``conlleval`` prints its scores.

    Parameters
    ----------
    result : EvalResult
        Scores from :func:`chaintag.evaluation.evaluate`.

    Returns
    -------
    str
        Lines ending in ``"\\n"``::

            processed 47377 tokens with 23852 phrases; found: 23857 phrases; correct: 22231.
            accuracy:  95.88%; precision:  93.18%; recall:  93.20%; FB1:  93.19
                         ADJP: precision:  80.29%; recall:  73.52%; FB1:  76.76  401

        The first line gives the number of tokens, of gold chunks
        ("phrases"), of predicted chunks and of correct ones. The second
        line, left out when there are no tokens (as ``conlleval`` does),
        gives the overall figures with ``%6.2f``. Then one line per chunk
        type, sorted by type name, with the type right-aligned in 17
        characters and, last, the number of chunks of that type in the
        predictions.

    Notes
    -----
    Figures are rounded by the same ``printf``-style formatting as in
    ``conlleval``, so the text matches its output for the same data.
    """
    lines = [
        f"processed {result.n_tokens} tokens with {result.n_gold_chunks} phrases; "
        f"found: {result.n_pred_chunks} phrases; correct: {result.n_correct_chunks}."
    ]
    if result.n_tokens > 0:
        lines.append(
            f"accuracy: {result.accuracy:6.2f}%; precision: {result.precision:6.2f}%; "
            f"recall: {result.recall:6.2f}%; FB1: {result.f1:6.2f}")
    for kind in sorted(result.per_type):
        stats = result.per_type[kind]
        lines.append(
            f"{kind:>17}: precision: {stats['precision']:6.2f}%; "
            f"recall: {stats['recall']:6.2f}%; FB1: {stats['f1']:6.2f}  {int(stats['n_pred'])}")
    return "\n".join(lines) + "\n"
