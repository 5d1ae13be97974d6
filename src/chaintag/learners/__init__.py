"""Learners: one estimator interface (:class:`SequenceTagger`), one driver.

The learner classes are imported when first used (``chaintag.learners.SAPO``,
``LEARNERS["sapo"]``, loading a SAPO model), so that a command that uses one
learner does not import the others.
"""

import importlib
import importlib.util
from collections.abc import Mapping

from .base import SequenceTagger, load, register

#: class name -> module of this package that defines it
_CLASSES = {"StructuredPerceptron": "perceptron", "SAPO": "sapo", "CRF": "crf", "CRFLBFGS": "crf",
            "MIRA": "mira", "NBestMIRA": "mira", "SecondOrderPerceptron": "second_order",
            "MaxEnt": "maxent", "BiLSTM": "neural", "BiLSTMCRF": "neural"}


def __getattr__(name):
    """Import a learner class on first use (PEP 562)."""
    module = _CLASSES.get(name)
    if module is None:
        if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
            return importlib.import_module(f".{name}", __name__)  # a subpackage or module, as before
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_CLASSES))


class _Learners(Mapping):
    """Algorithm name -> learner class; a class is imported when it is first looked up."""

    _names = {"perceptron": "StructuredPerceptron", "sapo": "SAPO", "crf": "CRF", "crf-lbfgs": "CRFLBFGS",
              "mira": "MIRA", "nbest-mira": "NBestMIRA", "perceptron2": "SecondOrderPerceptron",
              "maxent": "MaxEnt", "bilstm": "BiLSTM", "bilstm-crf": "BiLSTMCRF"}

    def __getitem__(self, name):
        return __getattr__(self._names[name])

    def __iter__(self):
        return iter(self._names)

    def __len__(self):
        return len(self._names)

    def __repr__(self):
        return f"LEARNERS({', '.join(self._names)})"


LEARNERS = _Learners()


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
