"""Learners: one estimator interface (:class:`SequenceTagger`), one driver."""

from .base import SequenceTagger, load, register
from .perceptron import StructuredPerceptron
from .sapo import SAPO
from .crf import CRF, CRFLBFGS
from .mira import MIRA, NBestMIRA
from .second_order import SecondOrderPerceptron
from .maxent import MaxEnt
from .neural import BiLSTM, BiLSTMCRF

LEARNERS = {"perceptron": StructuredPerceptron, "sapo": SAPO, "crf": CRF, "crf-lbfgs": CRFLBFGS,
            "mira": MIRA, "nbest-mira": NBestMIRA, "perceptron2": SecondOrderPerceptron,
            "maxent": MaxEnt, "bilstm": BiLSTM, "bilstm-crf": BiLSTMCRF}


def make_learner(name: str, strict: bool = True, **params) -> SequenceTagger:
    """Build a learner by its name (as ``chaintag train --algorithm``).

    Parameters
    ----------
    name : str
        A key of ``LEARNERS``.
    strict : bool, default True
        Refuse parameters the learner does not take (a misspelled name would
        otherwise be ignored). The CLI passes ``strict=False`` with its
        options for every learner.
    **params
        Hyper-parameters.

    Raises
    ------
    ValueError
        For an unknown name.
    TypeError
        For a parameter the learner does not take (with ``strict``).
    """
    try:
        cls = LEARNERS[name]
    except KeyError:
        raise ValueError(f"unknown algorithm {name!r}; choose from {', '.join(LEARNERS)}") from None
    accepted = set(cls._param_names())
    unknown = sorted(set(params) - accepted)
    if strict and unknown:
        raise TypeError(f"{name} takes no parameter {', '.join(unknown)}; it takes {', '.join(sorted(accepted))}")
    return cls(**{k: v for k, v in params.items() if k in accepted})


__all__ = ["SequenceTagger", "StructuredPerceptron", "SAPO", "CRF", "CRFLBFGS", "MIRA", "NBestMIRA",
           "SecondOrderPerceptron", "MaxEnt", "BiLSTM", "BiLSTMCRF", "load", "register", "make_learner", "LEARNERS"]
