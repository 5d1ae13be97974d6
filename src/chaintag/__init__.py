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

from ._version import __version__  # noqa: E402

from .errors import ChaintagError, InputError, MissingExtraError, ModelFormatError, NotFittedError  # noqa: E402
from .lazy import lazy_names  # noqa: E402

#: public name -> module that defines it, imported on first use (PEP 562), so that
#: ``import chaintag`` and a command that needs one learner stay cheap
_LAZY = {"Corpus": "data.datasets", "load_corpus": "api.corpus", "EvalResult": "evaluation",
         "conlleval_report": "evaluation", "evaluate": "evaluation",
         "sequence_scorer": "learners.sklearn_compat", "tag_file": "api.tagging", "tag_stream": "api.tagging",
         "tag_text": "api.text_tagging", "Document": "text", "Span": "text", "Token": "text",
         "train": "api.training", "score_model": "api.scoring", "FeatureSpec": "features.feature_spec",
         **{name: "learners" for name in ("CRF", "CRFLBFGS", "MIRA", "SAPO", "NBestMIRA",
                                          "SecondOrderPerceptron", "SecondOrderSAPO", "MaxEnt", "SequenceTagger",
                                          "StructuredPerceptron", "load", "make_learner", "BiLSTM",
                                          "BiLSTMCRF", "BiLSTMSAPO")}}


__getattr__, __dir__ = lazy_names(__name__, _LAZY, globals())


__all__ = [
    "__version__", "Corpus", "load_corpus", "ChaintagError", "InputError", "MissingExtraError", "ModelFormatError",
    "NotFittedError",
    "EvalResult", "conlleval_report", "evaluate", "SequenceTagger", "StructuredPerceptron", "SAPO", "CRF",
    "CRFLBFGS", "MIRA", "NBestMIRA", "SecondOrderPerceptron", "SecondOrderSAPO", "MaxEnt", "BiLSTM", "BiLSTMCRF",
    "BiLSTMSAPO", "load", "make_learner", "sequence_scorer", "tag_file", "tag_stream", "train", "FeatureSpec",
    "tag_text", "Document", "Span", "Token", "score_model",
]
