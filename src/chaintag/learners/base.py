"""The shared estimator: data preparation, the epoch driver, prediction, model files.

Every learner is a subclass that supplies three hooks (``_begin``,
``_run_epoch``, ``_current_weights``); everything else (attribute
extraction, feature space, dev evaluation after each epoch, keeping the best
epoch, history, saving and loading) lives here, once.
"""

from __future__ import annotations

import copy
import inspect
import os
import sys
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..decoding.scoring import NO_VALUES, SENTENCES_PER_CHUNK, feature_entries, tag_corpus, tag_corpus_serial
from ..errors import InputError, NotFittedError
from ..features.dense_rows import DECODE_MIN_TOKENS, FullRowMemo
from ..features.extract import AttributeExtractor, Attributes
from ..features.space import FeatureIndex, build_feature_index, remap_attributes
from ..features.templates import resolve_templates
from ..io.model_file import load_model, save_model
from .finite import check_weights
from .inference import InferenceMixin
from .spans import SpanMixin
from .introspect import IntrospectionMixin, training_summary
from .sklearn_compat import SklearnTagsMixin
from .transaction import transactional
from .tokens import (MAX_LABELS, as_rows, check_column_rows, check_label_values, check_labels, column_names,  # noqa: F401
                     default_columns, looks_like_chunks, materialise)

@dataclass
class TrainData:
    """Compiled-kernel view of a labelled corpus.

    Attributes
    ----------
    attrs : Attributes
        CSR attribute ids (``sent_ptr``, ``tok_ptr``, ``attr_ids``).
    gold : int32 array, shape (n_tokens,)
    index : FeatureIndex
    ent_lo, ent_n : arrays, shape (n_entries,)
        Feature range of every entry (:func:`feature_entries`).
    """

    attrs: Attributes
    gold: np.ndarray
    index: FeatureIndex
    ent_lo: np.ndarray = None
    ent_n: np.ndarray = None
    #: float64 value of every entry (real-valued attributes of feature-dict tokens), None when all are 1
    ent_val: np.ndarray = None
    #: keep ``attrs.attr_ids`` (a learner whose kernels read the attribute of an entry)
    keep_attr_ids: bool = False

    def __post_init__(self):
        if self.ent_lo is None:
            self.ent_lo, self.ent_n = feature_entries(self.attrs.attr_ids, self.index.feat_ptr,
                                                      self.index.n_labels)
            if not self.keep_attr_ids:  # the kernels read the entries; the attribute ids are not needed any more
                self.attrs = Attributes(self.attrs.sent_ptr, self.attrs.tok_ptr, None)

    def use_layout(self, layout) -> None:
        """Put the feature entries and the index in the kernels' ``layout`` (a
        :class:`chaintag.features.dense_rows.RowLayout` of ``index``), in place, so that the entries
        of the model's layout are freed."""
        self.ent_lo, self.ent_n = layout.entries(self.ent_lo, self.ent_n, in_place=True)
        self.index = layout.index


