"""Tokens given as feature dicts or lists of attribute names (the items of python-crfsuite and sklearn-crfsuite).

A token ``{"word.lower()": "the", "postag": "DT", "bias": 1.0, "BOS": True}``
becomes attributes by the rules of python-crfsuite's ``ItemSequence``:

- a string value ``v`` of key ``k`` gives the attribute ``k=v``;
- ``True`` gives the attribute ``k``; ``False`` gives nothing;
- a number gives the attribute ``k`` with that real value (``0`` gives
  nothing). The attribute's contribution to a score is ``value * weight``,
  so a value of 1 is the same as a present indicator attribute. Values
  other than 1 are read by learners whose kernels take them (the
  perceptron, the CRFs, (N-best) MIRA, SAPO: their one compiled step reads
  every entry's value, ``ent_val`` of
  :class:`chaintag.decoding.scoring.CorpusArrays`; max-ent: its design
  matrix and :mod:`chaintag.learners.maxent_kernels`); the extractor of any
  other learner refuses them (``real_values=False``);
- a nested dict ``{"p": {...}}`` gives the attributes of the inner dict
  with ``p:`` before each name (``{"nb": {"w[-1]": "He"}}`` gives
  ``nb:w[-1]=He``), at any depth;
- a list, tuple or set of strings ``{"p": ["a", "b"]}`` gives ``p:a`` and
  ``p:b``, each with the value 1;
- a token that is a list of strings ``["w=He", "bias"]`` gives each string
  as an attribute with the value 1.

A list token is read so only in training data given without the ``columns``
hyper-parameter (:func:`is_dict_corpus`); tuples are always rows of columns.
Real values must be finite and at most :data:`MAX_VALUE` in magnitude (a
weight update of ``value * step`` must stay finite); an int too large for a
float is refused the same way.

Attribute names are interned into a vocabulary built on the training data
(one dict lookup per (token, key): the only per-attribute Python work);
unseen attributes are dropped at prediction, as with templates. The result
is the CSR layout of :class:`chaintag.features.extract.Attributes`, plus a
float64 value per entry (``attr_values``; None when every value is 1).
"""

from __future__ import annotations

import numbers

import numpy as np

from ..errors import InputError
from ..io.writable import unwritable_text
from .extract import Attributes

#: The ``columns_`` of a model trained on feature dicts.
DICT_COLUMNS = ("<feature dict>",)


#: Largest magnitude of a real attribute value: products of two such values, and sums of many, stay finite.
MAX_VALUE = 1e150


def is_dict_corpus(sentences, lists: bool = False) -> bool:
    """True when the first token of the first non-empty sentence is a dict (a mapping), or, with
    ``lists``, a list (python-crfsuite's list of attribute names; a tuple is a row of columns)."""
    try:
        for sent in sentences:
            if isinstance(sent, (str, bytes)):
                return False
            for tok in sent:
                return isinstance(tok, dict) or (lists and type(tok) is list)
    except TypeError:
        return False
    return False


def dict_rows(sentences) -> list[list]:
    """Sentences of feature dicts (or lists of attribute names), checked.

    Raises
    ------
    InputError
        When a sentence is a string or a token is neither a dict nor a list,
        naming the sentence and the token.
    """
    if isinstance(sentences, str):
        raise InputError("expected a list of sentences, got a string")
    out = []
    for s, sent in enumerate(sentences):
        if isinstance(sent, (str, dict)):
            raise InputError(f"sentence {s} is a {type(sent).__name__}; a sentence is a list of tokens")
        sent = list(sent)
        for i, tok in enumerate(sent):
            if not isinstance(tok, (dict, list)):
                raise InputError(f"sentence {s}, token {i}: expected a feature dict (or a list of attribute "
                                 f"names) like the other tokens, got {type(tok).__name__} {tok!r:.60}")
        out.append(sent)
    return out


def _items(tok, where):
    """``(name, value, key)`` of every attribute of one token (dict or list of names), nested ones flattened."""
    if isinstance(tok, list):
        for j, name in enumerate(tok):
            if not isinstance(name, str):
                raise InputError(f"{where}: item {j} of the list of attribute names is a {type(name).__name__} "
                                 f"({name!r:.40}); a token given as a list holds attribute names (strings)")
            yield name, 1.0, name
        return
    for key, value in tok.items():
        if isinstance(value, dict):
            for name, v, _ in _items(value, where):
                yield f"{key}:{name}", v, key
        elif isinstance(value, (list, tuple, set, frozenset)):
            for item in (sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value):
                if not isinstance(item, str):
                    raise InputError(f"{where}: feature {key!r} has a value of type {type(value).__name__} holding "
                                     f"{item!r:.40} ({type(item).__name__}); a list value holds attribute names "
                                     "(strings), each giving key:name")
                yield f"{key}:{item}", 1.0, key
        else:
            item = _attribute(key, value, where)
            if item is not None:
                yield item[0], item[1], key


def _attribute(key, value, where):
    """``(name, value)`` of one dict item, or None when it gives no attribute."""
    if isinstance(value, str):
        return f"{key}={value}", 1.0
    if isinstance(value, (bool, np.bool_)):
        return (str(key), 1.0) if value else None
    if isinstance(value, numbers.Real):
        try:
            v = float(value)
        except OverflowError:
            v = np.inf
        if not np.isfinite(v) or abs(v) > MAX_VALUE:
            shown = f"{value!r}" if len(repr(value)) <= 40 else f"an int of {len(str(abs(int(value))))} digits"
            raise InputError(f"{where}: feature {key!r} has the value {shown}; values must be finite and at most "
                             f"{MAX_VALUE:g} in magnitude (scale it, or take its logarithm)")
        return (str(key), v) if v != 0.0 else None
    raise InputError(f"{where}: feature {key!r} has a value of type {type(value).__name__}; "
                     "values must be strings, booleans, numbers, dicts of them or lists of strings")


