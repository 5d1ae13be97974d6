"""What ``chaintag train`` checks and says about its data before training.

The default attribute preset is chosen from the columns present and the kind
of labels; the label column is checked for the mistakes users make (a single
label, a column of another kind); and every run states on stderr the preset,
the templates and the columns it uses.
"""

from __future__ import annotations

import re

__all__ = ["default_preset", "label_column_warnings", "describe_features"]

#: Chunk types of syntactic phrases (CoNLL-2000); other types are taken for entities.
PHRASE_TYPES = frozenset({"NP", "VP", "PP", "ADJP", "ADVP", "SBAR", "PRT", "CONJP", "INTJ", "LST", "UCP"})
_NUMBER = re.compile(r"[+-]?\d+(?:[.,]\d+)?")


def default_preset(columns, labels) -> tuple[str, str]:
    """The preset used when ``--features`` is not given, and why.

    Parameters
    ----------
    columns : sequence of str
        Feature column names of the training data (``word``, ``pos``, ...).
    labels : list of list of str
        Training labels.

    Returns
    -------
    (str, str)
        Preset name and a phrase saying why: ``chunking`` for a ``pos`` column
        with phrase chunk labels (NP, VP, ...), ``ner`` for a ``pos`` column
        with other labels or for chunk labels without one (the ``ner`` preset
        reads the ``pos`` column when there is one), ``pos`` otherwise.
    """
    from ..evaluation.schemes import detect_scheme
    scheme = detect_scheme(labels)
    has_pos = "pos" in columns
    types = {t for (p, t) in scheme.read.values() if t}
    if has_pos and scheme.is_chunking and types and types <= PHRASE_TYPES:
        return "chunking", "a pos column and phrase chunk labels"
    if has_pos:
        return "ner", "a pos column, which the ner preset reads"
    if scheme.is_chunking:
        return "ner", "chunk labels and no pos column"
    return "pos", "a word column and labels that are not chunk labels"


def _where(corpus) -> str:
    if corpus.format == "conllu":
        return f"the {(corpus.label_field or 'xpos').upper()} column of {corpus.source}"
    if corpus.label_column is not None:
        return f"column {corpus.label_column + 1} of {corpus.n_file_columns} of {corpus.source}"
    return f"the label column of {corpus.source}"


def label_column_warnings(corpus) -> list[str]:
    """Warnings about a training corpus's label column, each naming the column.

    Parameters
    ----------
    corpus : chaintag.data.datasets.Corpus
        Labelled training data.

    Returns
    -------
    list of str
        Empty when nothing looks wrong. Warns when the labels are a single
        label; when they look like numbers (IDs, heads), like words (at least
        50 labels and at least one per two tokens), or like a copy of the
        word column (over half of the tokens); and when they are not chunk
        labels but a feature column holds chunk labels (the label column is
        then probably another one).
    """
    from ..evaluation.schemes import detect_scheme
    labels = corpus.labels or []
    flat = [lab for s in labels for lab in s]
    if not flat:
        return []
    where = _where(corpus)
    how = "--label-field" if corpus.format == "conllu" else "--columns"
    out = []
    distinct = set(flat)
    if len(distinct) == 1:
        out.append(f"the labels ({where}) are a single label, {flat[0]!r}: every token will be tagged "
                   f"with it (if the labels are in another column, name it with {how})")
        return out
    n = len(flat)
    n_numbers = sum(1 for lab in flat if _NUMBER.fullmatch(lab))
    if n_numbers >= 0.9 * n:
        out.append(f"the labels ({where}) are numbers on {n_numbers} of {n} tokens: this looks like a column "
                   f"of IDs, heads or counts, not labels (choose the label column with {how})")
    elif len(distinct) >= 50 and len(distinct) * 2 >= n:
        out.append(f"the labels ({where}) take {len(distinct)} values over {n} tokens: this looks like a "
                   f"word column, not labels (choose the label column with {how})")
    if "word" in corpus.columns:
        w = corpus.columns.index("word")
        same = sum(1 for toks, labs in zip(corpus.tokens, labels) for tok, lab in zip(toks, labs) if tok[w] == lab)
        if same * 2 > n and len(distinct) > 2:
            out.append(f"the labels ({where}) equal the word on {same} of {n} tokens: this looks like a copy "
                       f"of the word column (choose the label column with {how})")
    if not detect_scheme(labels).is_chunking:
        for i, name in enumerate(corpus.columns):
            if name == "word":
                continue
            values = [[tok[i] for tok in s] for s in corpus.tokens]
            scheme = detect_scheme(values)
            if scheme.is_chunking and not scheme.stray:
                out.append(f"the feature column {name!r} holds chunk labels ({scheme.name.upper()}) while "
                           f"the labels ({where}) do not: is the label column the one you meant? "
                           f"(choose it with {how})")
    return out


def describe_labels(corpus) -> str:
    """Where the labels of a training corpus come from (the end of the line ``chaintag train`` prints)."""
    return _where(corpus)


def describe_features(features: str, why: str | None, templates, columns, corpus) -> str:
    """The line ``chaintag train`` prints about its attributes and columns."""
    source = (f"preset {features!r} (chosen for {why}; set --features to choose)" if why
              else (f"preset {features!r}" if features in ("chunking", "pos", "ner") else f"{features!r}"))
    names = "; ".join(t.name for t in templates)
    return (f"features: {source}; {len(templates)} templates: {names}; "
            f"feature columns: {', '.join(columns)}; labels: {_where(corpus)}")
