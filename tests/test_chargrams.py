"""Character n-gram attributes (cngramK(...)): several attributes per token, against sets made by hand."""

import itertools
import os
from collections import Counter

import numpy as np
import pytest

import chaintag
from chaintag.cli.main import main
from chaintag.errors import InputError
from chaintag.features.chargrams import char_grams, merge_csr
from chaintag.features.extract import AttributeExtractor
from chaintag.features.templates import parse_template, resolve_templates
from toy_corpus import LABELS, SENTS


def test_char_grams_of_a_value():
    assert char_grams("IL-2", 3) == ["<IL", "IL-", "L-2", "-2>"]
    assert char_grams("IL-2", 1) == ["<", "I", "L", "-", "2", ">"]
    assert char_grams("aaaa", 2) == ["<a", "aa", "a>"]  # distinct n-grams only
    assert char_grams("ab", 4) == ["<ab>"]
    assert char_grams("ab", 5) == ["<ab>"]
    assert char_grams("", 2) == ["<>"]


def _by_hand(sent, i, specs):
    """The attribute names of token i: w[0] and each (k, offset) n-gram template, from char_grams."""
    out = {"bias", f"word[0]={sent[i][0]}"}
    for k, off, low in specs:
        j = i + off
        if 0 <= j < len(sent):
            v = sent[j][0].lower() if low else sent[j][0]
            inner = f"lower(word[{off}])" if low else f"word[{off}]"
            out |= {f"cngram{k}({inner})={g}" for g in char_grams(v, k)}
    return out


SPECS = [(3, 0, False), (2, -1, True)]
FEATURES = "w[0];cngram3(w[0]);cngram2(lower(w[-1]))"


