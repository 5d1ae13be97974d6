"""The shared estimator of the neural taggers (:mod:`.taggers`): data, training epochs, model files.

The neural learners share chaintag's estimator interface and epoch driver
(:class:`~chaintag.learners.base.SequenceTagger`): ``fit(sentences, labels,
dev=...)`` scores the dev data after every epoch and keeps the best epoch,
``history_`` has one record per epoch (seconds, loss, dev score),
checkpoints resume a run exactly, and ``save`` / :func:`chaintag.load` read
and write the same npz + JSON model files. They learn their own token
representation instead of chaintag's attributes: the ``features``
parameter is accepted (so that every learner takes the same options) and
ignored.

The flat weight vector ``weights_`` (float64) is the concatenation of the
network's parameters in :meth:`torch.nn.Module.named_parameters` order; the
model file stores each parameter as its own float32 array.

PyTorch is imported only when a neural learner is fitted, used or loaded
(:func:`~chaintag.learners.neural._torch.require_torch`).
"""

from __future__ import annotations

import hashlib
import json
import sys
import time

import numpy as np

from ...errors import InputError, ModelFormatError
from ..base import SequenceTagger
from ..introspect import training_summary
from ..params import Param, pick
from ..tokens import (MAX_LABELS, as_rows, check_column_rows, check_label_values, check_labels, column_names, default_columns,
                      materialise)
from ._torch import require_torch
from .batches import bucketed_batches, make_batch, to_device
from .vocab import UNK, Encoder, Vocabulary, normalize_word

#: Sentences per batch when tagging.
PREDICT_BATCH = 256
OPTIMIZERS = ("adam", "sgd")
CHAR_ENCODERS = ("cnn", "lstm", "none")


class Encoded:
    """A corpus as the integer arrays of :meth:`Encoder.encode` (attribute access)."""

    def __init__(self, arrays: dict):
        self.__dict__.update(arrays)
        self.n_sentences = len(self.sent_ptr) - 1
        self.n_tokens = int(self.sent_ptr[-1])


class _Data:
    """Training data as the driver sees it: ``attrs`` (with ``n_sentences``) and ``gold``."""

    def __init__(self, enc: Encoded, gold: np.ndarray):
        self.attrs, self.gold = enc, gold


class _TransformingEncoder(Encoder):
    """:class:`Encoder` with the extractor's ``transform`` (rows -> :class:`Encoded`)."""

    def transform(self, rows) -> Encoded:
        return Encoded(self.encode(rows))


class _EpochLog:
    """Stands in for the driver's progress bar: one plain line per epoch on stderr."""

    def __init__(self, model):
        self.model = model

    def update(self, n=1):
        pass

    def set_postfix(self, post):
        epoch, loss, seconds = self.model._last_epoch
        dev = f", dev {post['dev']}" if "dev" in post else ""
        print(f"{self.model.algorithm} epoch {epoch}/{self.model.epochs}: loss {loss:.4f} per sentence, "
              f"{seconds:.1f} s{dev}", file=sys.stderr, flush=True)

    def close(self):
        pass


def _adam(torch, params, lr):
    """Adam (Kingma and Ba 2015) with PyTorch's fused implementation where this PyTorch has one
    for the device (one pass over all parameters per step: several times faster on the CPU than
    the per-parameter loop), else the plain one. Both compute the same update."""
    try:
        return torch.optim.Adam(params, lr=lr, fused=True)
    except (RuntimeError, TypeError, ValueError):
        return torch.optim.Adam(params, lr=lr)


#: The --help group of the neural learners' options.
_NEURAL = "neural learners (bilstm, bilstm-crf, bilstm-sapo)"


