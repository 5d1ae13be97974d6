"""No model with non-finite weights is kept: the check after every epoch and before every save.

Real-valued attributes (feature-dict numbers, ``vec(...)`` templates) enter
the scores as ``value * weight`` and the updates as ``value * step``; a value
near the top of the float64 range (about 1.8e308) overflows an update, a
score or a norm to infinity, and NaN follows (``inf - inf``). Values above
:data:`chaintag.features.dicts.MAX_VALUE` in magnitude are refused when read;
this module catches what remains (products and sums of large values, a huge
learning rate): :func:`check_weights` raises
:class:`~chaintag.errors.NumericalError` as soon as an epoch ends with a
non-finite weight, naming the largest real attribute value of the corpus.
"""

from __future__ import annotations

import numpy as np

from ..errors import NumericalError


def all_finite(weights: np.ndarray) -> bool:
    """Whether every weight is finite.

    One pass and no allocation in the usual case: a finite sum means every
    term is finite (NaN and infinity propagate through a sum); only when the
    sum is not finite are the weights tested one by one (a sum of finite
    values can overflow).
    """
    w = np.asarray(weights)
    if w.size == 0:
        return True
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(np.sum(w)):
            return True
    return bool(np.isfinite(w).all())


def largest_value(model, data) -> tuple[str, float] | None:
    """The attribute holding the largest absolute real value of the training corpus, and that value.

    Parameters
    ----------
    model : SequenceTagger
        Fitted up to its extractor (``extractor_`` names the attribute).
    data : TrainData or None
        Its ``ent_val`` (float64, one value per entry, None when every value is 1), ``ent_lo``
        (first feature of each entry) and ``index`` (whose ``feat_ptr`` gives that feature's attribute).

    Returns
    -------
    (str, float) or None
        None when the corpus has no real values.
    """
    values = getattr(data, "ent_val", None)
    if values is None or len(values) == 0:
        return None
    e = int(np.argmax(np.abs(values)))
    attr = int(np.searchsorted(data.index.feat_ptr, int(data.ent_lo[e]), side="right") - 1)
    try:
        name = model.extractor_.attribute_name(attr)
    except (AttributeError, IndexError, KeyError):
        name = f"attribute {attr}"
    return name, float(values[e])


def check_weights(model, weights: np.ndarray, data=None, epoch: int | None = None) -> None:
    """Raise when ``weights`` hold a NaN or an infinity.

    Parameters
    ----------
    model : SequenceTagger
        The learner being trained (its ``algorithm`` is named).
    weights : float64 array, shape (n_weights,)
    data : TrainData, optional
        The training data, to name the largest real attribute value.
    epoch : int, optional
        1-based epoch (None: after training, or when saving).

    Raises
    ------
    chaintag.errors.NumericalError
        Naming the epoch, the count of non-finite weights and the largest
        real attribute value with its attribute.
    """
    if all_finite(weights):
        return
    bad = int(np.size(weights) - np.count_nonzero(np.isfinite(weights)))
    when = f"after epoch {epoch}" if epoch is not None else "after training"
    message = f"{model.algorithm}: {bad} weight(s) are not finite (NaN or infinity) {when}"
    culprit = largest_value(model, data)
    if culprit is not None:
        name, value = culprit
        message += (f": the largest real attribute value is {value:g} (attribute {name!r}); scale the values "
                    "down (e.g. to [-1, 1], or take logarithms) and train again")
    else:
        message += ": lower the learning rate (or the aggressiveness C) and train again"
    raise NumericalError(message + "; no model was kept")