def test_extractor_gives_every_ngram_and_counts_pairs():
    sents = [[(w,) for w, _ in s] for s in SENTS]
    labels = [lab for s in LABELS for lab in s]
    names = sorted(set(labels))
    y = np.asarray([names.index(lab) for lab in labels], dtype=np.int32)
    ex = AttributeExtractor(resolve_templates(FEATURES, ["word"]), ["word"])
    attrs, (codes, counts) = ex.fit_transform_counts(sents, y, len(names))
    expect_pairs = Counter()
    i = 0
    for sent in sents:
        for k in range(len(sent)):
            got = [ex.attribute_name(a) for a in attrs.attr_ids[attrs.tok_ptr[i]:attrs.tok_ptr[i + 1]]]
            assert len(got) == len(set(got)) and set(got) == _by_hand(sent, k, SPECS)
            expect_pairs.update((name, int(y[i])) for name in got)
            i += 1
    got_pairs = {(ex.attribute_name(int(c) // len(names)), int(c) % len(names)): int(n) for c, n in zip(codes, counts)}
    assert got_pairs == dict(expect_pairs)
    # new text: n-grams that no training token had are dropped; out-of-sentence offsets read nothing
    new = [[("Dogs",), ("barked",)]]
    seen = {ex.attribute_name(a) for a in range(ex.n_attributes)}
    out = ex.transform(new)
    for k in range(2):
        got = {ex.attribute_name(a) for a in out.attr_ids[out.tok_ptr[k]:out.tok_ptr[k + 1]]}
        assert got == _by_hand(new[0], k, SPECS) & seen
    assert "cngram3(word[0])=ked" not in seen and "cngram3(word[0])=bar" in seen


def test_merge_csr_appends_after_each_token():
    ptr, ids = merge_csr(np.array([0, 2, 2, 3]), np.array([5, 6, 7], dtype=np.int32),
                         np.array([1, 2, 0]), np.array([10, 11, 12]))
    assert ptr.tolist() == [0, 3, 5, 6] and ids.tolist() == [5, 6, 10, 11, 12, 7]


def _dense_scores(model, sent):
    ex, index = model.extractor_, model.feature_index_
    L = len(model.labels_)
    E = np.zeros((len(sent), L))
    names = {ex.attribute_name(a): a for a in range(ex.n_attributes)}
    for i in range(len(sent)):
        for name in _by_hand(sent, i, SPECS):
            a = names.get(name)
            if a is None:
                continue
            for f in range(index.feat_ptr[a], index.feat_ptr[a + 1]):
                E[i, index.feat_label[f]] += model.weights_[f]
    from chaintag.decoding.scoring import weight_views
    trans, start, end = (np.asarray(v) for v in weight_views(model.weights_, index.n_features, L))
    return E, trans, start, end


@pytest.mark.parametrize("name", ["SAPO", "StructuredPerceptron", "CRF"])
def test_predictions_equal_brute_force_over_ngram_scores(name):
    sents = [[(w,) for w, _ in s] for s in SENTS]
    model = getattr(chaintag, name)(features=FEATURES, columns=("word",), epochs=3).fit(sents, LABELS)
    test = [[("the",), ("cows",), ("barked",)], [("a",), ("Dog",), ("sleeps",), ("there",)]]
    pred = model.predict(test)
    for s, sent in enumerate(test):
        E, trans, start, end = _dense_scores(model, sent)
        best = max(itertools.product(range(len(model.labels_)), repeat=len(sent)),
                   key=lambda q: start[q[0]] + end[q[-1]] + sum(E[i, q[i]] for i in range(len(q)))
                   + sum(trans[q[i - 1], q[i]] for i in range(1, len(q))))
        assert pred[s] == [model.labels_[k] for k in best]
    # the n-gram attributes weigh: unseen words are told apart by their n-grams alone
    index = model.feature_index_
    ngram_ids = [a for a in range(model.extractor_.n_attributes) if "cngram" in model.extractor_.attribute_name(a)]
    assert any(model.weights_[index.feat_ptr[a]:index.feat_ptr[a + 1]].any() for a in ngram_ids)


def test_model_round_trip_and_refusals(tmp_path):
    tagger = chaintag.SAPO(features=FEATURES + ";pos[0]", epochs=3).fit(SENTS, LABELS)
    test = [[("the", "DT"), ("cows", "NNS"), ("barked", "VBD")]]
    model = tmp_path / "m.npz"
    tagger.save(model)
    back = chaintag.load(model)
    assert back.predict(test) == tagger.predict(test)
    a, b = tagger.extractor_.transform(test), back.extractor_.transform(test)
    np.testing.assert_array_equal(a.attr_ids, b.attr_ids)
    back.save(tmp_path / "m2.npz")
    assert (tmp_path / "m2.npz").read_bytes() == model.read_bytes()
    meta, arrays = tagger.extractor_.state()
    meta["grams"] = meta["grams"][:1]
    with pytest.raises(ValueError, match="n-gram"):
        AttributeExtractor.from_state(meta, arrays)
    for spec in ("cngram3(w[0])|w[1]", "lower(cngram3(w[0]))", "cngram3(cngram2(w[0]))", "vec(cngram3(w[0]))"):
        with pytest.raises(InputError, match="outermost"):
            parse_template(spec)
    with pytest.raises(InputError, match="unknown template function"):
        parse_template("cngram0(w[0])")
    with pytest.raises(ValueError, match="cngram"):
        chaintag.SAPO(features=FEATURES, epochs=1, hash_bits=10).fit(SENTS, LABELS)


def test_cli_trains_and_tags_with_ngrams(tmp_path, capsys):
    train = tmp_path / "train.txt"
    train.write_text("\n\n".join("\n".join(f"{w} {p} {lab}" for (w, p), lab in zip(s, ls))
                                 for s, ls in zip(SENTS, LABELS)) + "\n")
    model = tmp_path / "m.npz"
    args = ["train", "--train", str(train), "--model", str(model), "--algorithm", "sapo", "--features",
            "w[0];pos[0];cngram3(lower(w[0]))", "--epochs", "2", "--quiet"]
    assert main(args + ["--stream"]) == 2  # streamed training reads no n-gram templates: said, not mis-trained
    assert "cngramK" in capsys.readouterr().err and not model.exists()
    from chaintag.streaming import fit_streamed
    with pytest.raises(InputError, match="streamed"):
        fit_streamed(chaintag.SAPO(features="w[0];cngram3(w[0])", columns=("word", "pos")), str(train),
                     chunk_sentences=2)
    assert main(args) == 0
    test = tmp_path / "test.txt"
    test.write_text("the DT\ncows NNS\nbarked VBD\n")
    out = tmp_path / "out.txt"
    assert main(["tag", "--model", str(model), str(test), "--output", str(out), "--quiet"]) == 0
    rows = [ln.split() for ln in out.read_text().splitlines() if ln.strip()]
    expect = chaintag.load(model).predict([[("the", "DT"), ("cows", "NNS"), ("barked", "VBD")]])
    assert [r[-1] for r in rows] == expect[0]
    assert os.path.getsize(model) > 0


def test_ngrams_of_a_gazetteer_column(tmp_path):
    """cngramK of the gazetteer's virtual column: the n-grams of the same values that gaz[0] reads."""
    sents = [[("IL-2",), ("gene",), ("binds",)], [("the",), ("IL-2",), ("gene",)], [("T",), ("cells",)]] * 3
    labels = [["B-DNA", "I-DNA", "O"], ["O", "B-DNA", "I-DNA"], ["B-cell", "I-cell"]] * 3
    extra = tmp_path / "list.tsv"
    extra.write_text("DNA\tIL-2 gene\n", encoding="utf-8")
    tagger = chaintag.SAPO(features=f"w[0];gaz[0];cngram2(gaz[0]);@gazetteer={extra}", epochs=2).fit(sents, labels)
    ex = tagger.extractor_
    test = [[("IL-2",), ("gene",), ("binds",)]]
    out = ex.transform(test)
    gaz = ex.gazetteer.column("gaz", test)
    assert gaz[:2] == ["B-DNA", "E-DNA"]
    for i, value in enumerate(gaz):
        names = {ex.attribute_name(int(a)) for a in out.attr_ids[out.tok_ptr[i]:out.tok_ptr[i + 1]]}
        grams = {n.split("=", 1)[1] for n in names if n.startswith("cngram2(gaz[0])=")}
        assert grams == (set(char_grams(value, 2)) if value is not None else set())
    back_model = tmp_path / "m.npz"
    tagger.save(back_model)
    assert chaintag.load(back_model).predict(test) == tagger.predict(test)
