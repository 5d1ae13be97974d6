"""Spans (chunks, entities) with their confidence, for every learner.

A learner says on itself how it scores a span, in ``span_confidence``:

``"forward-backward"``
    The exact probability of the whole span under ``exp(score) / Z`` (a
    constrained forward-backward over the sentence, :mod:`chaintag.decoding.
    spans`). For CRF-trained models (``crf``, ``crf-lbfgs``, ``bilstm-crf``)
    and the softmax tagger (``bilstm``) it is the model's own probability.
    For the perceptron and MIRA, which are not trained to calibrate
    ``exp(score)``, it is a relative confidence.
``"top-n"``
    The summed probability of the top-n label sequences that hold the span,
    the probabilities being the softmax of their scores over the top-n: the
    distribution SAPO trains (Sun et al., section 2), also used by the
    second-order SAPO. n is the learner's ``n_best`` (5 when it has none).
``None``
    No confidence (``None`` in each span): the learner has no n-best search
    (the second-order perceptron, the maximum-entropy tagger).

With ``constrain`` (or ``fixed`` labels) every learner with an n-best search uses the top-n of the
valid sequences; the others take ``predict``'s constrained labels.
"""

from __future__ import annotations

import numpy as np

__all__ = ["SpanMixin"]


class SpanMixin:
    """``predict_spans``: labels, and the spans they make with each span's probability."""

    #: How span confidence is computed: ``"forward-backward"`` or ``"top-n"`` (see the module text).
    span_confidence = "forward-backward"
    #: Whether that confidence is a probability the learner was trained to give (CRF, SAPO's top-n, the
    #: neural taggers); False: a relative score (the perceptron and MIRA: most spans come out at
    #: 0.99-1.00, right or wrong). ``chaintag serve`` says which on ``/health`` and its page.
    confidence_is_probability = True

    def span_scheme(self, scheme: str | None = None):
        """The chunk scheme that reads this model's labels into spans.

        Parameters
        ----------
        scheme : str, optional
            A scheme name (``iob2``, ``iobes``, ...); default: the scheme of the training labels
            (recorded in the model), else detected from the label set.

        Returns
        -------
        chaintag.evaluation.schemes.Scheme
            ``name`` is ``"none"`` for labels that make no chunks (POS tags).
        """
        from ..evaluation.schemes import detect_scheme
        self._check_fitted()
        recorded = (getattr(self, "training_summary_", None) or {}).get("label_scheme")
        return detect_scheme([list(self.labels_)], (), scheme or recorded or "auto")

    def predict_spans(self, sentences, *, confidence: bool = True, constrain=False, scheme: str | None = None,
                      fixed=None):
        """Best labels, and the spans (chunks, entities) they make, with each span's probability.

        Parameters
        ----------
        sentences : sequence of sequences of tokens
            As for ``predict``.
        confidence : bool, default True
            Compute each span's probability (see the module text for how each learner does; None for a
            learner without an n-best search).
        constrain : bool or str, default False
            As for ``predict``.
        scheme : str, optional
            The chunk scheme (default: :meth:`span_scheme`).
        fixed : sequence of sequences of (str or None), optional
            Labels some tokens must take, as for ``predict`` (first-order models); the spans' confidence
            is then read from the top-n of the sequences that keep them, as with ``constrain``.

        Returns
        -------
        labels : list of list of str
            ``predict``'s labels.
        spans : list of list of (str, int, int, float or None)
            Per sentence, ``(type, first, last, confidence)`` with ``last`` exclusive: the chunks that
            :func:`chaintag.evaluation.evaluate` counts in ``labels``, in order; empty for labels
            that make no chunks. ``confidence`` is in [0, 1], None without ``confidence``.

        Raises
        ------
        chaintag.errors.InputError
            For a sentence given as a string, and (``fixed``) labels of another shape than the sentences'
            or unknown to the model.
        NotImplementedError
            For ``fixed`` with a model that has no constrained search (the second-order perceptron).
        """
        from ..errors import InputError
        from ..evaluation.chunks import _scan
        from .tokens import materialise
        sentences = materialise(sentences, "input")
        for i, sent in enumerate(sentences):
            if isinstance(sent, str):
                raise InputError(f"sentence {i} is a string; a sentence is a list of tokens (split it into words "
                                 "first, or use tag_text for raw text)")
        chosen = self.span_scheme(scheme)
        kw = {} if not constrain and fixed is None else (
            {"constrain": constrain} if fixed is None else {"constrain": constrain, "fixed": fixed})
        nbest = None
        if kw and self.span_confidence is not None:
            nbest = self.predict_nbest(sentences, self._span_n(), **kw)
            labels = [c[0][0] if c else [] for c in nbest]
        else:  # a learner without an n-best search decodes (and refuses what it cannot do) in predict
            labels = self.predict(sentences, **kw)
        if not chosen.is_chunking:
            return labels, [[] for _ in labels]
        read = dict(chosen.read)
        for lab in self.labels_:
            read.setdefault(lab, ("O", ""))
        chunks = [_scan(seq, read) for seq in labels]
        if not confidence or self.span_confidence is None:
            return labels, [[(x, a, b, None) for x, a, b in cs] for cs in chunks]
        if nbest is not None or self.span_confidence == "top-n":
            probs = self._span_probs_topn(sentences, chunks, read, nbest)
        else:
            probs = self._span_probs_chain(sentences, chunks, read)
        return labels, [[(x, a, b, p) for (x, a, b), p in zip(cs, ps)] for cs, ps in zip(chunks, probs)]

    def tag_text(self, text: str, lang: str = "en", *, tokenized: bool = False, confidence: bool = True,
                 constrain=False, scheme: str | None = None, pos_model=None):
        """Tag raw text: split it into sentences and tokens, label them, and read off the spans.

        Parameters
        ----------
        text : str
            Raw text (``tokenized=False``), or text already tokenized: one sentence per line, tokens
            separated by whitespace.
        lang : {"en", "es", "nl", "de"}
            The tokenizer's conventions (:func:`chaintag.text.split_text`).
        tokenized : bool, default False
            Read ``text`` as already tokenized (:func:`chaintag.text.pretokenized`).
        confidence, constrain, scheme
            As for :meth:`predict_spans`.
        pos_model : SequenceTagger, str or os.PathLike, optional
            For a model that reads words and POS tags (``word, pos``: a chunker): a model that reads
            words and gives the POS tags (``"en-pos"``, a file, or a loaded model), as :meth:`tag_documents`.

        Returns
        -------
        chaintag.text.Document
            Tokens with their character offsets into ``text`` and labels; spans (chunks, entities)
            with offsets, text and confidence.

        Raises
        ------
        chaintag.errors.InputError
            For a model that reads more than the words (a column such as ``pos`` that raw text
            does not have), or an unknown language.
        """
        from ..text import pretokenized, split_text
        doc = pretokenized(text) if tokenized else split_text(text, lang)
        return self.tag_documents([doc], confidence=confidence, constrain=constrain, scheme=scheme,
                                  pos_model=pos_model)[0]

    def tag_documents(self, documents, *, confidence: bool = True, constrain=False, scheme: str | None = None,
                      pos_model=None):
        """Label the tokens of documents (:class:`chaintag.text.Document`) and fill in their spans.

        Parameters
        ----------
        documents : list of Document
            Split into sentences and tokens (labels not yet set); tagged together in one batch.
        confidence, constrain, scheme
            As for :meth:`predict_spans`.
        pos_model : SequenceTagger, str or os.PathLike, optional
            A model that reads words and gives POS tags (or its file, or a known model's name:
            ``"en-pos"``): for a model that reads ``word, pos``, the ``pos`` column of each token is
            its tag (the pipeline of a chunker on raw text).

        Returns
        -------
        list of Document
            New documents: the same text and tokens, each token with its label, and the spans.

        Raises
        ------
        chaintag.errors.InputError
            For a model that reads more columns than the words (without ``pos_model``, or other
            columns than ``word, pos``), or a ``pos_model`` that reads more than the words.
        """
        from ..errors import InputError
        from ..features.document import input_columns
        from ..text import Document, Span, Token
        cols = list(input_columns(self))
        if pos_model is not None:
            pos_model = self._as_model(pos_model, "pos_model")  # a model, its file or a known name
        piped = pos_model is not None and cols == ["word", "pos"]
        if len(cols) != 1 and not piped:
            hint = ""
            if cols == ["word", "pos"]:
                values = getattr(self.extractor_, "column_values", None)
                tags = values("pos") if values is not None else set()
                from ..models.catalog import PENN_TAGS
                penn = bool(tags) and len(tags & PENN_TAGS) * 2 >= len(tags)
                hint = ("; a POS model of the same tags gives the pos column: "
                        + ("--pos-model en-pos (pos_model=chaintag.load('en-pos'); Penn Treebank tags)" if penn else
                           f"--pos-model M, M a model of this model's tags ({', '.join(sorted(tags)[:6])}, ...)")
                        + "; or train on the words alone (--columns word,_,label) to tag raw text")
            raise InputError(f"text (raw or pretokenized) gives each token one column (the word), but this model "
                             f"reads {len(cols)} ({', '.join(cols)}): tag a column file that has them{hint}")
        if pos_model is not None and not piped:
            raise InputError("a POS model gives the pos column of a model that reads words and POS tags; this "
                             "model reads the words alone: leave out --pos-model (pos_model)")
        if piped and len(input_columns(pos_model)) != 1:
            raise InputError(f"the POS model reads {', '.join(input_columns(pos_model))}: it must read the words alone")
        if piped:
            _check_pos_labels(self, pos_model)
        sents = [s for doc in documents for s in doc.sentence_tokens()]
        if piped and sents:
            sents = _piped_tokens(self, sents, pos_model.predict(sents))
        labels, spans = self.predict_spans(sents, confidence=confidence, constrain=constrain, scheme=scheme) \
            if sents else ([], [])
        out, k = [], 0
        for doc in documents:
            tokens = list(doc.tokens)
            found = []
            for first, last in doc.sentences:
                for i, lab in zip(range(first, last), labels[k]):
                    t = tokens[i]
                    tokens[i] = Token(t.text, t.start, t.end, lab)
                for x, a, b, p in spans[k]:
                    start, end = tokens[first + a].start, tokens[first + b - 1].end
                    found.append(Span(x, start, end, doc.text[start:end], p, first + a, first + b))
                k += 1
            out.append(Document(doc.text, tokens, list(doc.sentences), found, doc.line))
        return out

    def _span_n(self) -> int:
        return int(getattr(self, "n_best", 5) or 5)

    def _span_probs_topn(self, sentences, chunks, read, nbest=None) -> list[list[float]]:
        from ..decoding.spans import span_probs_topn
        from ..evaluation.chunks import _scan
        if nbest is None:
            nbest = self.predict_nbest(sentences, self._span_n())
        out = []
        for cands, cs in zip(nbest, chunks):
            listed = [(set(_scan(labs, read)), p) for labs, _, p in cands]
            out.append(span_probs_topn(listed, cs))
        return out

    def _span_arrays(self, chunks, read):
        """The chunk masks of the labels, and the spans as flat arrays for the kernels."""
        from ..decoding.spans import chunk_masks
        type_id, starts, ends, types = chunk_masks(list(self.labels_), read)
        span_ptr = np.zeros(len(chunks) + 1, dtype=np.int64)
        span_ptr[1:] = np.cumsum([len(cs) for cs in chunks])
        spans = np.zeros((int(span_ptr[-1]), 3), dtype=np.int64)
        k = 0
        for cs in chunks:
            for x, a, b in cs:
                spans[k] = (types.index(x), a, b)
                k += 1
        return type_id, starts, ends, span_ptr, spans

    def _span_probs_chain(self, sentences, chunks, read) -> list[list[float]]:
        """Exact span probabilities under a first-order linear model's scores (compiled corpus pass)."""
        from ..decoding.scoring import entry_values, feature_entries
        from ..decoding.spans import span_log_probs_corpus
        type_id, starts, ends, span_ptr, spans = self._span_arrays(chunks, read)
        out = np.full(len(spans), -np.inf)
        attrs = self.extractor_.transform(self._rows(sentences))
        L = len(self.labels_)
        if len(spans):
            ent_lo, ent_n = feature_entries(attrs.attr_ids, self.feature_index_.feat_ptr, L)
            span_log_probs_corpus(attrs.sent_ptr, attrs.tok_ptr, ent_lo, ent_n, entry_values(attrs),
                                  self.feature_index_.feat_label, self.weights_, L, span_ptr, spans,
                                  type_id, starts, ends, out)
        return _split_probs(out, span_ptr)

    def _span_probs_scores(self, chains, chunks, read) -> list[list[float]]:
        """Exact span probabilities from per-sentence ``(E, trans, start, end)`` score arrays."""
        from ..decoding.spans import span_log_probs
        type_id, starts, ends, span_ptr, spans = self._span_arrays(chunks, read)
        out = np.full(len(spans), -np.inf)
        for s, (E, trans, start, end) in enumerate(chains):
            k0, k1 = int(span_ptr[s]), int(span_ptr[s + 1])
            if k1 > k0:
                span_log_probs(np.ascontiguousarray(E, dtype=np.float64), trans, start, end, spans[k0:k1],
                               type_id, starts, ends, out[k0:k1])
        return _split_probs(out, span_ptr)


