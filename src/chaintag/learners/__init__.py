"""Learners: one estimator interface (:class:`SequenceTagger`), one driver."""

from .base import SequenceTagger, load, register
from .perceptron import StructuredPerceptron
from .sapo import SAPO
from .crf import CRF, CRFLBFGS
from .mira import MIRA, NBestMIRA
from .second_order import SecondOrderPerceptron
from .maxent import MaxEnt

LEARNERS = {"perceptron": StructuredPerceptron, "sapo": SAPO, "crf": CRF, "crf-lbfgs": CRFLBFGS,
            "mira": MIRA, "nbest-mira": NBestMIRA, "perceptron2": SecondOrderPerceptron,
            "maxent": MaxEnt}


def make_learner(name: str, **params) -> SequenceTagger:
    """Build a learner by its CLI name, passing only the parameters it accepts.

    Raises
    ------
    ValueError
        For an unknown name.
    """
    try:
        cls = LEARNERS[name]
    except KeyError:
        raise ValueError(f"unknown algorithm {name!r}; choose from {', '.join(LEARNERS)}") from None
    accepted = set(cls._param_names())
    return cls(**{k: v for k, v in params.items() if k in accepted})


__all__ = ["SequenceTagger", "StructuredPerceptron", "SAPO", "CRF", "CRFLBFGS", "MIRA", "NBestMIRA",
           "SecondOrderPerceptron", "MaxEnt", "load", "register", "make_learner", "LEARNERS"]