class SequenceTagger(InferenceMixin, SpanMixin, IntrospectionMixin, SklearnTagsMixin):
    """Base class of chaintag's linear-chain learners (scikit-learn conventions).

    ``__init__`` of a subclass only stores its hyper-parameters. ``fit``
    returns ``self``; fitted attributes end in ``_``:

    - ``labels_`` : list of str, label of each id;
    - ``extractor_`` : :class:`AttributeExtractor`;
    - ``feature_index_`` : :class:`FeatureIndex`;
    - ``weights_`` : float64 array, shape (n_weights,), the flat weights used
      for tagging (features, transitions ``[prev, cur]``, start, end);
    - ``history_`` : list of dict, one per epoch;
    - ``best_epoch_`` : int, the epoch whose weights were kept.

    ``label_field_`` (``"xpos"``, ``"upos"`` or None) may be set after
    fitting to record the CoNLL-U column the labels came from; it is saved
    with the model, and ``chaintag tag`` and ``eval`` use it by default.
    """

    #: streamed training (in file order) gives the in-memory model bit for bit, so large files stream
    streams_exactly = False

    #: the model's order (2: label-trigram weights), and for a second-order learner the first-order
    #: learner it extends (``chaintag train --algorithm NAME --order 2``)
    order = 1
    first_order = None

    #: whether fit(checkpoint_dir=...) saves and resumes the run (chaintag.learners.epochs.Checkpoints)
    supports_checkpoints = True

    #: how the epoch state is mixed between shards (chaintag.training.mixing.FAMILIES), None: not by mixing
    mixing_family = None

    #: first-order decoding over the learner's emission and transition scores, so that
    #: constrained (label scheme) and partially labelled decoding apply (chaintag.learners.constrained)
    constrained_decoding = True

    algorithm = "base"

    # ------------------------------------------------------------ parameters
    #: The learner's hyper-parameters (:class:`chaintag.learners.params.Param`), declared once: they give
    #: ``__init__``, ``get_params`` / ``set_params``, the checks at ``fit`` and the command line's options.
    params: tuple = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in ("fit", "fit_with"):  # a fit that raises leaves the estimator as it was
            if name in cls.__dict__:
                setattr(cls, name, transactional(cls.__dict__[name]))
        if "params" in cls.__dict__ and "__init__" not in cls.__dict__:
            from .params import make_init
            cls.__init__ = make_init(cls.params)

    @classmethod
    def _param_names(cls) -> list[str]:
        if cls.params:
            return [p.name for p in cls.params]
        sig = inspect.signature(cls.__init__)
        return [p for p in sig.parameters if p != "self"]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Hyper-parameters, as given to ``__init__``."""
        return {k: getattr(self, k) for k in self._param_names()}

    def set_params(self, **params) -> "SequenceTagger":
        """Set hyper-parameters; returns ``self``."""
        valid = set(self._param_names())
        for k, v in params.items():
            if k not in valid:
                raise ValueError(f"unknown parameter {k!r} for {type(self).__name__}")
            setattr(self, k, v)
        return self

    def _stored_params(self) -> dict[str, Any]:
        """The hyper-parameters as a model file keeps them: a ``FeatureSpec`` as its text."""
        from ..features.feature_spec import FeatureSpec
        return {k: (v.to_text() if isinstance(v, FeatureSpec) else v) for k, v in self.get_params().items()}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    # ----------------------------------------------------------------- hooks
    def _begin(self, data: TrainData) -> dict:
        raise NotImplementedError

    def _run_epoch(self, state: dict, data: TrainData, order: np.ndarray) -> dict:
        raise NotImplementedError

    def _current_weights(self, state: dict) -> np.ndarray:
        raise NotImplementedError

    # ------------------------------------------------------------------- fit
    @transactional
    def fit(self, sentences, labels, dev=None, *, checkpoint_dir=None, resume=False) -> "SequenceTagger":
        """Train on labelled sentences.

        Parameters
        ----------
        sentences : sequence of sequences of tokens
            A token is a string (one column) or a tuple of column strings
            named by the ``columns`` hyper-parameter (default ``word``, ``pos``, ...);
            or one of python-crfsuite's item forms: a feature dict, or a list of
            attribute names (read as columns when ``columns`` is given); see
            :mod:`chaintag.features.dicts`. A generator is read once. Every token
            is checked: even tuples of strings that UTF-8 can hold.
        labels : sequence of sequences of str
            Gold labels, one per token; none may be empty or hold whitespace or
            a line break (a column file could not hold it).
        dev : tuple (sentences, labels), optional
            Held-out data scored after every epoch; the weights of the best
            epoch are kept (Collins 2002, s. 4: passes tuned on held-out data).
        checkpoint_dir : str or os.PathLike, optional
            Save the training state there after every epoch
            (``checkpoint.npz``, written atomically).
        resume : bool, default False
            Continue from the checkpoint in ``checkpoint_dir`` if there is
            one; the result equals an uninterrupted run with the same seed.

        Returns
        -------
        self

        Raises
        ------
        InputError
            On empty data, length mismatches, or templates reading missing columns;
            or when another process is training with the same ``checkpoint_dir``
            (a lock held while it runs, released when it ends or dies); on tokens
            and labels that a model file or a column file cannot hold, and real
            values too large to train on (the messages name the sentence and token).
        chaintag.errors.NumericalError
            When an epoch ends with a weight that is not finite (no model is kept).
        chaintag.errors.OutputError
            When a checkpoint cannot be written (the message names it).
        """
        return self.fit_with(sentences, labels, dev, checkpoint_dir=checkpoint_dir, resume=resume)

    @transactional
    def fit_with(self, sentences, labels, dev=None, *, trainer=None, checkpoint_dir=None,
                 resume=False) -> "SequenceTagger":
        """Train as :meth:`fit` does, the epochs run by ``trainer`` (e.g. on a cluster's workers).

        Parameters
        ----------
        sentences, labels, dev, checkpoint_dir, resume
            As for :meth:`fit`.
        trainer : object, optional
            ``trainer.source(data, dev_pack)`` gives the source of the epochs
            (:mod:`chaintag.learners.epochs`); a learner solved by an optimizer
            (``CRFLBFGS``) takes ``trainer.objective(data)`` instead. None: in memory.

        Returns
        -------
        self
        """
        if checkpoint_dir:
            from .checkpoint import folder_lock
            with folder_lock(checkpoint_dir):
                return self._fit(sentences, labels, dev, checkpoint_dir, resume, trainer)
        return self._fit(sentences, labels, dev, None, False, trainer)

    def _fit(self, sentences, labels, dev, checkpoint_dir, resume, trainer=None) -> "SequenceTagger":
        from .params import check_params
        check_params(self)  # every declared parameter within its bounds
        epochs = getattr(self, "epochs", 1)
        if not isinstance(epochs, (int, np.integer)) or epochs < 1:
            raise InputError(f"epochs must be a positive integer, not {epochs!r}")
        if getattr(self, "cc", 0) < 0:
            raise InputError(f"cc must be 0 or more, not {self.cc!r}")
        from ..features.dicts import DICT_COLUMNS, dict_rows, is_dict_corpus
        dev = dev_pair(dev)  # its shape checked before the training data is read
        sentences = materialise(sentences)  # read once: type detection reads the first sentence
        # a list token is python-crfsuite's list of attribute names, unless columns are named
        dict_input = is_dict_corpus(sentences, lists=getattr(self, "columns", None) is None)
        rows = dict_rows(sentences) if dict_input else as_rows(sentences)
        labels = list(labels)
        self._check_pairs(rows, labels, "training")
        if any(isinstance(ls, (str, bytes)) for ls in labels):
            check_label_values(labels)  # a sentence's labels given as one string
        flat = [lab for ls in labels for lab in ls]
        try:
            label_set = set(flat)
        except TypeError:  # an unhashable label (a list)
            label_set = None
        if label_set is None or not all(isinstance(lab, str) for lab in label_set):
            check_label_values(labels)  # a string per sentence, None, NaN: refused; integers read as strings
        if dict_input:
            columns = n_cols = DICT_COLUMNS
        else:
            n_cols = check_column_rows(rows)  # even tuples of strings that a model file can hold
            columns = column_names(self.columns) if self.columns else default_columns(n_cols)
            if len(columns) != n_cols:
                raise InputError(f"columns {columns} do not match the {n_cols} columns of the tokens")
        self.columns_ = columns
        if not all(isinstance(lab, str) for lab in label_set):
            flat = list(map(str, flat))
            label_set = set(flat)
        check_labels(label_set, labels)  # no whitespace, line breaks or lone surrogates: a column file holds them
        self.labels_ = sorted(str(lab) for lab in label_set)  # plain strings (not numpy's str_), as loaded
        label_id = {lab: k for k, lab in enumerate(self.labels_)}
        n_labels = len(self.labels_)
        if n_labels > MAX_LABELS:
            from ..errors import TrainingError
            raise TrainingError(f"{n_labels} distinct labels (transition weights alone would take "
                                f"{n_labels * n_labels * 8 / 2**30:.1f} GiB): is the label column right? "
                                "(see --columns)")
        t_start = time.perf_counter()
        extractor = self._extractor(dict_input, columns, rows, labels)
        # building the extractor reads and derives the resources and builds the gazetteer: its own figure
        self.extractor_seconds_ = time.perf_counter() - t_start
        t_start = time.perf_counter()
        gold = np.fromiter(map(label_id.__getitem__, flat), dtype=np.int32, count=len(flat))
        from ..progress import plural, progress_mode, step
        with step(progress_mode(getattr(self, "progress", None)),
                  f"attribute extraction ({plural(len(rows), 'sentence')}, {plural(len(gold), 'token')})"):
            attrs, pairs = extractor.fit_transform_counts(rows, gold, n_labels)
            index, keep = build_feature_index(attrs, gold, n_labels, extractor.n_attributes,
                                              cc=self.cc, space=self.feature_space, pairs=pairs)
            remap = extractor.prune(keep)
            values = getattr(attrs, "attr_values", None)
            if values is not None:  # the values of the entries that remap_attributes keeps
                values = np.ascontiguousarray(values[remap[attrs.attr_ids] >= 0])
            attrs = remap_attributes(attrs, remap)
        if index.n_features == 0:
            from ..errors import TrainingError
            raise TrainingError(f"no features left: every attribute-label pair occurs fewer than "
                                f"cc={self.cc} times")
        self.extractor_ = extractor
        self.feature_index_ = index
        self.extraction_seconds_ = time.perf_counter() - t_start
        self.training_summary_ = training_summary(len(rows), gold, self.labels_, labels,
                                                  getattr(self, "eval_scheme", "auto"))
        data = TrainData(attrs, gold, index, ent_val=values, keep_attr_ids=type(self)._keeps_attr_ids)
        del attrs
        if values is not None and trainer is not None:
            raise InputError("real-valued attributes are not offered by distributed training; "
                             "train in one process")
        dev_pack = None
        if dev is not None:
            dev_rows = self._dev_rows(dev[0], self._rows)
            dev_labels = [list(map(str, ls)) for ls in dev[1]]
            self._check_pairs(dev_rows, dev_labels, "dev")
            dev_pack = (extractor.transform(dev_rows), dev_labels)
        self._train(data, dev_pack, checkpoint_dir, resume, trainer=trainer)
        self._finish_fit()
        return self

    def _finish_fit(self) -> None:
        """The end of every fit, in memory, streamed from a file or distributed: in the ``all`` feature
        space, the features whose weight stayed 0 are dropped (:meth:`_drop_unused_features`)."""
        if getattr(self, "feature_space", "gold") == "all" and self.order == 1:
            self._drop_unused_features()

    def _drop_unused_features(self) -> None:
        """Drop the features whose weight is 0 after training, and the attributes left with none.

        In the ``all`` feature space every (attribute, label) pair is a feature, but a pair that never
        took part in an update keeps weight 0 (96 % of them after 2 epochs of SAPO on UD EWT). A zero
        weight adds nothing to any score, so every score, label and probability is the same bit for bit
        (tested); the model in memory and its file become those of the features that count.
        """
        from ..features.space import FeatureIndex
        index = self.feature_index_
        n_feat = index.n_features
        w = np.asarray(self.weights_)
        used = w[:n_feat] != 0.0
        if used.all() or not used.any():
            return
        n_attr = len(index.feat_ptr) - 1
        attr_of = np.repeat(np.arange(n_attr), np.diff(index.feat_ptr))
        counts = np.bincount(attr_of[used], minlength=n_attr)
        keep = counts > 0
        self.extractor_.prune(keep)
        feat_ptr = np.zeros(int(keep.sum()) + 1, dtype=np.int64)
        np.cumsum(counts[keep], out=feat_ptr[1:])
        self.feature_index_ = FeatureIndex(feat_ptr, np.ascontiguousarray(index.feat_label[used]), index.n_labels)
        self.weights_ = np.ascontiguousarray(np.concatenate([w[:n_feat][used], w[n_feat:]]), dtype=np.float64)

    def _extractor(self, dict_input: bool, columns, rows, labels):
        """The attribute extractor of the training data: of feature dicts, hashed, or exact (with the
        resources, the gazetteer and the labels of unlabeled text its templates read)."""
        from ..features.spec import resolve_resources
        resources = None if dict_input else resolve_resources(self.features)  # @clusters=FILE parts
        hash_bits = getattr(self, "hash_bits", None)
        if dict_input:
            extractor = self._dict_extractor(hash_bits)
        elif hash_bits is not None:
            templates = resolve_templates(self.features, columns)
            from ..features.hashed import HashedAttributeExtractor
            try:
                extractor = HashedAttributeExtractor(templates, columns, hash_bits=hash_bits,
                                                     resources=resources)
            except InputError:
                raise
            except ValueError as exc:
                raise InputError(str(exc)) from None
        else:
            from ..features.spec import vector_dim, vector_scale
            templates = resolve_templates(self.features, columns, virtual=True)
            if getattr(self, "_without_autotags", False):  # a fold model of the labels of unlabeled text
                from ..features.autotags import AUTO_COLUMNS
                templates = [t for t in templates if not any(a.column in AUTO_COLUMNS and a.column not in columns
                                                             for a in t.atoms)]
            extractor = AttributeExtractor(templates, columns, resources=resources,
                                           vec_scale=vector_scale(self.features), vec_dim=vector_dim(self.features),
                                           gazetteer=self._gazetteer(templates, columns, rows, labels),
                                           autotags=self._autotags(templates, columns, rows, labels))
            if extractor.has_vectors and not type(self)._real_values:
                raise InputError(f"vec(...) templates give real-valued attributes, which {type(self).__name__} "
                                 "does not read; train a learner with valued kernels (perceptron, sapo, crf, "
                                 "crf-lbfgs, mira, nbest-mira, maxent) or drop the vec templates")
        return extractor

    def _gazetteer(self, templates, columns, rows, labels):
        """The gazetteer of the templates' ``gaz`` / ``gazn`` columns, built on the training data (None: none read)."""
        from ..features.gazetteer import GAZ_COLUMNS, Gazetteer
        from ..features.spec import gazetteer_block, gazetteer_folds, gazetteer_sources
        read = {a.column for t in templates for a in t.atoms if a.column in GAZ_COLUMNS and a.column not in columns}
        if not read:
            return None
        return Gazetteer.build(rows, [list(map(str, ls)) for ls in labels],
                               gazetteer_sources(self.features) or ["train"],
                               folds=gazetteer_folds(self.features), columns=sorted(read),
                               block=gazetteer_block(self.features))

    def _autotags(self, templates, columns, rows, labels):
        """The labels of unlabeled text the templates read (:func:`chaintag.learners.stacking.stack_on_text`)."""
        from .stacking import stack_on_text
        return stack_on_text(self, templates, columns, rows, labels)

    def _dict_extractor(self, hash_bits):
        """The extractor of feature-dict tokens (sklearn-crfsuite style input)."""
        from ..features.dicts import DictAttributeExtractor
        if hash_bits is not None:
            raise InputError("hash_bits applies to template attributes, not to feature-dict tokens")
        return DictAttributeExtractor(real_values=type(self)._real_values, reader=type(self).__name__)

    #: Whether the learner's compiled kernels take real-valued attributes (feature-dict numbers).
    _real_values = False
    #: the training kernels read each entry's attribute id (TrainData keeps them)
    _keeps_attr_ids = False

    def _rows(self, sentences):
        """Sentences checked against the input the model was fitted on (column tokens or feature dicts).

        A model that reads document columns (:mod:`chaintag.features.document`) given tokens without
        them (plain strings, or tuples of its input columns only) gets them computed here, the
        sentences of one call being one document (:func:`chaintag.features.document.complete_rows`).
        """
        from ..features.dicts import DICT_COLUMNS, dict_rows
        if self.columns_ == DICT_COLUMNS:
            return dict_rows(sentences)
        from ..features.document import complete_rows, model_document_columns
        if not model_document_columns(self):
            return as_rows(sentences, len(self.columns_))
        return complete_rows(self, as_rows(sentences, 0))  # every token a tuple, whatever its width

    @staticmethod
    def _dev_rows(sentences, to_rows):
        """``to_rows(sentences)`` of the dev data, its errors (which name the sentence and token) said to be
        about the dev data: every ``fit`` that takes dev data reads it so."""
        try:
            return to_rows(sentences)
        except InputError as exc:
            raise InputError(f"dev data: {exc}") from None

    @staticmethod
    def _as_model(model, what: str = "model") -> "SequenceTagger":
        """:func:`as_model`, for the mixins of this class (which do not import this module)."""
        return as_model(model, what)

    @staticmethod
    def _check_pairs(rows, labels, what: str) -> None:
        if len(rows) != len(labels):
            raise InputError(f"{what} data: {len(rows)} sentences but {len(labels)} label sequences")
        for s, (r, ls) in enumerate(zip(rows, labels)):
            if len(r) != len(ls):
                raise InputError(f"{what} data: sentence {s} has {len(r)} tokens but {len(ls)} labels")
        if not any(len(r) for r in rows):
            raise InputError(f"{what} data: no sentences")

    #: Whether an epoch over no sentences leaves the state as it was (then the warm-up needs no copy).
    _empty_epoch_is_noop = False

    #: Whether the epochs run numba kernels to compile (or load) before the first timed epoch.
    _compiled_kernels = True
    #: Whether the epoch kernels take full rows (chaintag.features.dense_rows): rows of absent labels
    #: that only :func:`chaintag.decoding.scoring.find_feature` may look into.
    _full_rows = False

    def _warm_up(self, state: dict, data: TrainData) -> None:
        """Compile the epoch kernels (or load them from numba's cache) before the timed epochs,
        with an epoch over no sentences, so that the first epoch's seconds are its own. It runs on
        a copy of the state unless the learner's empty epoch changes nothing."""
        empty = np.zeros(0, dtype=np.int64)
        self._run_epoch(state if self._empty_epoch_is_noop else copy.deepcopy(state), data, empty)

    def _train(self, data: TrainData, dev_pack, checkpoint_dir=None, resume=False, trainer=None) -> None:
        """Run the epochs (:func:`chaintag.learners.epochs.run_epochs`) over the data in memory, or over
        the source ``trainer.source(data, dev_pack)`` gives (shards on a cluster)."""
        from .epochs import MemorySource, run_epochs
        source = MemorySource(self, data, dev_pack) if trainer is None else trainer.source(data, dev_pack)
        run_epochs(self, source, dev_pack, self._callbacks(checkpoint_dir, resume))

    def _callbacks(self, checkpoint_dir=None, resume=False) -> list:
        """The callbacks of a run: checkpoints (with ``checkpoint_dir``), progress, the time budget."""
        from ..progress import progress_mode
        from .epochs import Checkpoints, Progress, TimeBudget
        mode = progress_mode(getattr(self, "progress", None))
        callbacks = []
        if checkpoint_dir:
            callbacks.append(Checkpoints(checkpoint_dir, resume, mode, self._explain_resume_error))
        own = type(self)._progress_bar is not SequenceTagger._progress_bar  # a learner's own epoch display
        callbacks.append(Progress(mode, self._progress_bar() if own else None))
        limit = getattr(self, "max_seconds", None)  # a wall-clock budget, for learners that take one
        if limit is not None:
            callbacks.append(TimeBudget(limit))
        return callbacks

    def _explain_resume_error(self, exc: InputError) -> InputError:
        """A checkpoint refused: with labels of unlabeled text whose taggers' epochs follow the run's,
        say how to resume with other epochs."""
        from ..features.spec import autotag_epochs
        if getattr(self.extractor_, "autotags", None) is None or autotag_epochs(self.features) is not None:
            return exc
        return InputError(f"{exc.message} (the labels of unlabeled text come from taggers trained for "
                          "this run's epochs: to resume with other epochs, train with @autoepochs=E in "
                          "the features, E fixed)", exc.path, exc.line)

    def _fingerprint(self, data, dev_pack) -> str:
        """Checksum of the data and settings a checkpoint must match (:func:`checkpoint.fingerprint`)."""
        from . import checkpoint as ckpt
        print_ = ckpt.fingerprint(self, data, dev_pack)
        if data.ent_val is not None:  # real-valued attributes: the values are part of the data
            import hashlib
            print_ = hashlib.sha256((print_ + "|values " + hashlib.sha256(data.ent_val.tobytes()).hexdigest())
                                    .encode()).hexdigest()
        return print_

    def _progress_bar(self):
        """A tqdm bar over the epochs when progress is shown as bars (see :mod:`chaintag.progress`), else None."""
        from ..progress import progress_mode
        if progress_mode(self.progress) != "bar":
            return None
        from tqdm.auto import tqdm
        return tqdm(total=self.epochs, desc=f"{self.algorithm} epochs", unit="epoch", file=sys.stderr)

    # ------------------------------------------------------------- predicting
    def _check_fitted(self) -> None:
        if not hasattr(self, "weights_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit() or load a model")

    def _tag_ids(self, attrs: Attributes, weights: np.ndarray | None = None) -> np.ndarray:
        out = np.zeros(attrs.n_tokens, dtype=np.int32)
        w = self.weights_ if weights is None else weights
        if len(self.labels_) == 0 or attrs.n_tokens == 0:
            return out
        index = self.feature_index_
        feat_ptr, feat_label = index.feat_ptr, index.feat_label
        if attrs.n_tokens >= DECODE_MIN_TOKENS:  # full rows: the same labels, faster emission scores
            memo = self.__dict__.get("_full_row_memo")
            if memo is None:
                memo = self.__dict__.setdefault("_full_row_memo", FullRowMemo())
            feat_ptr, feat_label, w = memo.arrays(index, w, attrs.n_tokens)
        ent_lo, ent_n = feature_entries(attrs.attr_ids, feat_ptr, len(self.labels_))
        values = getattr(attrs, "attr_values", None)
        from ..parallel import parallel_region  # serial after fork, or while another thread is in the layer
        with parallel_region(attrs.n_sentences > SENTENCES_PER_CHUNK) as parallel:
            kernel = tag_corpus if parallel else tag_corpus_serial
            kernel(attrs.sent_ptr, attrs.tok_ptr, ent_lo, ent_n, NO_VALUES if values is None else values,
                   feat_label, w, len(self.labels_), out)
        return out

    def _split(self, ids: np.ndarray, sent_ptr: np.ndarray) -> list[list[str]]:
        labs = self.labels_
        flat = [labs[k] for k in ids.tolist()]
        bounds = sent_ptr.tolist()
        return [flat[bounds[s]:bounds[s + 1]] for s in range(len(bounds) - 1)]

    def predict(self, sentences, *, constrain=False, fixed=None) -> list[list[str]]:
        """Tag sentences with the best (Viterbi) label sequence.

        Parameters
        ----------
        sentences : sequence of sequences of tokens (str or tuple of column strings)
            For a model that reads document columns (``abbr``, ``docnext``,
            ``doccap``: ``ner+doc``, the ``bio-ner`` recipe), tokens may leave
            them out (plain words): they are then computed from the given
            sentences, taken as **one document**, as ``chaintag tag`` does for
            a file without document markers; to tag several documents, call
            once per document or add the columns with
            :func:`chaintag.features.document.add_document_columns`. The
            same holds for ``predict_nbest``, ``predict_confidence``,
            ``predict_marginals`` and ``evaluate``.
        constrain : bool or str, default False
            Forbid the label sequences that the label scheme makes invalid
            (``O`` -> ``I-X`` in IOB2, ``B-X`` -> ``I-Y``, start and end
            rules): True detects the scheme from the labels, or name it
            (``iob1``, ``iob2``, ``iobes``, ``bilou``). See
            :mod:`chaintag.decoding.constraints`.
        fixed : sequence of sequences of (str or None), optional
            Partial labels: per token, the label it must take, or None.

        Returns
        -------
        list of list of str
            One label per token.

        Raises
        ------
        ValueError
            ``constrain`` on labels that follow no chunk scheme.
        InputError
            Fixed labels of the wrong shape, unknown to the model, or that
            no valid sequence can satisfy.
        NotImplementedError
            ``constrain`` or ``fixed`` with a model that scores no chain of label
            transitions (max-ent, neural taggers; the second-order models have
            their own :meth:`predict`), or real-valued attributes.
        """
        self._check_fitted()
        rows = self._rows(sentences)
        attrs = self.extractor_.transform(rows)
        if constrain or fixed is not None:
            from . import constrained
            return self._split(constrained.tag_ids(self, attrs, constrain, fixed), attrs.sent_ptr)
        return self._split(self._tag_ids(attrs), attrs.sent_ptr)

    #: Chunk scheme of dev and test scoring (see :func:`chaintag.evaluation.evaluate`);
    #: not a hyper-parameter: ``chaintag train --scheme`` sets it on the instance.
    eval_scheme = "auto"
    #: Seconds spent building the attribute extractor at fit (resources read and derived, the
    #: gazetteer); ``extraction_seconds_`` is the attribute extraction itself.
    extractor_seconds_ = 0.0

    def _epoch_record(self, epoch, seconds, cpu_seconds, stats, weights, dev_pack):
        """The history entry of one epoch: its times, ``stats``, weight complexity and dev scores.

        Parameters
        ----------
        epoch : int
            1-based epoch number.
        seconds, cpu_seconds : float
            Wall-clock and process CPU time of the epoch, in seconds.
        stats : dict
            The learner's own counts for the epoch (updates, errors, loss, ...).
        weights : float64 array, shape (n_weights,)
            The weights a model saved after this epoch would hold (averaged where averaging is on).
        dev_pack : tuple (Attributes, list of list of str) or None
            Dev attributes and gold labels; with it the record gains ``dev_accuracy``,
            ``dev_f1`` (None unless the labels are chunk labels) and ``dev_score``
            (F1 for chunk labels, else token accuracy, in percent).

        Returns
        -------
        dict
        """
        record = {"epoch": epoch, "seconds": seconds, "cpu_seconds": cpu_seconds, **stats,
                  "weight_complexity": float(np.abs(weights).mean()) if len(weights) else 0.0}
        if dev_pack is not None:
            result = self._evaluate_attrs(weights, *dev_pack)
            record["dev_accuracy"] = result.accuracy
            record["dev_f1"] = result.f1 if result.is_chunking else None
            record["dev_score"] = result.f1 if result.is_chunking else result.accuracy
        return record

    def _evaluate_attrs(self, weights, attrs: Attributes, gold_labels, scheme=None):
        from ..evaluation import evaluate
        pred = self._split(self._tag_ids(attrs, weights), attrs.sent_ptr)
        return evaluate(gold_labels, pred, scheme=self.eval_scheme if scheme is None else scheme)

    def evaluate(self, sentences, labels, scheme=None):
        """Token accuracy and chunk P/R/F1 (conlleval semantics) on labelled sentences.

        Parameters
        ----------
        sentences : sequence of sequences of tokens
        labels : sequence of sequences of str
        scheme : str, optional
            Chunk scheme (see :func:`chaintag.evaluation.evaluate`); default:
            ``eval_scheme`` (``"auto"``: detected from the labels).

        Returns
        -------
        chaintag.evaluation.EvalResult
            ``is_chunking`` tells whether the labels are chunk labels of some
            scheme (``scheme``), so that F1 is the figure to read.
        """
        self._check_fitted()
        rows = self._rows(sentences)
        labels = [list(map(str, ls)) for ls in labels]
        self._check_pairs(rows, labels, "test") if rows else None
        # the scheme is passed down, never set on the model: evaluate runs in several threads at once
        return self._evaluate_attrs(self.weights_, self.extractor_.transform(rows), labels, scheme)

    def score(self, sentences, labels) -> float:
        """Chunk F1 (in percent) for IOB-style labels, token accuracy (percent) otherwise."""
        r = self.evaluate(sentences, labels)
        return r.f1 if r.is_chunking else r.accuracy

    # ------------------------------------------------------------ model files
    def save(self, path) -> None:
        """Save the fitted model (npz arrays + JSON metadata, written atomically).

        Raises
        ------
        chaintag.errors.NotFittedError
            If the model is not fitted (a RuntimeError, ValueError and AttributeError too).
        chaintag.errors.TrainingError
            If it has no features (nothing was learned).

        Notes
        -----
        Wall-clock fields (``seconds``, ``cpu_seconds``) are left out of the
        history stored in the file, and so is the ``progress`` setting, so
        that the same data, settings and seed give byte-identical model files
        however training was displayed; ``history_`` in memory keeps them.
        """
        from ..errors import TrainingError
        self._check_fitted()
        if self.feature_index_.n_features == 0:
            raise TrainingError("refusing to save a model with no features (did the count cut-off "
                                "remove every attribute-label pair?)")
        check_weights(self, self.weights_)  # never a model file with NaN or inf weights
        ex_meta, ex_arrays = self.extractor_.state()
        # settings that do not change the model (progress display) stay out of its file
        params = {k: v for k, v in self._stored_params().items() if k != "progress"}
        meta = {
            "algorithm": self.algorithm,
            "params": params,
            "labels": self.labels_,
            "columns": list(self.columns_),
            "extractor": ex_meta,
            "history": [{k: v for k, v in rec.items() if k not in ("seconds", "cpu_seconds")}
                        for rec in self.history_],
            "best_epoch": self.best_epoch_,
            "n_attributes": self.extractor_.n_attributes,
            "n_features": self.feature_index_.n_features,
        }
        if getattr(self, "label_field_", None):
            meta["label_field"] = self.label_field_
        from ..features.document import model_document_columns
        if model_document_columns(self):  # computed from the input's documents when tagging
            meta["document_columns"] = list(model_document_columns(self))
        if getattr(self, "training_summary_", None):
            meta["training"] = self.training_summary_
        arrays = dict(ex_arrays)
        arrays.update(weights=self.weights_, feat_ptr=self.feature_index_.feat_ptr,
                      feat_label=self.feature_index_.feat_label)
        save_model(path, meta, arrays)

    @classmethod
    def _from_saved(cls, meta: dict, arrays: dict) -> "SequenceTagger":
        params = {k: v for k, v in meta["params"].items() if k in cls._param_names()}
        if params.get("columns") is not None:
            params["columns"] = tuple(params["columns"])  # JSON has no tuples
        model = cls(**params)
        model.labels_ = list(meta["labels"])
        model.columns_ = tuple(meta["columns"])
        if meta["extractor"].get("kind") == "dict":
            from ..features.dicts import DictAttributeExtractor
            model.extractor_ = DictAttributeExtractor.from_state(meta["extractor"], arrays)
            model.extractor_.reader = cls.__name__
            model.extractor_.real_values = cls._real_values
        elif meta["extractor"].get("hash_bits"):
            from ..features.hashed import HashedAttributeExtractor
            model.extractor_ = HashedAttributeExtractor.from_state(meta["extractor"], arrays)
        else:
            model.extractor_ = AttributeExtractor.from_state(meta["extractor"], arrays)
        model.feature_index_ = FeatureIndex(np.asarray(arrays["feat_ptr"], dtype=np.int64),
                                            np.asarray(arrays["feat_label"], dtype=np.int32),
                                            len(model.labels_))
        model.feature_index_.check(model.extractor_.n_attributes)
        model.weights_ = np.asarray(arrays["weights"], dtype=np.float64)
        if model.weights_.ndim != 1:
            raise ValueError(f"the weights are an array of {model.weights_.ndim} dimensions, not a vector")
        model.history_ = list(meta.get("history", []))
        model.best_epoch_ = meta.get("best_epoch")
        model.label_field_ = meta.get("label_field")
        model.training_summary_ = meta.get("training")
        if len(model.weights_) != model.feature_index_.n_weights:
            from ..errors import ModelFormatError
            raise ModelFormatError("model arrays are inconsistent (weights and features differ in size)")
        from .finite import all_finite
        if not all_finite(model.weights_):  # never used: written by a chaintag that did not check them
            raise ValueError("its weights are not finite (NaN or infinity): train the model again")
        return model


_REGISTRY: dict[str, type] = {}


def register(cls):
    """Class decorator: make a learner loadable by its ``algorithm`` name."""
    _REGISTRY[cls.algorithm] = cls
    return cls


def load(path) -> SequenceTagger:
    """Load a model saved by :meth:`SequenceTagger.save`, or a model by name.

    Parameters
    ----------
    path : str or os.PathLike
        A model file, or the name of a built-in model (``"en-pos"``, ``"en-upos"``) or of one
        built into the cache folder by ``chaintag models build NAME``. A file that exists always
        wins over a name (:func:`chaintag.models.resolve.resolve_model`).

    Raises
    ------
    FileNotFoundError, chaintag.errors.ModelFormatError
    chaintag.errors.InputError
        For a name that is no file and no known model (the message lists the known names), a
        known model not built yet, or one cached with another learner than its catalog entry's.

    Examples
    --------
    >>> import chaintag
    >>> chaintag.load("en-pos").predict([["The", "dog", "barks", "."]])  # doctest: +SKIP
    [['DT', 'NN', 'VBZ', '.']]
    """
    from ..errors import ModelFormatError
    from ..models.resolve import resolve_model
    given = path
    path = resolve_model(path)
    meta, arrays = load_model(path)
    if isinstance(given, str) and os.fspath(path) != given:
        from ..models.resolve import check_built_with
        check_built_with(given, meta.get("algorithm"), path)
    if meta.get("algorithm") == "checkpoint":
        raise ModelFormatError(f"{path}: is a training checkpoint, not a model; continue the training "
                               "with --checkpoint-dir and --resume")
    algorithm = meta.get("algorithm")
    if algorithm not in _REGISTRY:  # learner modules register their classes when imported
        from . import LEARNERS
        if algorithm in LEARNERS:
            LEARNERS[algorithm]
        else:
            for name in LEARNERS:
                LEARNERS[name]
    cls = _REGISTRY.get(algorithm)
    if algorithm is None:
        raise ModelFormatError(f"{path}: model file is incomplete: it names no algorithm (the learner that "
                               "wrote it)")
    if cls is None:
        raise ModelFormatError(f"{path}: unknown algorithm {meta.get('algorithm')!r}")
    labels = meta.get("labels")
    if (not isinstance(labels, list) or not labels or not all(isinstance(lab, str) for lab in labels)
            or len(set(labels)) != len(labels)):
        raise ModelFormatError(f"{path}: model file is inconsistent: its labels are not a list of distinct "
                               "strings")
    try:
        model = cls._from_saved(meta, arrays)
        # what wrote the file (chaintag inspect shows it); a model saved again records this release's
        model.file_format_ = {"format_version": meta.get("format_version"),
                              "chaintag_version": meta.get("chaintag_version")}
        return model
    except ModelFormatError as exc:
        text = str(exc)
        if text.startswith(f"{path}:"):
            raise
        raise ModelFormatError(f"{path}: {text}") from None
    except KeyError as exc:
        raise ModelFormatError(f"{path}: model file is incomplete: it has no {exc.args[0]!r} entry") from None
    except (ValueError, TypeError, IndexError) as exc:
        raise ModelFormatError(f"{path}: model file is incomplete or inconsistent: {exc}") from None


def dev_pair(dev):
    """``dev`` as a pair of lists (sentences, label sequences), or None.

    Parameters
    ----------
    dev : tuple (sentences, labels), chaintag.data.datasets.Corpus or None
        The dev data given to ``fit``; iterables are read once.

    Returns
    -------
    tuple (sentences, labels) or None

    Raises
    ------
    InputError
        When it is not a pair of sequences (a corpus object with ``tokens`` and ``labels`` is read as one).
    """
    if dev is None:
        return None
    if hasattr(dev, "tokens") and hasattr(dev, "labels"):  # a Corpus (chaintag.load_corpus)
        dev = (dev.tokens, dev.labels)
    if isinstance(dev, (str, bytes)) or not isinstance(dev, (tuple, list)) or len(dev) != 2:
        what = f"a sequence of {len(dev)}" if isinstance(dev, (tuple, list)) else type(dev).__name__
        raise InputError(f"dev must be a pair (sentences, labels), as the training data is given, not {what}")
    sentences, labels = dev
    if isinstance(sentences, (str, bytes)) or isinstance(labels, (str, bytes)):
        raise InputError("dev must be a pair (sentences, labels) of lists, one sentence and one label "
                         "sequence each, not strings")
    return materialise(sentences, "dev"), list(labels)


def as_model(model, what: str = "model") -> SequenceTagger:
    """A fitted model from what the API's functions accept as one: a model, its file, or a known name.

    Parameters
    ----------
    model : SequenceTagger, str or os.PathLike
        A model; or a model file or the name of a built-in or built model, loaded by :func:`load`.
    what : str
        The argument's name in the message (``"pos_model"``).

    Returns
    -------
    SequenceTagger

    Raises
    ------
    TypeError
        For anything else, naming ``what`` and the type given.
    FileNotFoundError, chaintag.errors.ModelFormatError, chaintag.errors.InputError
        As :func:`load`, for a file or name that gives no model.
    """
    if isinstance(model, SequenceTagger):
        return model
    if isinstance(model, (str, os.PathLike)):
        return load(model)
    raise TypeError(f"{what} must be a fitted model, a model file or a known model's name (such as 'en-pos'), "
                    f"not {type(model).__name__}")
