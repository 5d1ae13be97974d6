"""The global scale of lazily regularized weights, shared by SAPO and CRF-SGD.

Weights are stored as ``w = sigma * v`` (Bottou's trick): an L2 step
``w *= rho`` multiplies the scalar ``sigma`` only, and an update ``delta`` to
``w`` adds ``delta / sigma`` to ``v``. When ``sigma`` gets small it is folded
back into ``v``.

Lazy averaging under the scale: with ``S_t = sigma_1 + ... + sigma_t``, an
update ``delta`` to ``v`` at step ``t`` adds ``delta * S_{t-1}`` to ``u``; the
sum of the weight vectors after every step is ``acc + S v - u``, where
``acc`` collects that sum at every fold (when ``v``, ``u`` and ``S`` restart).
"""

from __future__ import annotations

from .._jit import njit

#: Fold ``sigma`` into ``v`` when it falls below this.
FOLD_BELOW = 1e-6


@njit(cache=True)
def fold_scale(v, sigma):
    """Multiply ``v`` by ``sigma`` in place; returns the new scale, 1.0."""
    for f in range(v.shape[0]):
        v[f] *= sigma
    return 1.0


@njit(cache=True)
def fold_average(v, u, acc, sigma_sum):
    """Move the running average sums into ``acc`` (``acc += S v - u``; ``u = 0``)."""
    for f in range(v.shape[0]):
        acc[f] += sigma_sum * v[f] - u[f]
        u[f] = 0.0


@njit(cache=True)
def end_of_step(v, u, acc, sigma, sigma_sum, shrink, averaged):
    """Close one SGD step under the scale: multiply ``sigma`` by ``shrink`` (the L2 step, 1.0 for
    none), add it to the running sum when averaging, and fold when it gets small.

    Returns
    -------
    (sigma, sigma_sum)
    """
    sigma *= shrink
    if averaged:
        sigma_sum += sigma
    if sigma < FOLD_BELOW:
        if averaged:
            fold_average(v, u, acc, sigma_sum)
            sigma_sum = 0.0
        sigma = fold_scale(v, sigma)
    return sigma, sigma_sum