class DictAttributeExtractor:
    """Maps sentences of feature dicts to attribute ids and values.

    The interface is that of :class:`chaintag.features.extract.AttributeExtractor`
    (``fit_transform_counts``, ``transform``, ``prune``, ``n_attributes``,
    ``attribute_name``, ``state``/``from_state``); the returned
    :class:`Attributes` carry an extra ``attr_values`` array (float64, shape
    (n_entries,)) when some value differs from 1, else ``attr_values`` is None.
    """

    kind = "dict"

    def __init__(self, names: list[str] | None = None, real_values: bool = False, reader: str = "this learner"):
        self.names: list[str] = list(names or [])
        self.index = {n: k for k, n in enumerate(self.names)}
        self.real_values = bool(real_values)
        self.reader = reader

    @property
    def n_attributes(self) -> int:
        return len(self.names)

    @property
    def attr_keys(self) -> np.ndarray:
        """The attribute table as bytes (uint8 array: sha256 of the names), for checkpoint fingerprints."""
        import hashlib
        return np.frombuffer(hashlib.sha256("\0".join(self.names).encode("utf-8")).digest(), dtype=np.uint8)

    def _extract(self, sentences, grow: bool):
        index = self.index
        names = self.names
        lengths = [len(s) for s in sentences]
        sent_ptr = np.zeros(len(sentences) + 1, dtype=np.int64)
        np.cumsum(lengths, out=sent_ptr[1:])
        n_tokens = int(sent_ptr[-1])
        tok_ptr = np.zeros(n_tokens + 1, dtype=np.int64)
        ids: list[int] = []
        values: list[float] = []
        t = 0
        for s, sent in enumerate(sentences):
            for i, tok in enumerate(sent):
                seen = set()
                for name, v, key in _items(tok, f"sentence {s}, token {i}"):
                    value = v
                    if v != 1.0 and not self.real_values:
                        raise InputError(
                            f"sentence {s}, token {i}: feature {key!r} has the real value {value!r}, but "
                            f"{self.reader} reads only indicator attributes (strings, True/False, and the "
                            "numbers 1 = present and 0 = absent); drop the value or make it a string")
                    a = index.get(name)
                    if a is None:
                        if not grow:
                            continue
                        reason = unwritable_text(name)
                        if reason:
                            raise InputError(f"sentence {s}, token {i}: the attribute {name!r:.60} {reason}")
                        a = len(names)
                        index[name] = a
                        names.append(name)
                    if a in seen:  # two keys naming one attribute ("k=v" key and k: "v")
                        raise InputError(f"sentence {s}, token {i}: the attribute {name!r} is given twice")
                    seen.add(a)
                    ids.append(a)
                    values.append(v)
                t += 1
                tok_ptr[t] = len(ids)
        attr_ids = np.asarray(ids, dtype=np.int32)
        vals = np.asarray(values, dtype=np.float64)
        # sort each token's entries by attribute id, like the template extractor's per-template order
        if len(attr_ids):
            tok_of = np.repeat(np.arange(n_tokens), np.diff(tok_ptr))
            order = np.lexsort((attr_ids, tok_of))
            attr_ids, vals = attr_ids[order], vals[order]
        attrs = Attributes(sent_ptr, tok_ptr, attr_ids)
        attrs.attr_values = None if np.all(vals == 1.0) else vals
        return attrs

    def fit_transform_counts(self, sentences, labels=None, n_labels: int = 0):
        """Build the vocabulary on training data; returns ``(attrs, pairs)`` as the template extractor."""
        self.names, self.index = [], {}
        attrs = self._extract(sentences, grow=True)
        pairs = None
        if labels is not None:
            tok_of = np.repeat(np.arange(attrs.n_tokens), np.diff(attrs.tok_ptr))
            codes = attrs.attr_ids.astype(np.int64) * n_labels + np.asarray(labels, dtype=np.int64)[tok_of]
            codes, counts = np.unique(codes, return_counts=True)
            pairs = (codes.astype(np.int64), counts.astype(np.int64))
        return attrs, pairs

    def fit_transform(self, sentences) -> Attributes:
        return self.fit_transform_counts(sentences)[0]

    def transform(self, sentences) -> Attributes:
        """Attribute ids (and values) of new sentences; unseen attributes are dropped."""
        return self._extract(sentences, grow=False)

    def prune(self, keep: np.ndarray) -> np.ndarray:
        """Keep only the attributes where ``keep`` is True; returns the old -> new id map (-1: dropped)."""
        keep = np.asarray(keep, dtype=bool)
        remap = np.full(len(keep), -1, dtype=np.int32)
        remap[keep] = np.arange(int(keep.sum()), dtype=np.int32)
        self.names = [n for n, k in zip(self.names, keep.tolist()) if k]
        self.index = {n: k for k, n in enumerate(self.names)}
        return remap

    def attribute_name(self, attr: int) -> str:
        return self.names[attr]

    def state(self) -> tuple[dict, dict]:
        return {"kind": self.kind, "names": list(self.names)}, {}

    @classmethod
    def from_state(cls, meta: dict, arrays: dict) -> "DictAttributeExtractor":
        return cls(meta["names"])
