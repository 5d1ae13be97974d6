"""Gazetteer columns (gaz, gazn): leftmost-longest matching, the jackknife, model files, list files."""

import numpy as np
import pytest

import chaintag
from chaintag.cli.main import main
from chaintag.errors import InputError
from chaintag.features.gazetteer import Gazetteer, jackknife_folds, read_list


def _rows(text):
    return [[(w,) for w in line.split()] for line in text.strip().split("\n")]


ENTRIES = {("NF-kappa", "B"): "protein", ("NF-kappa", "B", "site"): "DNA", ("B", "site", "motif"): "DNA",
           ("T", "cells"): "cell_type", ("cells",): "cell_type", ("IL-2",): "protein",
           ("a", "b", "c"): "DNA"}


def test_leftmost_longest_match_worked_by_hand():
    g = Gazetteer(ENTRIES)
    rows = _rows("""the nf-kappa b site motif in T cells
NF-kappa B binds a b d
IL-4 T
cells and a b c""")
    got = g.column("gaz", rows)
    expect = [None, "B-DNA", "I-DNA", "E-DNA", None, None, "B-cell_type", "E-cell_type",  # longest at NF-kappa wins;
              # "B site motif" overlaps the taken span and does not start inside it
              "B-protein", "E-protein", None, None, None, None,  # "a b" is only a prefix of "a b c": no match
              None, None,  # IL-4 is not IL-2 in gaz; "T" alone is not an entry
              "S-cell_type", None, "B-DNA", "I-DNA", "E-DNA"]  # no span across sentences ("T" / "cells")
    assert got == expect
    # gazn: digits and hyphens normalized, so IL-4 reads as IL-2 (il0)
    assert g.column("gazn", rows)[14] == "S-protein"
    assert g.column("gazn", _rows("NFkappa b"))[:2] == ["B-protein", "E-protein"]


def test_majority_type_and_list_file(tmp_path):
    p = tmp_path / "g.tsv"
    p.write_text("# comment\nprotein\tIL-2\nDNA\tIL-2\nprotein\til-2\n\ncell_type\tT  cells\n", encoding="utf-8")
    counts = read_list(str(p))
    assert counts[(("IL-2",), "protein")] == 1 and counts[(("T", "cells"), "cell_type")] == 1
    g = Gazetteer.build(_rows("IL-2 in T cells"), [["O"] * 4], [str(p)], columns=["gaz"])
    # "IL-2" has one protein line and one DNA line (a tie: the type's name decides), "il-2" is another entry
    assert g.entries[("IL-2",)] == "DNA" and g.entries[("il-2",)] == "protein"
    # the matcher folds case: il-2 and IL-2 are one key with protein 2, DNA 1
    assert g.column("gaz", _rows("IL-2 T cells")) == ["S-protein", "B-cell_type", "E-cell_type"]
    # a list file is used in full on the training sentences too (no jackknife)
    assert g.train_columns["gaz"] == ["S-protein", None, "B-cell_type", "E-cell_type"]


