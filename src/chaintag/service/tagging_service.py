"""What ``chaintag serve`` does with a request, apart from HTTP: checks, limits and tagging.

:class:`TaggingService` takes a parsed JSON body (``{"sentences": ...}`` or ``{"text": ...}``), checks it
against the limits and the model, tags it and returns the answer as a dict; a bad request raises
:class:`RequestError` with its HTTP status. :mod:`chaintag.service.server` carries it over HTTP.
"""

from __future__ import annotations

import time

import threading

from ..errors import ChaintagError

#: Largest K of "nbest" and "confidence".
MAX_K = 100
OPTIONS = {"sentences", "nbest", "confidence", "marginals", "constrain", "fixed"}
#: The members of a request with raw text (``{"text": ...}``).
TEXT_OPTIONS = {"text", "lang", "tokenized", "constrain"}


class RequestError(Exception):
    """A bad request: HTTP ``status`` and a message for the client."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


class TaggingService:
    """Validates tagging requests and answers them with one loaded model (thread-safe: read-only).

    Parameters
    ----------
    model : fitted SequenceTagger
    name : str, optional
        Shown by ``/health`` (e.g. the model's path).
    max_sentences : int, default 10000
        Sentences per request.
    digest : str, optional
        The sha256 of the model's file, shown by :meth:`health` (which model is loaded).
    """

    def __init__(self, model, name: str | None = None, max_sentences: int = 10000, max_tokens: int = 200000,
                 max_work: int = 2000000, digest: str | None = None):
        from ..features.dicts import DICT_COLUMNS
        self.model = model
        self.name = name
        self.digest = digest
        self.loaded_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.max_sentences = int(max_sentences)
        self.max_tokens, self.max_work = int(max_tokens), int(max_work)
        from ..features.document import input_columns
        self.dict_tokens = tuple(model.columns_) == DICT_COLUMNS
        # the columns a request sends: a model's document columns are computed (one request, one document)
        self.columns = tuple(model.columns_) if self.dict_tokens else input_columns(model)
        self.n_columns = len(self.columns)
        self.requests = 0
        self.cancelled = 0  # requests stopped because their client went away
        self.batch_sentences = 256
        self._lock = threading.Lock()
        # raw text gives each token one column, the word: a model that reads more refuses it
        self.text_refusal = None
        if self.dict_tokens:
            self.text_refusal = ('this model reads feature dicts, not raw text: send {"sentences": [...]} '
                                 "with each token's features")
        elif self.n_columns != 1:
            self.text_refusal = (f"raw text gives each token one column (the word), but this model reads "
                                 f"{self.n_columns} ({', '.join(self.columns)}): send \"sentences\" with "
                                 "those columns")
        scheme = model.span_scheme().name if hasattr(model, "span_scheme") else "none"
        self.span_scheme = None if scheme == "none" else scheme

    def _stop_if_gone(self, cancelled, message: str) -> None:
        """Count and raise :class:`~chaintag.service.cancel.ClientGone` (with ``message``) when ``cancelled``
        says the client has left."""
        if cancelled is not None and cancelled():
            from .cancel import ClientGone
            with self._lock:
                self.cancelled += 1
            raise ClientGone(message)

    def warm_up(self) -> None:
        """Tag one short sentence with ``predict`` and (where the model has them) the n-best search and
        the marginals, so that their compiled kernels are loaded (or compiled, on a first run) before
        the first request: that request would otherwise wait seconds. Errors are ignored (a request
        gets its own)."""
        token = {} if self.dict_tokens else tuple("x" for _ in range(self.n_columns))
        sentence = [[token, token]]
        for call in (lambda: self.model.predict(sentence), lambda: self.model.predict_nbest(sentence, 2),
                     lambda: self.model.predict_marginals(sentence)):
            try:
                call()
            except Exception:  # noqa: BLE001 - warming only; the model's own refusals come with requests
                pass

    def health(self) -> dict:
        with self._lock:
            served = self.requests
        return {"status": "ok", "algorithm": self.model.algorithm, "labels": list(self.model.labels_),
                "columns": list(self.columns), "model": self.name, "model_sha256": self.digest,
                "loaded_at": self.loaded_at, "requests_served": served,
                "accepts_text": self.text_refusal is None, "span_scheme": self.span_scheme,
                "confidence": confidence_kind(self.model)}

    # ------------------------------------------------------------ validation
    def _tokens(self, sentences) -> list:
        if not isinstance(sentences, list):
            raise RequestError(400, '"sentences" must be a list of sentences (lists of tokens)')
        if len(sentences) > self.max_sentences:
            raise RequestError(413, f"{len(sentences)} sentences in one request; the limit is "
                                    f"{self.max_sentences}: split the batch")
        out = []
        for s, sent in enumerate(sentences):
            if not isinstance(sent, list):
                raise RequestError(400, f"sentence {s} is a {type(sent).__name__}, not a list of tokens")
            toks = []
            for i, tok in enumerate(sent):
                where = f"sentence {s}, token {i}"
                if self.dict_tokens:  # a feature dict, or python-crfsuite's list of attribute names
                    if not isinstance(tok, dict) and not (isinstance(tok, list)
                                                          and all(isinstance(v, str) for v in tok)):
                        raise RequestError(400, f"{where}: this model reads feature dicts (or lists of attribute "
                                                f"names), got {_kind(tok)}")
                    toks.append(tok)
                elif isinstance(tok, str):
                    if self.n_columns != 1:
                        raise RequestError(400, f"{where}: this model reads {self.n_columns} columns "
                                                f"({', '.join(self.columns)}): send a list of strings")
                    _check_value(tok, where)
                    toks.append((tok,))
                elif isinstance(tok, list) and all(isinstance(v, str) for v in tok):
                    if len(tok) != self.n_columns:
                        raise RequestError(400, f"{where}: {len(tok)} columns, the model reads "
                                                f"{self.n_columns} ({', '.join(self.columns)})")
                    for v in tok:
                        _check_value(v, where)
                    toks.append(tuple(tok))
                else:
                    raise RequestError(400, f"{where}: a token is a string or a list of column strings, "
                                            f"not {_kind(tok)}")
            out.append(toks)
        return out

    def _check_work(self, sentences, k: int, per_label: int) -> None:
        """Refuse (413) a request past the token limit, or whose work (tokens x K of the top-K search,
        or x labels for the marginals' answer) passes the work limit."""
        self._check_counts(sum(len(s) for s in sentences), k, per_label)

    def _check_counts(self, n: int, k: int, per_label: int = 1, what: str = "the batch") -> None:
        if n > self.max_tokens:
            raise RequestError(413, f"{n} tokens in one request; the limit is {self.max_tokens}: split {what}")
        work = n * max(k, per_label)
        if work > self.max_work:
            raise RequestError(413, f"{n} tokens x {max(k, per_label)} (the top-K, or the labels of the "
                                    f"marginals) is {work} units of work; the limit is {self.max_work}: "
                                    f"split {what} or ask for a smaller K")

    @staticmethod
    def _k(body, key):
        k = body.get(key)
        if k is None:
            return None
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
            raise RequestError(400, f'"{key}" must be an integer from 1 to {MAX_K}')
        return k

    def tag(self, body, cancelled=None) -> dict:
        """Answer one parsed request body (a dict); raises :class:`RequestError` for a bad one.

        ``cancelled``, when given, is called between batches of :attr:`batch_sentences` sentences;
        when it returns True the work stops with :class:`~chaintag.service.cancel.ClientGone`.
        """
        if not isinstance(body, dict):
            raise RequestError(400, 'the body must be a JSON object {"sentences": [...]} or {"text": "..."}')
        if "text" in body:
            return self.tag_text(body, cancelled)
        unknown = sorted(set(body) - OPTIONS)
        if unknown:
            raise RequestError(400, f"unknown member(s) {', '.join(unknown)}; expected {', '.join(sorted(OPTIONS))} "
                                    f"(or, with raw text, {', '.join(sorted(TEXT_OPTIONS))})")
        if "sentences" not in body:
            raise RequestError(400, 'the body has no "sentences" member (nor "text")')
        sentences = self._tokens(body["sentences"])
        if not self.dict_tokens:
            from ..features.document import model_rows
            sentences = model_rows(self.model, sentences)  # the request's sentences are one document
        nbest, confidence = self._k(body, "nbest"), self._k(body, "confidence")
        marginals = body.get("marginals", False)
        if not isinstance(marginals, bool):
            raise RequestError(400, '"marginals" must be true or false')
        self._check_work(sentences, nbest or confidence or 1, len(self.model.labels_) if marginals else 1)
        if sum(x is not None and x is not False for x in (nbest, confidence, marginals or None)) > 1:
            raise RequestError(400, 'ask for one of "nbest", "confidence", "marginals", not several')
        constrain = self._constrain(body)
        fixed = body.get("fixed")
        if fixed is not None and (not isinstance(fixed, list) or not all(
                x is None or (isinstance(x, list) and all(v is None or isinstance(v, str) for v in x))
                for x in fixed)):
            raise RequestError(400, '"fixed" must be a list (one per sentence) of lists of labels or null')
        kw = {"constrain": constrain, "fixed": fixed} if constrain or fixed is not None else {}
        try:
            out = self._answer(sentences, nbest, confidence, marginals, kw, cancelled)
        except NotImplementedError as exc:
            raise RequestError(501, str(exc)) from None
        except (ChaintagError, ValueError) as exc:
            raise RequestError(400, str(exc)) from None
        out["n_tokens"] = sum(len(s) for s in sentences)
        with self._lock:
            self.requests += 1
        return out

    @staticmethod
    def _constrain(body):
        constrain = body.get("constrain", False)
        from ..decoding.constraints import SCHEMES
        if not (isinstance(constrain, bool) or constrain in SCHEMES):
            raise RequestError(400, f'"constrain" must be true, false or a scheme ({", ".join(SCHEMES)})')
        return constrain

    def tag_text(self, body: dict, cancelled=None) -> dict:
        """Answer a request with raw text: ``{"text": ..., "lang", "tokenized", "constrain"}``.

        Parameters
        ----------
        body : dict
            The parsed request; ``text`` is split into sentences and tokens (or read as one
            tokenized sentence per line) and tagged as one document.
        cancelled : callable, optional
            Called before the tagging; when it returns True the work stops with
            :class:`~chaintag.service.cancel.ClientGone`.

        Returns
        -------
        dict
            The tagged document's JSON (:meth:`chaintag.text.Document.to_dict`): text, tokens with
            offsets and labels, spans with their confidence, sentences as token ranges.

        Raises
        ------
        RequestError
            400 for a bad member or a model that cannot read raw text, 413 for a text past the
            sentence, token or work limits, 501 for an option the model does not offer.
        """
        from ..text import LANGUAGES, pretokenized, split_text
        unknown = sorted(set(body) - TEXT_OPTIONS)
        if "sentences" in unknown:
            raise RequestError(400, 'send "text" or "sentences", not both')
        if unknown:
            raise RequestError(400, f"unknown member(s) {', '.join(unknown)} with \"text\"; expected "
                                    f"{', '.join(sorted(TEXT_OPTIONS))}")
        text = body["text"]
        if not isinstance(text, str):
            raise RequestError(400, f'"text" must be a string, not {_kind(text)}')
        lang = body.get("lang", "en")
        if not isinstance(lang, str) or lang not in LANGUAGES:
            raise RequestError(400, f'unknown language {lang!r}: "lang" is one of {", ".join(LANGUAGES)}')
        tokenized = body.get("tokenized", False)
        if not isinstance(tokenized, bool):
            raise RequestError(400, '"tokenized" must be true or false')
        constrain = self._constrain(body)
        if self.text_refusal:
            raise RequestError(400, self.text_refusal)
        # the top-n of the span confidence (SAPO, second order, max-ent, or any model constrained)
        topn = constrain or getattr(self.model, "span_confidence", "") == "top-n"
        k = int(getattr(self.model, "n_best", 5) or 5) if topn else 1
        # the words are at most the tokens: a text far past the limit is refused before it is split
        self._check_counts(len(text.split()), k, what="the text")
        self._stop_if_gone(cancelled, "the client left before its text was split")  # while it waited
        doc = pretokenized(text) if tokenized else split_text(text, lang)
        if len(doc.sentences) > self.max_sentences:
            raise RequestError(413, f"the text has {len(doc.sentences)} sentences; the limit is "
                                    f"{self.max_sentences}: split it")
        self._check_counts(len(doc.tokens), k)
        self._stop_if_gone(cancelled, f"the client left before its {len(doc.tokens)} tokens were tagged")
        try:
            tagged = self.model.tag_documents([doc], confidence=True, constrain=constrain)[0]
        except NotImplementedError as exc:
            raise RequestError(501, str(exc)) from None
        except (ChaintagError, ValueError) as exc:
            raise RequestError(400, str(exc)) from None
        with self._lock:
            self.requests += 1
        return tagged.to_dict()

    def _answer(self, sentences, nbest, confidence, marginals, kw, cancelled) -> dict:
        """The model's answer, computed in batches of sentences (each sentence is tagged on its own)."""
        m, step = self.model, self.batch_sentences
        out = {"labels": []}
        if nbest:
            out["nbest"] = []
        elif confidence:
            out["confidence"] = []
        elif marginals:
            out["marginals"] = []
        fixed = kw.get("fixed")
        for a in range(0, max(len(sentences), 1), step):
            self._stop_if_gone(cancelled, f"the client left after {a} of {len(sentences)} sentences")
            part = sentences[a:a + step]
            opts = dict(kw, fixed=fixed[a:a + step]) if fixed is not None else kw
            if nbest:
                cands = m.predict_nbest(part, nbest, **opts)
                out["labels"] += [c[0][0] for c in cands]
                out["nbest"] += [[{"labels": labs, "score": sc, "probability": p} for labs, sc, p in c]
                                 for c in cands]
            elif confidence:
                labels, conf = m.predict_confidence(part, confidence, **opts)
                out["labels"] += labels
                out["confidence"] += conf
            else:
                out["labels"] += m.predict(part, **opts)
                if marginals:
                    labs = m.labels_
                    out["marginals"] += [[dict(zip(labs, row)) for row in marg.tolist()]
                                         for marg in m.predict_marginals(part, **opts)]
        return out


def _check_value(value: str, where: str) -> None:
    """Refuse (400) an empty token or column value, or one of whitespace only: no text or column file
    holds it, and the model would tag it as a word."""
    if not value.strip():
        raise RequestError(400, f"{where}: an empty token (or one of whitespace only); leave it out")


def _kind(x) -> str:
    return "null" if x is None else type(x).__name__


def confidence_kind(model) -> str | None:
    """What a span's confidence is for ``model``: ``"probability"`` (trained to be one), ``"relative"`` (the
    perceptron's and MIRA's: not a probability) or None (no confidence)."""
    if getattr(model, "span_confidence", None) is None:
        return None
    return "probability" if getattr(model, "confidence_is_probability", True) else "relative"
