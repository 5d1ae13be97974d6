"""Declarative experiment configuration: which data, which learner, how many epochs.

A paper reproduction is a list of :class:`Run` objects (see
:mod:`chaintag_research.collins2002` and :mod:`chaintag_research.sapo`).
A run names its data by :class:`DataRef` (a dataset reference such as
``conll2000_np:train`` plus an optional slice of its sentences), its learner
by the name :func:`chaintag.make_learner` takes, and the learner's
hyper-parameters as a plain dict. Its :meth:`Run.digest` hashes everything
that changes the result (not its display names), so identical runs made
by two experiments share one cached result.
"""

from __future__ import annotations

import hashlib
import inspect
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from chaintag import __version__

#: Bumped when the runner's way of producing results changes, to invalidate cached runs.
RUNNER_VERSION = 2


@dataclass(frozen=True)
class DataRef:
    """A dataset split, or a contiguous part of its sentences.

    Attributes
    ----------
    ref : str
        Dataset reference (``"conll2000:train"``) or path, as
        :func:`chaintag.load_corpus` takes.
    start, stop : float, default 0.0 and 1.0
        Keep sentences ``round(start * n) .. round(stop * n) - 1`` (fractions
        of the ``n`` sentences, in file order): ``start=0.9`` keeps the last
        10 %.
    limit : int or None, default None
        Then keep at most the first ``limit`` sentences of that part (used
        by the quick mode).
    seed : int or None, default None
        When given, ``start`` and ``stop`` cut a random permutation of the
        sentences drawn with ``numpy.random.default_rng(seed)`` instead of
        the file order, and the kept sentences stay in file order: a
        seeded random dev split carved from a training file is
        ``DataRef(ref, 0.9, 1.0, seed=0)``, its complement
        ``DataRef(ref, 0.0, 0.9, seed=0)``.

    Examples
    --------
    >>> DataRef("conll2000_np:train", 0.9, 1.0).describe()
    'conll2000_np:train, sentences 90%-100%'
    >>> DataRef("ptb_sample:test", limit=200).describe()
    'ptb_sample:test, first 200 sentences'
    >>> DataRef("conll2000:train", 0.9, 1.0, seed=0).describe()
    'conll2000:train, sentences 90%-100% of a random order (seed 0)'
    """

    ref: str
    start: float = 0.0
    stop: float = 1.0
    limit: int | None = None
    seed: int | None = None

    def __post_init__(self):
        if not 0.0 <= self.start < self.stop <= 1.0:
            raise ValueError(f"need 0 <= start < stop <= 1, got {self.start} and {self.stop}")
        if self.limit is not None and self.limit < 1:
            raise ValueError("limit must be at least 1")

    def bounds(self, n_sentences: int) -> tuple[int, int]:
        """Sentence range ``[lo, hi)`` kept out of ``n_sentences``."""
        lo, hi = round(self.start * n_sentences), round(self.stop * n_sentences)
        if self.limit is not None:
            hi = min(hi, lo + self.limit)
        return lo, hi

    def indices(self, n_sentences: int) -> np.ndarray:
        """Indices (ascending, dtype int64) of the sentences kept out of ``n_sentences``."""
        lo, hi = round(self.start * n_sentences), round(self.stop * n_sentences)
        if self.seed is None:
            idx = np.arange(lo, hi, dtype=np.int64)
        else:
            idx = np.sort(np.random.default_rng(self.seed).permutation(n_sentences)[lo:hi]).astype(np.int64)
        return idx if self.limit is None else idx[:self.limit]

    def describe(self) -> str:
        """Human-readable description, for reports."""
        text = self.ref
        if (self.start, self.stop) != (0.0, 1.0):
            text += f", sentences {self.start:.0%}-{self.stop:.0%}"
            if self.seed is not None:
                text += f" of a random order (seed {self.seed})"
        if self.limit is not None:
            text += f", first {self.limit} sentences" if (self.start, self.stop) == (0.0, 1.0) \
                else f" (at most {self.limit})"
        return text

    def to_dict(self) -> dict:
        out = {"ref": self.ref, "start": self.start, "stop": self.stop, "limit": self.limit}
        if self.seed is not None:
            out["seed"] = self.seed
        return out


