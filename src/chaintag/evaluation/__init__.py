"""Evaluation of sequence labelling with the semantics of ``conlleval``.

:func:`evaluate` scores predicted label sequences against gold ones (token
accuracy; chunk precision, recall and F1, overall and per type),
:func:`conlleval_report` prints the result as ``conlleval`` would,
:func:`extract_chunks` reads the chunks of one sentence and
:func:`token_accuracy` gives token accuracy alone.
"""

from .accuracy import token_accuracy
from .chunks import EvalResult, evaluate, extract_chunks
from .report import conlleval_report

__all__ = ["EvalResult", "conlleval_report", "evaluate", "extract_chunks", "token_accuracy"]