class NeuralTagger(SequenceTagger):
    """Shared code of :class:`BiLSTM` and :class:`BiLSTMCRF`.

    Parameters
    ----------
    epochs : int, default 30
        Passes over the training data (the best one on dev data is kept).
    word_dim : int, optional
        Word embedding size: 100 (Lample et al. 2016), or the dimension of
        the ``embeddings`` file.
    embeddings : str or os.PathLike, optional
        Pretrained word vectors in word2vec / GloVe / fastText text format
        (:func:`~chaintag.learners.neural.vectors.read_vectors`); their words
        join the vocabulary and their vectors initialize the lookup table,
        which is then trained. Default: random initialization,
        uniform in ``±sqrt(3 / word_dim)`` (Ma and Hovy 2016, s. 3.1).
    lowercase : bool, default True
        Look words up lowercased (digits always become 0).
    unk_replace : float, default 0.5
        Probability of replacing a word seen once in training by the unknown
        word during training, so that the unknown vector is trained
        (Lample et al. 2016, s. 4).
    char_encoder : {"cnn", "lstm", "none"}, default "cnn"
        Character CNN (Ma and Hovy 2016) or character BiLSTM (Lample et al.
        2016).
    char_dim : int, default 30
        Character embedding size (Ma and Hovy: 30; Lample et al.: 25).
    char_filters, char_window : int, default 50, 3
        CNN filters and their width (Ma and Hovy: 30 filters of width 3).
    char_hidden : int, default 25
        Units per direction of the character BiLSTM (Lample et al.).
    max_word_length : int, default 30
        Characters of a word given to the character encoder (the first ones).
    feature_dim : int, default 25
        Embedding size of each extra input column (every column but the
        word's, e.g. POS); 0 leaves them out.
    hidden : int, default 200
        LSTM units per direction (Ma and Hovy 2016: 200; Lample et al.: 100).
    dropout : float, default 0.5
        On the token representation and on the BiLSTM output (Ma and Hovy; Lample et al.).
    optimizer : {"adam", "sgd"}, default "adam"
        Adam (Kingma and Ba 2015), or SGD with the learning rate
        ``learning_rate / (1 + lr_decay * (epoch - 1))`` (Ma and Hovy 2016, s. 3.2).
    learning_rate : float, optional
        Default 0.001 for Adam, 0.015 for SGD.
    lr_decay : float, default 0.05
        SGD's per-epoch decay rho.
    clip : float, default 5.0
        Gradient norm clipping threshold (Lample et al.; Ma and Hovy); 0 disables it.
    max_seconds : float, optional
        Start no new epoch once this many seconds of training have passed
        (at least one epoch is trained); the best epoch is kept as usual.
    batch_size : int, default 32
        Sentences per minibatch; batches hold sentences of similar length
        (:func:`~chaintag.learners.neural.batches.bucketed_batches`).
    columns : sequence of str, optional
        Names of the token columns; the column named ``word`` (else the
        first) is the word.
    features : ignored
        Accepted for a common interface with the attribute-based learners.
    device : str, default "cpu"
        PyTorch device, e.g. ``"cuda"``.
    shuffle : bool, default True
        Draw a new sentence order every epoch.
    random_state : int, default 0
        Seed of the initialization, dropout, unknown-word replacement and
        order. On the CPU one seed gives the same weights.
    progress : bool, optional
        A progress bar over the batches of each epoch (default: when stderr is
        a terminal; otherwise one log line per epoch).
    """

    constrained_decoding = False  # scores from the network
    #: why (chaintag.learners.constrained names it when refusing constrain= and fixed=)
    constrained_decoding_absent = "it is not implemented for the neural taggers"

    algorithm = "neural"
    #: The learner embeds the token columns itself: attribute templates (``features``) do not apply.
    learns_representation = True
    _compiled_kernels = False  # PyTorch: nothing to compile before the first epoch
    _crf = False
    _empty_epoch_is_noop = True

    params = (
        *pick("epochs", epochs=30),
        Param("word_dim", None, int, "word embedding size (default: 100, or the vectors file's)", low=1, none=True,
              group=_NEURAL, metavar="N"),
        Param("embeddings", None, str, "pretrained word vectors (word2vec, GloVe or fastText text format; "
              "chaintag train takes the data directory's GloVe file when none is named, 'none' for none)",
              none=True, group=_NEURAL, metavar="PATH"),
        Param("lowercase", True, bool, "look words up lowercased", option=""),
        Param("unk_replace", 0.5, float, "probability of replacing a singleton word by the unknown word", low=0,
              high=1, option=""),
        Param("char_encoder", "cnn", str, "character encoder: CNN (Ma and Hovy) or BiLSTM (Lample et al.)",
              choices=("cnn", "lstm", "none"), group=_NEURAL),
        Param("char_dim", 30, int, "character embedding size", low=1, option=""),
        Param("char_filters", 50, int, "character CNN filters", low=1, option=""),
        Param("char_window", 3, int, "character CNN window", low=1, option=""),
        Param("char_hidden", 25, int, "character BiLSTM units per direction", low=1, option=""),
        Param("max_word_length", 30, int, "characters of a word given to the character encoder", low=1, option=""),
        Param("feature_dim", 25, int, "embedding size of each extra input column (0: none)", low=0, option=""),
        Param("hidden", 200, int, "LSTM units per direction", low=1, option="--hidden-size", group=_NEURAL,
              metavar="N"),
        Param("dropout", 0.5, float, "dropout", low=0, high=1, high_open=True, group=_NEURAL, metavar="P"),
        Param("optimizer", "adam", str, "adam (learning rate 0.001) or sgd (0.015, decayed per epoch)",
              choices=("adam", "sgd"), group=_NEURAL),
        Param("learning_rate", None, float, "learning rate (default: 0.001 for Adam, 0.015 for SGD)", low=0,
              low_open=True, none=True, group="SAPO, CRF and MIRA", metavar="G"),
        Param("lr_decay", 0.05, float, "SGD's per-epoch decay", low=0, option=""),
        Param("clip", 5.0, float, "gradient norm clipping threshold (0: none)", low=0, option=""),
        Param("batch_size", 32, int, "sentences per minibatch", low=1, group=_NEURAL, metavar="N"),
        Param("max_seconds", None, float, "start no new epoch after this many seconds", low=0, none=True, option=""),
        *pick("columns"),
        Param("features", None, None, "ignored (a common interface with the attribute-based learners)", option=""),
        Param("device", "cpu", str, "PyTorch device (e.g. cuda)", group=_NEURAL),
        *pick("shuffle", "random_state", "progress", shuffle=True),
    )

    # ------------------------------------------------------------ settings
    def _check_params(self) -> None:
        from ..params import check_params
        check_params(self)  # every declared parameter within its bounds, as the command line checks them
        if self.optimizer not in OPTIMIZERS:
            raise InputError(f"optimizer must be one of {', '.join(OPTIMIZERS)}, not {self.optimizer!r}")
        if self.char_encoder not in CHAR_ENCODERS:
            raise InputError(f"char_encoder must be one of {', '.join(CHAR_ENCODERS)}, not {self.char_encoder!r}")
        for name in ("hidden", "batch_size", "char_dim", "char_filters", "char_window", "char_hidden",
                     "max_word_length"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or v < 1:
                raise InputError(f"{name} must be a positive integer, not {v!r}")
        if self.word_dim is not None and (not isinstance(self.word_dim, (int, np.integer)) or self.word_dim < 1):
            raise InputError(f"word_dim must be a positive integer, not {self.word_dim!r}")
        if not isinstance(self.feature_dim, (int, np.integer)) or self.feature_dim < 0:
            raise InputError(f"feature_dim must be 0 or a positive integer, not {self.feature_dim!r}")
        if not 0 <= self.dropout < 1 or not 0 <= self.unk_replace <= 1:
            raise InputError("dropout must be in [0, 1) and unk_replace in [0, 1]")
        if self.learning_rate is not None and not self.learning_rate > 0:
            raise InputError(f"learning_rate must be positive, not {self.learning_rate!r}")
        if self.clip < 0 or self.lr_decay < 0:
            raise InputError("clip and lr_decay must be 0 or more")

    def _lr(self) -> float:
        if self.learning_rate is not None:
            return float(self.learning_rate)
        return 0.001 if self.optimizer == "adam" else 0.015

    def _torch_device(self):
        torch = require_torch()
        try:
            dev = torch.device(self.device)
        except (RuntimeError, TypeError) as exc:
            raise InputError(f"unknown device {self.device!r}: {exc}") from None
        if dev.type == "cuda" and not torch.cuda.is_available():
            raise InputError(f"device {self.device!r} asked for, but PyTorch sees no CUDA GPU")
        return dev

    # ----------------------------------------------------------------- fit
    def fit(self, sentences, labels, dev=None, *, checkpoint_dir=None, resume=False) -> "NeuralTagger":
        """Train on labelled sentences (the same contract as :meth:`SequenceTagger.fit`).

        Parameters
        ----------
        sentences : sequence of sequences of tokens (str or tuple of column strings)
        labels : sequence of sequences of str
        dev : tuple (sentences, labels), optional
            Scored after every epoch; the parameters of the best epoch are kept.
        checkpoint_dir : str or os.PathLike, optional
            Save the training state (parameters, optimizer moments) after every epoch.
        resume : bool, default False
            Continue from the checkpoint in ``checkpoint_dir``; the result
            equals an uninterrupted run with the same seed (on the CPU).

        Returns
        -------
        self

        Raises
        ------
        InputError
            On empty data, length mismatches, bad settings, a malformed
            vectors file (file and line named), or an unavailable device.
        chaintag.learners.neural._torch.MissingExtraError
            When PyTorch is not installed.
        """
        torch = require_torch()
        epochs = self.epochs
        if not isinstance(epochs, (int, np.integer)) or epochs < 1:
            raise InputError(f"epochs must be a positive integer, not {epochs!r}")
        self._check_params()
        device = self._torch_device()
        from ...features.dicts import is_dict_corpus
        from ..base import dev_pair
        dev = dev_pair(dev)
        sentences = materialise(sentences)  # read once: type detection reads the first sentence
        if is_dict_corpus(sentences):
            raise InputError(f"{self.algorithm} reads column tokens (the word, and optional columns such as "
                             "POS), not feature dicts: it learns its own token representation")
        rows = as_rows(sentences)
        labels = list(labels)
        self._check_pairs(rows, labels, "training")
        n_cols = check_column_rows(rows)  # even tuples of strings that a model file can hold
        columns = column_names(self.columns) if self.columns else default_columns(n_cols)
        if len(columns) != n_cols:
            raise InputError(f"columns {columns} do not match the {n_cols} columns of the tokens")
        self.columns_ = columns
        check_label_values(labels)  # a string per sentence, None, NaN: refused; integers read as strings
        flat = [str(lab) for ls in labels for lab in ls]
        self.labels_ = sorted(set(flat))
        check_labels(self.labels_, labels)  # no whitespace, line breaks or lone surrogates
        if len(self.labels_) > MAX_LABELS:
            from ...errors import TrainingError
            raise TrainingError(f"{len(self.labels_)} distinct labels: is the label column right? (see --columns)")
        label_id = {lab: k for k, lab in enumerate(self.labels_)}
        t_start = time.perf_counter()
        encoder, vectors = self._build_encoder(rows, columns)
        self.extractor_ = encoder
        enc = encoder.transform(rows)
        gold = np.fromiter(map(label_id.__getitem__, flat), dtype=np.int64, count=len(flat))
        counts = np.bincount(enc.words, minlength=len(encoder.words))
        self._singletons = counts == 1
        self.extraction_seconds_ = time.perf_counter() - t_start
        self.training_summary_ = training_summary(len(rows), gold, self.labels_, labels,
                                                  getattr(self, "eval_scheme", "auto"))
        torch.manual_seed(self.random_state)
        self.net_ = self._build_net(torch, vectors).to(device)
        self._device = device
        dev_pack = None
        if dev is not None:
            dev_rows = self._dev_rows(dev[0], lambda sents: as_rows(sents, n_cols))
            dev_labels = [list(map(str, ls)) for ls in dev[1]]
            self._check_pairs(dev_rows, dev_labels, "dev")
            dev_pack = (encoder.transform(dev_rows), dev_labels)
        data = _Data(enc, gold)
        if checkpoint_dir:
            self._train(data, dev_pack, checkpoint_dir, resume)
        else:
            self._train(data, dev_pack)
        self._set_flat(self.weights_)
        self.n_parameters_ = len(self.weights_)
        return self

    def _build_encoder(self, rows, columns):
        word_col = columns.index("word") if "word" in columns else 0
        extra_cols = [j for j in range(len(columns)) if j != word_col] if self.feature_dim else []
        forms = [tok[word_col] for sent in rows for tok in sent]
        extra_words, vectors = [], None
        if self.embeddings is not None and not (isinstance(self.embeddings, str)
                                                and self.embeddings.lower() == "none"):  # 'none': none
            from .vectors import load_vectors
            vwords, vecs = load_vectors(self.embeddings)
            if self.word_dim is not None and self.word_dim != vecs.shape[1]:
                raise InputError(f"the vectors have dimension {vecs.shape[1]} but word_dim is {self.word_dim}; "
                                 "leave word_dim unset to take the file's", self.embeddings)
            keys, first = [], {}
            for k, w in enumerate(vwords):
                key = normalize_word(w, self.lowercase)
                if key not in first:
                    first[key] = k
                    keys.append(key)
            extra_words = keys
            vectors = (first, vecs)
        words = Vocabulary.build([normalize_word(w, self.lowercase) for w in forms], extra=extra_words)
        chars = Vocabulary.build([c for w in forms for c in w[:self.max_word_length]])
        extras = [Vocabulary.build([tok[j] for sent in rows for tok in sent]) for j in extra_cols]
        return _TransformingEncoder(words, chars, extras, word_col, extra_cols, self.lowercase,
                                    self.max_word_length), vectors

    def _word_dim(self, vectors=None) -> int:
        if self.word_dim is not None:
            return int(self.word_dim)
        return vectors[1].shape[1] if vectors is not None else 100

    def _build_net(self, torch, vectors=None, word_dim=None):
        from .network import TaggerNet
        enc = self.extractor_
        wd = word_dim if word_dim is not None else self._word_dim(vectors)
        net = TaggerNet(len(enc.words), len(enc.chars), [len(v) for v in enc.extras], len(self.labels_),
                        word_dim=wd, char_encoder=self.char_encoder, char_dim=self.char_dim,
                        char_filters=self.char_filters, char_window=self.char_window,
                        char_hidden=self.char_hidden, feature_dim=self.feature_dim, hidden=self.hidden,
                        dropout=self.dropout, crf=self._crf)
        with torch.no_grad():
            for emb in [net.word_emb, *net.extra_emb] + ([net.char.emb] if net.char is not None else []):
                bound = float(np.sqrt(3.0 / emb.weight.shape[1]))
                emb.weight.uniform_(-bound, bound)
                emb.weight[0].zero_()
            for name, p in [*net.lstm_fw.named_parameters(), *net.lstm_bw.named_parameters()]:
                if name.startswith("bias_ih"):  # forget gate bias 1 (Jozefowicz et al. 2015)
                    h = p.shape[0] // 4
                    p.zero_()
                    p[h:2 * h] = 1.0
                elif name.startswith("bias_hh"):
                    p.zero_()
            if vectors is not None:
                first, vecs = vectors
                ids = enc.words.ids(list(first))
                net.word_emb.weight[torch.from_numpy(ids)] = torch.from_numpy(vecs[list(first.values())])
        return net

    # ------------------------------------------------------ driver hooks
    def _params(self):
        return [p for _, p in self.net_.named_parameters()]

    def _get_flat(self) -> np.ndarray:
        return np.concatenate([p.detach().cpu().double().numpy().ravel() for p in self._params()])

    def _set_flat(self, flat: np.ndarray) -> None:
        torch = require_torch()
        k = 0
        with torch.no_grad():
            for p in self._params():
                n = p.numel()
                p.copy_(torch.from_numpy(np.asarray(flat[k:k + n], dtype=np.float32).reshape(p.shape)))
                k += n
        self._loaded = flat

    def _optimizer_state(self, opt) -> tuple[np.ndarray, np.ndarray, int]:
        m, v, step = [], [], 0
        for p in self._params():
            st = opt.state.get(p, {})
            if "exp_avg" in st:
                m.append(st["exp_avg"].detach().cpu().double().numpy().ravel())
                v.append(st["exp_avg_sq"].detach().cpu().double().numpy().ravel())
                step = int(st["step"])
            else:
                m.append(np.zeros(p.numel()))
                v.append(np.zeros(p.numel()))
        return np.concatenate(m), np.concatenate(v), step

    def _begin(self, data) -> dict:
        torch = require_torch()
        if self.optimizer == "adam":
            opt = _adam(torch, self._params(), self._lr())
        else:
            opt = torch.optim.SGD(self._params(), lr=self._lr())
        flat = self._get_flat()
        state = {"params": flat, "epochs_done": 0, "step": 0, "_torch": {"opt": opt, "written": flat}}
        if self.optimizer == "adam":
            state["adam_m"] = np.zeros_like(flat)
            state["adam_v"] = np.zeros_like(flat)
        self._loaded = flat
        return state

    def _sync_in(self, state: dict) -> None:
        """Put arrays restored from a checkpoint back into the network and the optimizer."""
        torch = require_torch()
        t = state["_torch"]
        if state["params"] is t["written"]:
            return
        self._set_flat(state["params"])
        if self.optimizer == "adam" and int(state["step"]) > 0:
            k = 0
            for p in self._params():
                n = p.numel()
                shape, dev = p.shape, p.device
                t["opt"].state[p] = {
                    "step": torch.tensor(float(state["step"]), dtype=torch.float32,
                                         device=dev if t["opt"].defaults.get("fused") else "cpu"),
                    "exp_avg": torch.from_numpy(state["adam_m"][k:k + n].astype(np.float32).reshape(shape)).to(dev),
                    "exp_avg_sq": torch.from_numpy(state["adam_v"][k:k + n].astype(np.float32).reshape(shape)).to(dev)}
                k += n
        t["written"] = state["params"]

    def _sync_out(self, state: dict) -> None:
        t = state["_torch"]
        state["params"] = self._get_flat()
        if self.optimizer == "adam":
            state["adam_m"], state["adam_v"], state["step"] = self._optimizer_state(t["opt"])
        t["written"] = state["params"]
        self._loaded = state["params"]

    def _loss(self, torch, em, batch):
        """Summed loss of a batch's sentences."""
        raise NotImplementedError

    def _run_epoch(self, state: dict, data, order: np.ndarray) -> dict:
        if len(order) == 0:
            return {}
        torch = require_torch()
        self._sync_in(state)
        epoch = int(state["epochs_done"]) + 1
        seed = [int(self.random_state), epoch]
        rng = np.random.default_rng(seed)
        torch.manual_seed(int(np.random.SeedSequence(seed).generate_state(1)[0]))
        opt = state["_torch"]["opt"]
        if self.optimizer == "sgd":
            for g in opt.param_groups:
                g["lr"] = self._lr() / (1.0 + self.lr_decay * (epoch - 1))
        enc = data.attrs
        words = enc.words
        if self.unk_replace > 0:
            drop = self._singletons[words] & (rng.random(len(words)) < self.unk_replace)
            words = np.where(drop, UNK, words)
        arrays = dict(enc.__dict__, words=words)
        batches = bucketed_batches(order, enc.sent_ptr, self.batch_size, rng)
        params = self._params()
        self.net_.train()
        total, n_sent = 0.0, 0
        bar = self._batch_bar(len(batches), epoch)
        t0 = time.perf_counter()
        for sents in batches:
            batch = to_device(make_batch(arrays, sents, data.gold), torch, self._device)
            self._batch_lr(opt, epoch, n_sent, len(order))
            opt.zero_grad(set_to_none=True)
            loss = self._loss(torch, self.net_.emissions(batch), batch)
            (loss / len(sents)).backward()
            if self.clip > 0:
                torch.nn.utils.clip_grad_norm_(params, self.clip)
            opt.step()
            total += float(loss.detach())
            n_sent += len(sents)
            if bar is not None:
                bar.update(1)
                bar.set_postfix(loss=f"{total / n_sent:.3f}")
        if bar is not None:
            bar.close()
        self._last_epoch = (epoch, total / max(n_sent, 1), time.perf_counter() - t0)
        state["epochs_done"] = epoch
        self._sync_out(state)
        return {"loss": total, "updates": len(batches)}

    def _batch_lr(self, opt, epoch: int, seen: int, n_train: int) -> None:
        """Set the learning rate before a batch (``seen`` sentences of the epoch done); the
        schedule of the neural learners changes it per epoch only (above)."""

    def _batch_bar(self, total: int, epoch: int):
        from ...progress import progress_mode
        if progress_mode(self.progress) != "bar":  # batch bars on a terminal only, never in a log
            return None
        from tqdm.auto import tqdm
        return tqdm(total=total, desc=f"epoch {epoch}", unit="batch", leave=False, position=1,
                    file=sys.stderr)

    def _progress_bar(self):
        """The epoch bar on a terminal (each epoch also shows a bar of its batches and loss);
        one log line per epoch (loss, seconds, dev score) when stderr is not a terminal."""
        from ...progress import progress_mode
        if progress_mode(self.progress) == "log":
            return _EpochLog(self)
        return super()._progress_bar()

    def _current_weights(self, state: dict) -> np.ndarray:
        return state["params"]

    def _fingerprint(self, data, dev_pack) -> str:
        h = hashlib.sha256()
        params = {k: v for k, v in self.get_params().items()
                  if k not in ("epochs", "progress", "device", "max_seconds")}
        h.update(json.dumps([self.algorithm, params, self.labels_, self.extractor_.state()],
                            sort_keys=True, default=str).encode())
        h.update(np.ascontiguousarray(data.gold).tobytes())
        h.update(np.ascontiguousarray(data.attrs.words).tobytes())
        if dev_pack is None:
            h.update(b"no dev")
        else:
            h.update(np.ascontiguousarray(dev_pack[0].words).tobytes())
            h.update(json.dumps(dev_pack[1]).encode())
        return h.hexdigest()

    # ------------------------------------------------------------ predict
    def _use(self, weights) -> None:
        if weights is not None and weights is not getattr(self, "_loaded", None):
            self._set_flat(weights)

    def _batched_outputs(self, enc: Encoded, weights, fn):
        """Run ``fn(torch, emissions, batch)`` over length-sorted batches of a corpus in eval mode;
        yields ``(batch, result)``."""
        torch = require_torch()
        self._use(weights)
        lengths = enc.sent_ptr[1:] - enc.sent_ptr[:-1]
        order = np.argsort(lengths, kind="stable")
        order = order[lengths[order] > 0]
        self.net_.eval()
        arrays = enc.__dict__
        with torch.no_grad():
            for lo in range(0, len(order), PREDICT_BATCH):
                sents = order[lo:lo + PREDICT_BATCH]
                batch = make_batch(arrays, sents)
                tb = to_device(batch, torch, self._device)
                yield batch, fn(torch, self.net_.emissions(tb), tb)

    def _tag_ids(self, attrs: Encoded, weights=None) -> np.ndarray:
        out = np.zeros(attrs.n_tokens, dtype=np.int32)
        for batch, paths in self._batched_outputs(attrs, weights, self._decode):
            out[batch["tokens"]] = paths.cpu().numpy().ravel()[batch["flat_pos"]]
        return out

    def _refuse_constraints(self, constrain, fixed) -> None:
        """Refuse ``constrain`` and ``fixed`` (NotImplementedError), as ``predict`` does."""
        if constrain or fixed is not None:
            from ..constrained import _check_model
            _check_model(self)

    def predict_marginals(self, sentences, *, constrain=False, fixed=None) -> list[np.ndarray]:
        """Per-token label probabilities.

        Returns
        -------
        list of float64 arrays, shape (n_tokens, n_labels)
            One per sentence; columns follow ``labels_``; rows sum to 1. The
            softmax output for :class:`BiLSTM`, the CRF's posterior marginals
            (forward-backward) for :class:`BiLSTMCRF`.

        Raises
        ------
        NotImplementedError
            For ``constrain`` or ``fixed``.
        """
        self._check_fitted()
        self._refuse_constraints(constrain, fixed)
        rows = as_rows(sentences, len(self.columns_))
        enc = self.extractor_.transform(rows)
        L = len(self.labels_)
        out = np.zeros((enc.n_tokens, L))
        for batch, marg in self._batched_outputs(enc, None, self._marginals):
            out[batch["tokens"]] = marg.double().cpu().numpy().reshape(-1, L)[batch["flat_pos"]]
        bounds = enc.sent_ptr.tolist()
        return [out[bounds[s]:bounds[s + 1]] for s in range(len(bounds) - 1)]

    # --------------------------------------------------------- model files
    def save(self, path) -> None:
        """Save the fitted model: each network parameter as a float32 array, vocabularies and
        settings as JSON (written atomically; no pickle).

        Raises
        ------
        chaintag.errors.NotFittedError
            If the model is not fitted (a RuntimeError, ValueError and AttributeError too).
        """
        from ...io.model_file import save_model
        self._check_fitted()
        self._use(self.weights_)
        arrays = {"param." + name: p.detach().cpu().numpy() for name, p in self.net_.named_parameters()}
        params = {k: v for k, v in self.get_params().items() if k != "progress"}  # display only
        meta = {"algorithm": self.algorithm, "params": params, "labels": self.labels_,
                "columns": list(self.columns_), "encoder": self.extractor_.state(),
                "word_dim": int(self.net_.word_emb.weight.shape[1]),
                "parameter_shapes": {name: list(p.shape) for name, p in self.net_.named_parameters()},
                "history": [{k: v for k, v in rec.items() if k not in ("seconds", "cpu_seconds")}
                            for rec in self.history_],
                "best_epoch": self.best_epoch_, "n_parameters": int(len(self.weights_))}
        if getattr(self, "label_field_", None):
            meta["label_field"] = self.label_field_
        if getattr(self, "training_summary_", None):
            meta["training"] = self.training_summary_
        save_model(path, meta, arrays)

    @classmethod
    def _from_saved(cls, meta: dict, arrays: dict) -> "NeuralTagger":
        torch = require_torch()
        params = {k: v for k, v in meta["params"].items() if k in cls._param_names()}
        if params.get("columns") is not None:
            params["columns"] = tuple(params["columns"])
        params["device"] = "cpu"
        model = cls(**params)
        model.labels_ = list(meta["labels"])
        model.columns_ = tuple(meta["columns"])
        model.extractor_ = _TransformingEncoder.from_state(meta["encoder"])
        model._device = torch.device("cpu")
        model.net_ = model._build_net(torch, word_dim=int(meta["word_dim"]))
        names = [name for name, _ in model.net_.named_parameters()]
        stored = sorted(k[len("param."):] for k in arrays if k.startswith("param."))
        if sorted(names) != stored:
            raise ModelFormatError("the model's parameter arrays do not match its settings")
        flat = []
        for name, p in model.net_.named_parameters():
            a = np.asarray(arrays["param." + name])
            if a.shape != tuple(p.shape) or a.dtype.kind != "f":
                raise ModelFormatError(f"parameter {name!r} has shape {a.shape}, expected {tuple(p.shape)}")
            flat.append(a.astype(np.float64).ravel())
        model.weights_ = np.concatenate(flat)
        model._set_flat(model.weights_)
        model.n_parameters_ = len(model.weights_)
        model.history_ = list(meta.get("history", []))
        model.best_epoch_ = meta.get("best_epoch")
        model.label_field_ = meta.get("label_field")
        model.training_summary_ = meta.get("training")
        return model

    # -------------------------------------------------------- introspection
    @property
    def transitions_(self):
        """The CRF layer's transition, start and end scores as a
        :class:`~chaintag.learners.introspect.TransitionTable`; zeros for the
        softmax tagger, which scores no transitions.

        Raises
        ------
        chaintag.errors.NotFittedError
            If the model is not fitted (a RuntimeError, ValueError and AttributeError too).
        """
        from ..introspect import TransitionTable
        self._check_fitted()
        self._use(self.weights_)
        L = len(self.labels_)
        if not self._crf:
            return TransitionTable(list(self.labels_), np.zeros((L, L)), np.zeros(L), np.zeros(L))
        n = self.net_
        return TransitionTable(list(self.labels_), *(p.detach().double().cpu().numpy().copy()
                                                     for p in (n.transitions, n.start, n.end)))

    def top_features(self, label: str, k: int = 10) -> dict:
        """Not offered: a neural tagger has no attribute weights to rank.

        Raises
        ------
        NotImplementedError
        """
        raise NotImplementedError(f"{type(self).__name__} learns its own token representation; it has no "
                                  "attribute weights to rank")

    def summary(self, k: int = 5) -> dict:
        """A JSON-ready description of the model (what ``chaintag inspect`` prints).

        Returns
        -------
        dict
            The keys of :meth:`SequenceTagger.summary` (``params`` without the
            unused ``features``), with ``n_attributes``
            and ``n_features`` 0 and ``top_features`` empty (no attribute
            weights), ``n_weights`` the number of network parameters, plus
            ``vocabulary`` (sizes of the word, character and column vocabularies); ``transitions``
            is None for the softmax tagger, which has none.
        """
        self._check_fitted()
        enc = self.extractor_
        return {
            "algorithm": self.algorithm, "class": type(self).__name__,
            "params": {key: (list(v) if isinstance(v, tuple) else v) for key, v in self.get_params().items()
                       if key != "features"},  # accepted for a common interface, never used
            "training": getattr(self, "training_summary_", None), "best_epoch": getattr(self, "best_epoch_", None),
            "epochs_run": len(getattr(self, "history_", []) or []), "labels": list(self.labels_),
            "columns": list(self.columns_), "n_attributes": 0, "n_features": 0,
            "n_weights": int(len(self.weights_)), "nonzero_weights": int(np.count_nonzero(self.weights_)),
            "vocabulary": {"words": len(enc.words), "chars": len(enc.chars),
                           "columns": [len(v) for v in enc.extras]},
            "top_features": {}, "transitions": self.transitions_.to_dict() if self._crf else None,
            "file_format": getattr(self, "file_format_", None),
        }

    def to(self, device) -> "NeuralTagger":
        """Move a fitted model to a PyTorch ``device`` (e.g. ``"cuda"``) for tagging; returns ``self``."""
        self.device = str(device)
        self._device = self._torch_device()
        self.net_.to(self._device)
        return self
