"""``chaintag inspect``: what a saved model holds (settings, data, labels, weights, transitions)."""

from __future__ import annotations

import os

from ..progress import plural
from .common import add_common, print_json


def add_parser(sub) -> None:
    p = sub.add_parser(
        "inspect", help="show a saved model: settings, training data, labels, top attributes, transitions",
        description="Print the algorithm and its settings, a summary of the training data, the labels, "
                    "the numbers of attributes and features, the top positive and negative attributes "
                    "of each label and the transition matrix of a model file (as `crfsuite dump` does "
                    "for CRFsuite models).")
    p.add_argument("model", metavar="MODEL", help="model file from chaintag train, or a ready model's name "
                   "(chaintag models list)")
    p.add_argument("--top", type=int, default=5, metavar="K",
                   help="top positive and negative attributes shown per label (default: 5)")
    p.add_argument("--labels", metavar="L1,L2", default=None,
                   help="show the top attributes of these labels only (comma-separated)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    add_common(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from ..errors import InputError
    from ..learners import load

    if args.top < 0:
        raise InputError("--top must be 0 or more")
    model = load(args.model)
    info = model.summary(args.top)
    if args.labels:
        wanted = [lab for lab in args.labels.split(",") if lab]
        unknown = [lab for lab in wanted if lab not in model.labels_]
        if unknown:
            raise InputError(f"--labels: the model has no label {', '.join(unknown)} "
                             f"(its labels: {', '.join(model.labels_)})")
        info["top_features"] = {lab: info["top_features"][lab] for lab in wanted}
    info["model"] = args.model
    from ..models.catalog import MODELS
    from ..models.resolve import looks_like_name
    catalog = MODELS.get(args.model) if looks_like_name(args.model) and not os.path.isfile(args.model) else None
    if catalog is not None:  # a ready model: what it learned from and the licence it carries
        info["catalog"] = {"trained_on": catalog.train_source(), "licence": catalog.licence}
    if args.json:
        print_json(info)
        return 0
    print(format_summary(info, model.transitions_.format() if info.get("transitions") is not None else None))
    return 0


def format_summary(info: dict, matrix: str | None) -> str:
    """The text report of ``chaintag inspect`` from :meth:`SequenceTagger.summary`'s dict (``matrix``: the
    transition table's text, None for a model without one)."""
    lines = [f"model: {info['model']}"]
    file_format = info.get("file_format")
    if file_format:
        lines.append(f"file: format version {file_format.get('format_version')}, written by chaintag "
                     f"{file_format.get('chaintag_version') or '(a release that did not record it)'}")
    lines += [f"algorithm: {info['algorithm']} ({info['class']})",
             "settings: " + ", ".join(f"{k}={v!r}" for k, v in sorted(info["params"].items()))]
    train = info.get("training")
    catalog = info.get("catalog")
    if catalog:
        lines.append(f"ready model: trained on {catalog['trained_on']}; licence {catalog['licence']}")
    if train:
        lines.append(f"training data: {plural(train['n_sentences'], 'sentence')}, {plural(train['n_tokens'], 'token')}")
    else:
        lines.append("training data: not recorded in this model file")
    lines.append(f"epochs run: {info['epochs_run']}, weights kept from epoch {info['best_epoch']}")
    lines.append(f"columns: {', '.join(info['columns'])}")
    counts = (train or {}).get("label_counts", {})
    labs = [f"{lab} ({counts[lab]})" if lab in counts else lab for lab in info["labels"]]
    lines.append(f"labels ({len(info['labels'])}): {', '.join(labs)}")
    scheme = (train or {}).get("label_scheme")
    if scheme:
        lines.append("label scheme: " + (scheme.upper() if scheme != "none" else "none (not chunk labels)")
                     + (f"; columns named at training: {train['column_spec']}" if train.get("column_spec") else ""))
    lines.append(f"attributes: {info['n_attributes']}, features: {info['n_features']}, "
                 f"weights: {info['n_weights']} ({info['nonzero_weights']} nonzero)")
    virtual = info.get("virtual_columns") or {}
    if "gazetteer" in virtual:
        g = virtual["gazetteer"]
        lines.append(f"gazetteer (gaz, gazn): {g['entries']} entries of {len(g['types'])} types "
                     f"({', '.join(g['types'][:8])}{', ...' if len(g['types']) > 8 else ''}) from "
                     f"{', '.join(g['sources'])}; {g['folds']} jackknife folds")
    if "word_maps" in virtual:
        m = virtual["word_maps"]
        held = ([f"k-means ids at {', '.join(map(str, m['kmeans']))} clusters"] if m["kmeans"] else []) + (
            ["hierarchy paths"] if m["paths"] else []) + (["vectors"] if m["vectors"] else [])
        lines.append(f"word maps kept in the model (no resource file is needed to tag): {', '.join(held) or 'none'} "
                     f"of {m['words']} words, from {m['source'] or 'the resources given'}")
    if "autotags" in virtual:
        a = virtual["autotags"]
        lines.append(f"labels of unlabeled text (atag, atag2): {a['words']} words from {a['text_tokens']} tokens "
                     f"of {', '.join(a['sources'])}; {a['folds']} jackknife blocks")
    if info["top_features"]:  # a neural model has no attribute weights
        lines.append("")
        lines.append("top attributes per label (weight):")
        for lab, tops in info["top_features"].items():
            lines.append(f"  {lab}")
            for sign, mark in (("positive", "+"), ("negative", "-")):
                items = ", ".join(f"{a} {w:+.3f}" for a, w in tops[sign]) or "(none)"
                lines.append(f"    {mark} {items}")
    if matrix is not None:  # the softmax tagger has no transitions
        lines.append("")
        lines.append("transitions (rows: previous label, columns: current label; last rows: start and end):")
        lines.append(matrix)
    return "\n".join(lines)