def _split_probs(log_probs, span_ptr) -> list[list[float]]:
    probs = np.clip(np.exp(log_probs), 0.0, 1.0).tolist()
    bounds = span_ptr.tolist()
    return [probs[bounds[s]:bounds[s + 1]] for s in range(len(bounds) - 1)]


#: The Penn Treebank's escapes of brackets in words (the WSJ files, CoNLL-2000: ``-LRB-``), against the
#: brackets themselves (raw text, UD EWT).
BRACKET_WORDS = {"(": "-LRB-", ")": "-RRB-", "[": "-LSB-", "]": "-RSB-", "{": "-LCB-", "}": "-RCB-"}
#: The two Penn Treebank conventions for the tags of round brackets: ``(`` ``)`` (WSJ, CoNLL-2000) and
#: ``-LRB-`` ``-RRB-`` (UD EWT's XPOS, the en-pos model).
BRACKET_TAGS = {"(": "-LRB-", ")": "-RRB-"}


#: Each bracket form with its other form, both ways (``(`` -> ``-LRB-``, ``-LRB-`` -> ``(``).
_OTHER_WORD = {**BRACKET_WORDS, **{v: k for k, v in BRACKET_WORDS.items()}}
_OTHER_TAG = {**BRACKET_TAGS, **{v: k for k, v in BRACKET_TAGS.items()}}


