"""A fit either completes or leaves the estimator as it was.

``fit`` sets the fitted attributes one after another (the labels, the
columns, the attribute extractor, the feature index, then the weights). A
fit that fails half-way (bad dev data, no feature left after the cut-off,
a numerical error, Ctrl-C) would otherwise leave an estimator whose labels
are the new data's and whose weights are the old model's: it would tag
with the wrong labels, or index the weights past their end in a compiled
kernel. :func:`fit_transaction` keeps the estimator's attributes as they
were before the fit and puts them back when the fit raises; a fit that
completes starts from no fitted attribute (scikit-learn's convention: a
refit keeps nothing of an earlier one).
"""

from __future__ import annotations

import contextlib
import functools
import threading

__all__ = ["fit_transaction", "transactional", "is_fitted_name"]

_OPEN = threading.local()


def is_fitted_name(name: str) -> bool:
    """Whether an attribute name is a fitted attribute's (``labels_``, ``weights_``; not ``_state``)."""
    return name.endswith("_") and not name.startswith("_")


@contextlib.contextmanager
def fit_transaction(learner):
    """Run a fit of ``learner``: on an exception its attributes are put back as they were.

    Parameters
    ----------
    learner : object
        The estimator; its ``__dict__`` is kept (a shallow copy: a fit builds
        new fitted objects rather than changing the old ones).

    Notes
    -----
    The outermost transaction of a thread holds the copy; a fit that calls
    another (``fit`` -> ``fit_with``, a subclass's ``fit`` -> the base's)
    runs inside it. The fitted attributes of an earlier fit are dropped when
    the outermost one starts, so that none of them outlives a refit.
    """
    open_ = getattr(_OPEN, "ids", None)
    if open_ is None:
        open_ = _OPEN.ids = set()
    if id(learner) in open_:
        yield learner
        return
    before = dict(learner.__dict__)
    open_.add(id(learner))
    try:
        for name in [n for n in learner.__dict__ if is_fitted_name(n)]:
            del learner.__dict__[name]
        yield learner
    except BaseException:
        learner.__dict__.clear()
        learner.__dict__.update(before)
        raise
    finally:
        open_.discard(id(learner))


def transactional(method):
    """Wrap a fit method in :func:`fit_transaction` (once: a wrapped method is returned as it is)."""
    if getattr(method, "_fit_transaction", False):
        return method

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with fit_transaction(self):
            return method(self, *args, **kwargs)

    wrapper._fit_transaction = True
    return wrapper
