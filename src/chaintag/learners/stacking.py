"""Stacking: a learner's models tag unlabeled text, and the labels they give become attribute columns.

The ``atag`` / ``atag2`` columns of :mod:`chaintag.features.autotags` are
computed here, at the learner's level: fold models of the training data (the
same learner and settings, without the templates that read those columns)
tag the text, jackknifed over contiguous blocks of the training sentences,
and the full model's profile serves dev, test and tagged text. The feature
layer holds the profile and computes the columns from it; it trains nothing.

References
----------
D. H. Wolpert. Stacked generalization. Neural Networks 5(2), 1992.
"""

from __future__ import annotations

import os
from typing import Callable, Sequence

import numpy as np

from ..errors import InputError
from ..features.autotags import (_CACHE, AUTO_COLUMNS, DEFAULT_FOLDS, AutoTags, Profile, Text, _cache_key, _digest,
                                 fold_blocks, label_counts)
from ..features.templates import resolve_templates

__all__ = ["stack_on_text", "build_autotags"]


def stack_on_text(self, templates, columns, rows, labels):
    """The labels of unlabeled text that the templates' ``atag`` / ``atag2`` columns read (None: none read).

    A learner-level composition (stacking): models of this learner's kind tag the text, and
    their labels become a feature column of the learner being trained.

    Fold models and the full model are this learner with the same settings, without those templates
    (:mod:`chaintag.features.autotags`), or with the ``@autofeatures=`` preset's; they read the word
    column alone, since the text has nothing else, and learn the labels, or the ``@autotarget=`` column.
    """
    from ..features.autotags import AUTO_COLUMNS
    from ..features.spec import (autotag_epochs, autotag_features, autotag_folds, autotag_sources,
                                  autotag_target)
    read = {a.column for t in templates for a in t.atoms if a.column in AUTO_COLUMNS and a.column not in columns}
    if not read:
        return None
    from ..features.extract import refuse_vectors_of
    refuse_vectors_of(templates, read)  # before the text's taggers are trained
    sources = autotag_sources(self.features)
    if not sources:
        raise InputError("templates read the labels of unlabeled text (atag, atag2), but no text is named: "
                         "add @autotags=PATH to the features (chaintag train --autotags PATH)")
    own = autotag_features(self.features)
    tagger_templates = templates if own is None else resolve_templates(own, columns, virtual=True)
    for t in tagger_templates:
        other = [a.column for a in t.atoms if a.column in columns and a.column != columns[0]]
        if other and not any(a.column in AUTO_COLUMNS and a.column not in columns for a in t.atoms):
            raise InputError(f"template {t.name!r} reads the column {other[0]!r}, but the models that tag the "
                             f"unlabeled text (atag, atag2) read the words alone: the text has no "
                             f"{other[0]!r} column (@autofeatures=PRESET names other attributes for them)")
    from ..progress import progress_mode, say
    mode = progress_mode(getattr(self, "progress", None))

    params = self.get_params()
    params.pop("progress", None)
    if autotag_epochs(self.features) is not None and "epochs" in params:
        params["epochs"] = autotag_epochs(self.features)
    if own is not None:
        params["features"] = own

    def fit(fold_rows, fold_labels):
        model = type(self)(**params)
        model._without_autotags = True
        if hasattr(model, "progress"):
            model.progress = False
        return model.fit(fold_rows, fold_labels)

    import json
    settings = json.dumps([type(self).__name__, params], sort_keys=True, default=str)
    target = autotag_target(self.features)
    if target is not None:  # the taggers learn a data column (a POS column: ambiguity classes)
        if target not in columns[1:]:
            raise InputError(f"@autotarget={target}: the text's taggers learn a data column other than the "
                             f"words; the data has {', '.join(columns)}")
        j = columns.index(target)
        labels = [[tok[j] for tok in sent] for sent in rows]
    return build_autotags(fit, rows, [list(map(str, ls)) for ls in labels], sources,
                           folds=autotag_folds(self.features), columns=sorted(read),
                           report=lambda message: say(mode, message), settings=settings)


def build_autotags(fit: Callable[[list, list], object], rows, labels, paths: Sequence[str],
                   folds: int = DEFAULT_FOLDS, columns: Sequence[str] = AUTO_COLUMNS,
                   report: Callable[[str], object] = lambda message: None, settings: str | None = None) -> AutoTags:
    """Tag the text with fold models and the full model; the profiles they give.

    Parameters
    ----------
    fit : callable
        ``fit(rows, labels)`` -> a fitted model (its ``predict`` and
        ``labels_``), trained without the templates that read these columns.
    rows : list of sentences, each a list of tuples of column strings
        Training sentences; the first column is the word.
    labels : list of list of str
    paths : sequence of str
        The text (:func:`text_files`).
    folds : int, default 5
        Contiguous blocks of the training sentences (at least 2, at most
        the number of sentences).
    columns : sequence of str
        The columns whose training values to compute.
    report : callable
        Gets one line per step (fold model trained, text tagged).
    settings : str, optional
        Everything that makes ``fit`` what it is (learner and settings), as text. Given, the last
        result is kept in memory and returned again for the same settings, text files (size and
        modification time), folds and training data, without training: as when a run is trained
        epoch by epoch through checkpoints.

    Returns
    -------
    AutoTags

    Raises
    ------
    chaintag.errors.InputError
        For fewer than 2 folds or more folds than sentences, or text that
        cannot be read (:class:`Text`).
    """
    folds = int(folds)
    if len(rows) < 2:
        raise InputError("the labels of unlabeled text need at least 2 training sentences (for the jackknife)")
    if folds < 2 or folds > len(rows):
        raise InputError(f"the labels of unlabeled text need 2 to {len(rows)} jackknife folds "
                         f"(the training sentences), not {folds} (set them with @autofolds=K)")
    key = None
    if settings is not None:
        key = _cache_key(settings, paths, folds, columns, rows, labels)
        if key in _CACHE:
            report("labels of unlabeled text: the profiles of the last run with these settings and data")
            return _CACHE[key].copy()
    text = Text(paths)
    width = len(next(r for r in rows if len(r))[0])
    report(f"labels of unlabeled text: {text.n_tokens} tokens, {len(text.vocab)} distinct words; "
           f"{folds} fold models and one on all {len(rows)} training sentences")
    block = fold_blocks(len(rows), folds)
    train_values = {c: [None] * len(rows) for c in columns}
    for k in range(folds):
        keep = np.flatnonzero(block != k).tolist()
        model = fit([rows[i] for i in keep], [labels[i] for i in keep])
        prof = Profile.from_counts(text.vocab, list(model.labels_),
                                   label_counts(model.predict, text, model.labels_, width))
        held = np.flatnonzero(block == k).tolist()
        for c in columns:
            vals = prof.column(c, [rows[i] for i in held])
            pos = 0
            for i in held:
                train_values[c][i] = vals[pos:pos + len(rows[i])]
                pos += len(rows[i])
        report(f"labels of unlabeled text: fold {k + 1}/{folds} ({len(prof.words)} words profiled)")
    model = fit(rows, labels)
    full = Profile.from_counts(text.vocab, list(model.labels_),
                               label_counts(model.predict, text, model.labels_, width))
    report(f"labels of unlabeled text: full model ({len(full.words)} words profiled)")
    out = AutoTags(full, folds, [os.path.basename(f) for f in text.files], text.n_tokens)
    out.train_columns = {c: [v for s in train_values[c] for v in s] for c in columns}
    out.digest = _digest(out)
    if key is not None:
        _CACHE.clear()
        _CACHE[key] = out.copy()
    return out