@dataclass(frozen=True)
class Run:
    """One training run: a learner with its settings on one task.

    Attributes
    ----------
    key : str
        Identifier within its experiment (e.g. ``"np/perc-avg-cc0"``).
    label : str
        Display name in reports (e.g. ``"Perc, avg, cc=0"``).
    task : str
        Task identifier shared by the runs compared together (``"np"``).
    learner : str
        Name for :func:`chaintag.make_learner` (``"perceptron"``, ``"sapo"``,
        ``"maxent"``, ...).
    params : dict
        Hyper-parameters of the learner, except ``features`` and ``epochs``.
    features : str
        Attribute preset (``"pos"``, ``"chunking"``, ``"ner"``) or template specs.
    epochs : int
        Passes over the training data; the test set is scored after each one.
        Learners without epochs (``maxent``) are trained once; set 1.
    train, test : DataRef
    dev : DataRef or None
        Held-out data for choosing the epoch (scored after each epoch too).
    metric : {"accuracy", "f1"}
        The task's score: token accuracy (POS) or chunk F1 (chunking, NER).
    """

    key: str
    label: str
    task: str
    learner: str
    params: dict[str, Any] = field(default_factory=dict)
    features: str = "pos"
    epochs: int = 10
    train: DataRef = None
    test: DataRef = None
    dev: DataRef | None = None
    metric: str = "accuracy"

    def __post_init__(self):
        if self.metric not in ("accuracy", "f1"):
            raise ValueError(f"metric must be 'accuracy' or 'f1', not {self.metric!r}")
        if self.epochs < 1:
            raise ValueError("epochs must be at least 1")
        if self.train is None or self.test is None:
            raise ValueError(f"run {self.key}: train and test data are required")
        cls = learner_class(self.learner)
        accepted = set(inspect.signature(cls.__init__).parameters) - {"self"}
        unknown = set(self.params) - accepted
        if unknown or {"features", "epochs", "progress"} & set(self.params):
            raise ValueError(f"run {self.key}: parameters {sorted(unknown or set(self.params))} are "
                             f"not hyper-parameters of {self.learner} (features and epochs are fields)")
        if "epochs" not in accepted and self.epochs != 1:
            raise ValueError(f"run {self.key}: {self.learner} has no epochs; set epochs=1")

    def config(self) -> dict:
        """Everything that determines the result, as JSON-ready data."""
        return {"learner": self.learner, "params": dict(sorted(self.params.items())),
                "features": self.features, "epochs": self.epochs, "metric": self.metric,
                "train": self.train.to_dict(), "dev": self.dev.to_dict() if self.dev else None,
                "test": self.test.to_dict()}

    def digest(self, data_digests: dict[str, str] | None = None, code: bool = True) -> str:
        """sha256 of :meth:`config`, the data files' digests and the code (:func:`code_digest`).

        Parameters
        ----------
        data_digests : dict, optional
            sha256 of each data file, by reference; include them so that
            changed data files invalidate cached results.
        code : bool
            Include the code digest (and the library's version). False gives the digest of the settings
            and data alone, by which a run trained by older code is found (``reuse_older_code``).
        """
        payload = {"config": self.config(), "data": data_digests or {}, "runner": RUNNER_VERSION}
        if code:
            payload.update(chaintag=__version__, code=code_digest())
        return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


#: Subpackages whose code determines a run's numbers (hashed by :func:`code_digest`).
CODE_PACKAGES = ("data", "decoding", "evaluation", "features", "io", "learners")
_CODE_DIGEST: list[str] = []


def code_digest() -> str:
    """sha256 of the Python sources that produce a run's results (once per process).

    Covers the modules of :data:`CODE_PACKAGES` (learners, decoders, attribute
    extraction, evaluation, input), so that cached runs are not reused after
    the code that trained them changed; the reporting code is not included.
    """
    if not _CODE_DIGEST:
        import chaintag
        root = Path(chaintag.__file__).resolve().parent  # the installed library, not this package
        h = hashlib.sha256()
        for package in CODE_PACKAGES:
            for path in sorted((root / package).rglob("*.py")):
                h.update(path.relative_to(root).as_posix().encode())
                h.update(path.read_bytes())
        _CODE_DIGEST.append(h.hexdigest())
    return _CODE_DIGEST[0]


def learner_class(name: str) -> type:
    """The learner class of a :func:`chaintag.make_learner` name (:func:`chaintag.learners.learner_class`).

    Raises
    ------
    ValueError
        For an unknown name, naming the close ones.
    """
    from chaintag.learners import learner_class as chaintag_learner_class
    return chaintag_learner_class(name)


def has_learner(name: str) -> bool:
    """Whether :func:`learner_class` knows ``name``."""
    try:
        learner_class(name)
    except ValueError:
        return False
    return True
