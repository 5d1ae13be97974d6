"""chaintag: linear-chain sequence labelers (structured perceptron, SAPO, ...).

The numeric core (emission scoring, Viterbi, weight updates) is compiled with
numba over flat numpy arrays; everything else is plain Python.

Examples
--------
>>> import chaintag
>>> tagger = chaintag.StructuredPerceptron(features=["w[0]", "suf2(w[0])"], epochs=5)
>>> _ = tagger.fit([["the", "dog", "runs"]], [["DT", "NN", "VBZ"]])
>>> tagger.predict([["the", "dog", "runs"]])
[['DT', 'NN', 'VBZ']]
"""

__version__ = "0.1.0"

from .data.datasets import Corpus, load_corpus  # noqa: E402
from .errors import ChaintagError, InputError, ModelFormatError  # noqa: E402
from .evaluation import EvalResult, conlleval_report, evaluate  # noqa: E402
from .learners.sklearn_compat import sequence_scorer  # noqa: E402
from .learners import CRF, CRFLBFGS, MIRA, SAPO, NBestMIRA, SecondOrderPerceptron, MaxEnt, SequenceTagger, StructuredPerceptron, load, make_learner  # noqa: E402
from .learners import BiLSTM, BiLSTMCRF  # noqa: E402

__all__ = [
    "__version__", "Corpus", "load_corpus", "ChaintagError", "InputError", "ModelFormatError",
    "EvalResult", "conlleval_report", "evaluate", "SequenceTagger", "StructuredPerceptron", "SAPO", "CRF",
    "CRFLBFGS", "MIRA", "NBestMIRA", "SecondOrderPerceptron", "MaxEnt", "BiLSTM", "BiLSTMCRF",
    "load", "make_learner", "sequence_scorer",
]