def test_malformed_list_names_file_and_line(tmp_path, capsys):
    p = tmp_path / "bad.tsv"
    p.write_text("protein\tIL-2\n# fine\nprotein IL-4\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_list(str(p))
    assert err.value.path == str(p) and err.value.line == 3 and "type<TAB>string" in str(err.value)
    (tmp_path / "empty.tsv").write_text("protein\t  \n", encoding="utf-8")
    with pytest.raises(InputError, match=r"empty\.tsv:1: "):
        read_list(str(tmp_path / "empty.tsv"))
    train = tmp_path / "train.txt"
    train.write_text("IL-2 B-protein\nbinds O\n\nT B-cell_type\ncells I-cell_type\n", encoding="utf-8")
    args = ["train", "--train", str(train), "--model", str(tmp_path / "m.npz"), "--algorithm", "sapo",
            "--features", f"w[0];gaz[0];@gazetteer={p}", "--epochs", "1", "--quiet"]
    assert main(args) == 2
    assert f"{p}:3:" in capsys.readouterr().err


def _sentences(n_sent, seed):
    """Toy NER sentences: each names its own protein (P<k>) and a shared one (IL-2) every third sentence."""
    rng = np.random.default_rng(seed)
    sents, labels = [], []
    for k in range(n_sent):
        words, labs = ["the", f"P{k}", "protein", "binds"], ["O", "B-protein", "I-protein", "O"]
        if k % 3 == 0:
            words += ["IL-2"]
            labs += ["B-protein"]
        if rng.random() < 0.5:
            words += ["in", "T", "cells"]
            labs += ["O", "B-cell_type", "I-cell_type"]
        sents.append([(w,) for w in words])
        labels.append(labs)
    return sents, labels


@pytest.mark.parametrize("block", [1, 3])
def test_jackknife_matches_only_the_other_folds(block):
    rows, labels = _sentences(40, 0)
    folds = 4
    g = Gazetteer.build(rows, labels, ["train"], folds=folds, seed=3, columns=["gaz", "gazn"], block=block)
    fold = jackknife_folds(len(rows), folds, 3, block)
    assert sorted(set(fold.tolist())) == list(range(folds))
    assert all(len(set(fold[k:k + block].tolist())) == 1 for k in range(0, len(rows), block))
    starts = np.cumsum([0] + [len(s) for s in rows])
    from chaintag.evaluation.chunks import extract_chunks
    for s, sent in enumerate(rows):
        # reference: a gazetteer of the spans of the sentences of the other folds only, matched naively
        others = {}
        for t in np.flatnonzero(fold != fold[s]).tolist():
            for typ, a, b in extract_chunks(labels[t]):
                others.setdefault(tuple(w for (w,) in rows[t][a:b]), typ)
        ref = Gazetteer(others).column("gaz", [sent])
        got = g.train_columns["gaz"][starts[s]:starts[s + 1]]
        assert got == ref
        # a sentence's own protein P<k> occurs in no other sentence: never matched on its own sentence
        assert got[1] is None and got[2] is None
    # while the full gazetteer (dev, test, tagging) finds it
    assert g.column("gaz", rows[:1])[1:3] == ["B-protein", "E-protein"]
    # gazn reads P<k> as p0: the other folds' P<j> match it
    assert g.train_columns["gazn"][1:3] == ["B-protein", "E-protein"]


TRAIN_TEXT = """IL-2 B-protein
binds O
NF-kappa B-protein
B I-protein

T B-cell_type
cells I-cell_type
express O
IL-2 B-protein

the O
IL-4 B-DNA
gene I-DNA
"""


def test_model_file_keeps_the_gazetteer(tmp_path):
    sents, labels = _sentences(30, 1)
    extra = tmp_path / "extra.tsv"
    extra.write_text("DNA\tIL-4 gene\n", encoding="utf-8")
    features = f"w[0];suf3(w[0]);gaz[-1];gaz[0];gaz[1];gazn[0]|shape(w[0]);@gazetteer=train;@gazetteer={extra}"
    tagger = chaintag.SAPO(features=features, epochs=3).fit(sents, labels)
    assert tagger.extractor_.gazetteer.entries[("IL-4", "gene")] == "DNA"
    test = [[("the",), ("P3",), ("protein",), ("binds",), ("IL-4",), ("gene",)], [("T",), ("cells",)]]
    before = tagger.predict(test)
    model = tmp_path / "m.npz"
    tagger.save(model)
    extra.unlink()  # tagging needs no list file: the model keeps the entries
    back = chaintag.load(model)
    assert back.extractor_.gazetteer.entries == tagger.extractor_.gazetteer.entries
    assert back.predict(test) == before
    a, b = tagger.extractor_.transform(test), back.extractor_.transform(test)
    np.testing.assert_array_equal(a.attr_ids, b.attr_ids)
    names = {back.extractor_.attribute_name(int(x)) for x in b.attr_ids}
    assert {"gaz[0]=B-cell_type", "gaz[1]=E-cell_type", "gaz[-1]=B-cell_type", "gaz[0]=E-cell_type",
            "gazn[0]|shape(word[0])=B-protein|Xd"} <= names
    # P<k> protein never matched gaz on its own training sentence (jackknife): no such attribute
    assert not any(n.startswith("gaz[0]=B-protein") for n in names)
    # the list file's entry is matched on new text (its attribute never fired in training: it has no weight)
    assert back.extractor_.gazetteer.column("gaz", test)[4:6] == ["B-DNA", "E-DNA"]
    back.save(tmp_path / "m2.npz")
    assert (tmp_path / "m2.npz").read_bytes() == model.read_bytes()


def test_cli_trains_and_tags_with_gazetteer_columns(tmp_path):
    train = tmp_path / "train.txt"
    train.write_text(TRAIN_TEXT, encoding="utf-8")
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(train), "--model", str(model), "--algorithm", "sapo", "--features",
                 "w[0];gaz[0];gazn[0];@gazfolds=2", "--epochs", "2", "--quiet"]) == 0
    back = chaintag.load(model)
    assert back.extractor_.gazetteer.folds == 2 and ("NF-kappa", "B") in back.extractor_.gazetteer.entries
    test = tmp_path / "test.txt"
    test.write_text("NF-kappa\nB\n", encoding="utf-8")
    out = tmp_path / "out.txt"
    assert main(["tag", "--model", str(model), str(test), "--output", str(out), "--quiet"]) == 0
    assert len([ln for ln in out.read_text().splitlines() if ln.strip()]) == 2


def test_refusals():
    sents, labels = _sentences(6, 2)
    from chaintag.features.extract import AttributeExtractor
    from chaintag.features.templates import parse_template, resolve_templates
    with pytest.raises(InputError, match="no gazetteer"):
        AttributeExtractor([parse_template("gaz[0]")], ("word",))
    with pytest.raises(InputError, match="gazetteer column"):
        resolve_templates("w[0];gaz[0]", ("word",))
    with pytest.raises(InputError, match="hashed"):
        chaintag.SAPO(features="w[0];gaz[0]", hash_bits=10, epochs=1).fit(sents, labels)
    with pytest.raises(InputError, match="folds"):
        chaintag.SAPO(features="w[0];gaz[0];@gazfolds=1", epochs=1).fit(sents, labels)


def test_data_without_entity_spans(tmp_path):
    """Labels with no chunks (POS tags): an empty gazetteer, no token matches, in training and after."""
    m = chaintag.SAPO(features="w[0];gaz[0]", epochs=1).fit([["a", "b"], ["c"]], [["X", "Y"], ["X"]])
    assert m.extractor_.gazetteer.column("gaz", [[("a",), ("b",)]]) == [None, None]
    assert not any(m.extractor_.attribute_name(a).startswith("gaz") for a in range(m.extractor_.n_attributes))
    m.save(tmp_path / "m.npz")
    assert chaintag.load(tmp_path / "m.npz").predict([["a", "b"], ["z"]]) == m.predict([["a", "b"], ["z"]])
