"""``chaintag tag --constrain / --partial``: checks and the output of constrained batches."""

from __future__ import annotations

import io
import json

from ..errors import InputError

#: A partial-label cell that leaves the token free.
FREE = ("_", "")


def check_constraint_options(model, args, fmt: str) -> dict:
    """Validate ``--constrain``/``--partial`` for ``model``; returns the batch options they add.

    Raises
    ------
    InputError
        For a model that is not a first-order chain, labels that follow no
        chunk scheme, or ``--partial`` on CoNLL-U input.
    """
    from ..decoding.constraints import scheme_masks
    from ..learners.constrained import _check_model

    try:
        _check_model(model)
    except NotImplementedError as exc:
        raise InputError(str(exc)) from None
    if args.scheme and not args.constrain:
        raise InputError("--scheme names the scheme of --constrain: add --constrain")
    constrain = (args.scheme or True) if args.constrain else False
    if constrain:
        try:
            scheme_masks(model.labels_, None if constrain is True else constrain)
        except ValueError as exc:
            raise InputError(f"--constrain: {exc}") from None
    if args.partial and fmt == "conllu":
        raise InputError("--partial reads the fixed labels from the last column of a column file, "
                         "not from CoNLL-U input")
    return {"constrain": constrain, "partial": bool(args.partial)}


def check_partial_sentence(model, tokens, name: str, line: int | None) -> None:
    """Check one sentence's ``--partial`` column before tagging, naming the file and line.

    Raises
    ------
    InputError
        For a sentence without a column after the model's feature columns, or
        a fixed label the model does not have (``NAME:LINE: ...``).
    """
    n = len(model.columns_)
    where = name if line is None else f"{name}:{line}"
    if len(tokens[0]) <= n:
        raise InputError(f"{where}: --partial: the input has {len(tokens[0])} column(s); the fixed labels go in "
                         f"a column after the model's {n} feature column(s) ({', '.join(model.columns_)})")
    known = set(model.labels_)
    for i, tok in enumerate(tokens):
        if tok[-1] not in FREE and tok[-1] not in known:
            at = name if line is None else f"{name}:{line + i}"
            raise InputError(f"{at}: --partial: the model has no label {tok[-1]!r} (give one of its "
                             f"{len(known)} labels, or _ to leave the token free)")


def _fixed(model, batch):
    n = len(model.columns_)
    out = []
    for sent in batch:
        if len(sent[0]) <= n:
            raise InputError(f"--partial: the input has {len(sent[0])} column(s); the fixed labels go in a "
                             f"column after the model's {n} feature column(s) ({', '.join(model.columns_)})")
        out.append([None if tok[-1] in FREE else tok[-1] for tok in sent])
    return out


def format_constrained(model, batch, rows, sep: str, options: dict) -> str:
    """:func:`chaintag.cli.tag_batches.format_batch` for column input with constraints or partial labels."""
    from ..io.columns import format_sentence

    kw = {"constrain": options.get("constrain") or False,
          "fixed": _fixed(model, batch) if options.get("partial") else None}
    out = io.StringIO()
    if options.get("nbest"):
        for toks, cands in zip(batch, model.predict_nbest(rows, options["nbest"], **kw)):
            out.write(json.dumps({"tokens": [list(t) for t in toks],
                                  "nbest": [{"labels": labs, "score": score, "probability": prob}
                                            for labs, score, prob in cands]}, ensure_ascii=False))
            out.write("\n")
    elif options.get("marginals"):
        labels = model.predict(rows, **kw)
        index = {lab: j for j, lab in enumerate(model.labels_)}
        for toks, labs, marg in zip(batch, labels, model.predict_marginals(rows, **kw)):
            out.write(format_sentence([tok + (lab, f"{marg[i, index[lab]]:.4f}")
                                       for i, (tok, lab) in enumerate(zip(toks, labs))], sep))
    elif options.get("confidence"):
        labels, conf = model.predict_confidence(rows, options["confidence"], **kw)
        for toks, labs, cs in zip(batch, labels, conf):
            out.write(format_sentence([tok + (lab, f"{c:.4f}") for tok, lab, c in zip(toks, labs, cs)], sep))
    else:
        for toks, labs in zip(batch, model.predict(rows, **kw)):
            out.write(format_sentence([tok + (lab,) for tok, lab in zip(toks, labs)], sep))
    return out.getvalue()
