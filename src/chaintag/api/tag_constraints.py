"""The options of constrained decoding (``--constrain``, ``--scheme``, ``--partial``), checked for a model."""

from __future__ import annotations

from ..errors import InputError

__all__ = ["constraint_options"]


def constraint_options(model, constrain, scheme, partial, fmt: str) -> dict:
    """``--constrain``, ``--scheme`` and ``--partial`` checked against the model.

    Parameters
    ----------
    model : SequenceTagger
    constrain : bool
    scheme : str or None
        The scheme of ``constrain`` (default: the model's).
    partial : bool
    fmt : str
        The input format (``--partial`` reads a column file's last column).

    Returns
    -------
    dict
        ``constrain`` (False, True or the scheme's name) and ``partial``, as ``predict`` takes them.

    Raises
    ------
    chaintag.errors.InputError
        For a model that cannot decode under constraints, a scheme without ``constrain``, labels that
        follow no (or not that) chunk scheme, or ``partial`` with CoNLL-U input.
    """
    from ..decoding.constraints import scheme_masks
    from ..learners.constrained import _check_model, constraint_scheme, label_counts
    try:
        _check_model(model)
    except NotImplementedError as exc:
        raise InputError(str(exc)) from None
    if scheme and not constrain:
        raise InputError("--scheme names the scheme of --constrain: add --constrain")
    constrain = (scheme or True) if constrain else False
    if constrain:
        try:  # the scheme that decoding will enforce
            scheme_masks(model.labels_, constraint_scheme(model, constrain), label_counts(model))
        except ValueError as exc:
            recorded = constraint_scheme(model, True) if constrain is True else None
            why = f" (the model's training labels were read as {recorded.upper()})" if recorded else ""
            raise InputError(f"--constrain: {exc}{why}") from None
    if partial and fmt == "conllu":
        raise InputError("--partial reads the fixed labels from the last column of a column file, "
                         "not from CoNLL-U input")
    return {"constrain": constrain, "partial": bool(partial)}
