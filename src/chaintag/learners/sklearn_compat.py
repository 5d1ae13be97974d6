"""scikit-learn interoperability: estimator tags and a sequence scorer.

chaintag's learners follow scikit-learn's estimator conventions
(hyper-parameters in ``__init__``, ``get_params``/``set_params``, ``fit``
returning ``self``, fitted attributes ending in ``_``), so ``clone``,
``GridSearchCV`` and ``cross_val_score`` work on them. Their ``X`` is a list
of sentences (lists of tokens) and ``y`` a list of label sequences, which
scikit-learn's splitters index like any list.
"""

from __future__ import annotations


class SklearnTagsMixin:
    """Declares the estimator's tags to scikit-learn (>= 1.6 asks for them)."""

    def __sklearn_tags__(self):
        # asked by scikit-learn only, so it is installed then; the message covers a broken install
        from ..lazy import require
        utils = require("sklearn.utils", "maxent", "scikit-learn's estimator tags")
        InputTags, Tags, TargetTags = utils.InputTags, utils.Tags, utils.TargetTags
        # no estimator type: not a token classifier (whose default scorer flattens labels)
        return Tags(estimator_type=None, target_tags=TargetTags(required=True), no_validation=True,
                    input_tags=InputTags(two_d_array=False, string=True))


def sequence_scorer(metric: str = "auto"):
    """A scikit-learn scorer (``scoring=``) for sequence labelers.

    Parameters
    ----------
    metric : {"auto", "f1", "accuracy"}, default "auto"
        ``f1``: chunk F1 in percent (conlleval semantics); ``accuracy``:
        token accuracy in percent; ``auto``: F1 for chunk labels, accuracy
        otherwise (the estimator's ``score``).

    Returns
    -------
    callable
        ``scorer(estimator, X, y) -> float``, higher is better. ``f1`` and
        ``accuracy`` score ``estimator.predict(X)``, so the estimator may be a
        scikit-learn ``Pipeline`` ending in a chaintag learner; ``auto`` calls
        ``estimator.score``.

    Raises
    ------
    ValueError
        For an unknown metric; when called, ``f1`` of labels that are not chunk
        labels (POS tags: score them with ``accuracy``).

    Examples
    --------
    >>> from sklearn.model_selection import GridSearchCV   # doctest: +SKIP
    >>> GridSearchCV(StructuredPerceptron(), {"epochs": [5, 10]}, scoring=sequence_scorer("f1"))  # doctest: +SKIP
    """
    if metric not in ("auto", "f1", "accuracy"):
        raise ValueError(f"unknown metric {metric!r}; expected 'auto', 'f1' or 'accuracy'")

    def scorer(estimator, X, y) -> float:
        if metric == "auto":
            return float(estimator.score(X, y))
        from ..evaluation import evaluate
        final = estimator.steps[-1][1] if hasattr(estimator, "steps") else estimator  # a Pipeline's learner
        gold = [[str(lab) for lab in ls] for ls in y]  # labels given as integers are read as strings, as by fit
        result = evaluate(gold, estimator.predict(X), scheme=getattr(final, "eval_scheme", "auto"))
        if metric == "f1" and not result.is_chunking:
            raise ValueError("sequence_scorer('f1'): these labels are not chunk labels (no F1 to score); "
                             "use sequence_scorer('accuracy')")
        return float(result.f1 if metric == "f1" else result.accuracy)

    scorer.__name__ = f"sequence_{metric}"
    return scorer