def _other_form(value: str, other_forms: dict, knows) -> str:
    """``value``, or its other form when only that one is known (``knows(v)``: True, False, or None when no
    template reads the column)."""
    other = other_forms.get(value)
    if other is None or knows(value) is not False:
        return value
    return other if knows(other) else value


def _piped_tokens(model, sentences, tags) -> list:
    """``(word, tag)`` tokens for ``model`` from words and a POS model's tags, brackets written as the model
    read them in training (through its templates' functions: ``lower(w[0])`` saw ``-lrb-``): a chunker of
    CoNLL-2000 (words ``-LRB-``, tags ``(``) given raw text's ``(`` and en-pos's ``-LRB-`` saw an unknown
    word and an unknown tag, and put brackets in chunks."""
    knows = getattr(model.extractor_, "knows", None)
    if knows is None:  # feature-dict extractors
        return [list(zip(words, sent_tags)) for words, sent_tags in zip(sentences, tags)]
    word = lambda v: knows("word", v)  # noqa: E731
    tag = lambda v: knows("pos", v)  # noqa: E731
    return [[(_other_form(w, _OTHER_WORD, word), _other_form(t, _OTHER_TAG, tag))
             for w, t in zip(words, sent_tags)] for words, sent_tags in zip(sentences, tags)]


def _check_pos_labels(model, pos_model) -> None:
    """Refuse a POS model whose labels are mostly not the POS tags ``model`` was trained on (an NER
    model, or Universal tags for a chunker of Penn Treebank tags), which would tag silently wrong.

    The tags ``model`` knows are the values of its ``pos`` column as read (no function applied);
    a model without them is not checked.

    Raises
    ------
    chaintag.errors.InputError
        When fewer than half of the POS model's labels are among them.
    """
    from ..errors import InputError
    values = getattr(model.extractor_, "column_values", None)  # feature-dict extractors have none
    known = values("pos") if values is not None else set()
    if not known:
        return
    given = list(pos_model.labels_)
    shared = [lab for lab in given if lab in known]
    if 2 * len(shared) < len(given):
        raise InputError(f"the POS model's labels are not the POS tags this model was trained on: "
                         f"{len(shared)} of its {len(given)} labels ({', '.join(given[:6])}"
                         f"{', ...' if len(given) > 6 else ''}) are among the model's {len(known)} tags "
                         f"({', '.join(sorted(known)[:6])}, ...): give a POS model of the same tag set "
                         "(en-pos: Penn Treebank tags)")
