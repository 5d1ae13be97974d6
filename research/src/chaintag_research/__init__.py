"""Paper reproductions: configurations -> runs -> results (JSON lines) -> tables and plots.

- :mod:`~chaintag_research.config`: :class:`DataRef` and :class:`Run`,
  the declarative description of a training run;
- :mod:`~chaintag_research.runner`: :class:`Runner`, which trains runs
  epoch by epoch, scores dev and test data after every epoch and caches the
  results by a hash of the run's settings;
- :mod:`~chaintag_research.significance`: paired t-test and approximate
  randomization over per-sentence counts;
- :mod:`~chaintag_research.collins2002` and :mod:`~chaintag_research.sapo`:
  one module per paper, each with its runs, published figures and report
  (``chaintag reproduce collins2002|sapo`` on the command line).
"""

from .config import DataRef, Run
from .runner import Runner, RunResult
from .significance import (approximate_randomization, corpus_score, paired_t_test, sentence_accuracy,
                           sentence_stats)

__all__ = ["DataRef", "Run", "Runner", "RunResult", "approximate_randomization", "corpus_score",
           "paired_t_test", "sentence_accuracy", "sentence_stats"]
