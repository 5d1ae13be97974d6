"""Learners: one estimator interface (:class:`SequenceTagger`), one driver.

The learner classes are imported when first used (``chaintag.learners.SAPO``,
``LEARNERS["sapo"]``, loading a SAPO model), so that a command that uses one
learner does not import the others.
"""

from collections.abc import Mapping

from ..lazy import lazy_names
from .base import SequenceTagger, as_model, load, register

#: The registration of every learner, one line each: algorithm name -> (module of this package, class).
#: A new learner is its own module (or folder) plus one line here.
REGISTRY = {
    "perceptron": ("perceptron", "StructuredPerceptron"),
    "sapo": ("sapo", "SAPO"),
    "crf": ("crf", "CRF"),
    "crf-lbfgs": ("crf", "CRFLBFGS"),
    "mira": ("mira", "MIRA"),
    "nbest-mira": ("mira", "NBestMIRA"),
    "perceptron2": ("second_order", "SecondOrderPerceptron"),
    "sapo2": ("sapo2", "SecondOrderSAPO"),
    "maxent": ("maxent", "MaxEnt"),
    "bilstm": ("neural", "BiLSTM"),
    "bilstm-crf": ("neural", "BiLSTMCRF"),
    "bilstm-sapo": ("neural", "BiLSTMSAPO"),
}

#: class name -> module of this package that defines it
_CLASSES = {cls: module for module, cls in REGISTRY.values()}


#: Import a learner class on first use (PEP 562).
__getattr__, __dir__ = lazy_names(__name__, _CLASSES, globals())


class _Learners(Mapping):
    """Algorithm name -> learner class; a class is imported when it is first looked up."""

    _names = {name: cls for name, (_, cls) in REGISTRY.items()}

    def __getitem__(self, name):
        return __getattr__(self._names[name])

    def __iter__(self):
        return iter(self._names)

    def __len__(self):
        return len(self._names)

    def __repr__(self):
        return f"LEARNERS({', '.join(self._names)})"


LEARNERS = _Learners()


def learner_class(name: str) -> type:
    """The learner class of an algorithm name (``chaintag train --algorithm``).

    Parameters
    ----------
    name : str
        A key of ``LEARNERS``.

    Returns
    -------
    type
        A subclass of :class:`SequenceTagger` (its module imported now).

    Raises
    ------
    ValueError
        For an unknown name, naming the close ones and every choice.
    """
    try:
        return LEARNERS[name]
    except (KeyError, TypeError):
        import difflib
        close = difflib.get_close_matches(str(name), list(LEARNERS), 2)
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        raise ValueError(f"unknown learner {name!r}{hint}; choose from {', '.join(LEARNERS)}") from None


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
    cls = learner_class(name)
    accepted = set(cls._param_names())
    unknown = sorted(set(params) - accepted)
    if strict and unknown:
        raise TypeError(f"{name} takes no parameter {', '.join(unknown)}; it takes {', '.join(sorted(accepted))}")
    return cls(**{k: v for k, v in params.items() if k in accepted})


__all__ = ["SequenceTagger", "StructuredPerceptron", "SAPO", "CRF", "CRFLBFGS", "MIRA", "NBestMIRA",
           "SecondOrderPerceptron", "SecondOrderSAPO", "MaxEnt", "BiLSTM", "BiLSTMCRF", "BiLSTMSAPO", "load", "as_model", "register", "make_learner", "learner_class", "LEARNERS"]
