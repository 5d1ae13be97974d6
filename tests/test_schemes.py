"""Chunk label schemes: hand-worked counts for every scheme, conlleval's own rules as an oracle
for the schemes it defines, stray labels, and the CLI agreeing with the library."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chaintag.cli.main import main
from chaintag.evaluation import evaluate
from chaintag.evaluation.schemes import TRAINING_TYPO_PREFIXES, detect_scheme, resolve_scheme

# (name, gold, pred, expected scheme, typed, (n_gold, n_pred, n_correct), n_correct_tokens)
# Every count below is worked out by hand in the comment above its case.
HAND = [
    # IOB1: gold NP[0,2) NP[2,3) VP[4,5); pred NP[0,1) NP[1,3) VP[4,5); tokens 0, 3, 4 agree
    ("iob1", ["I-NP", "I-NP", "B-NP", "O", "I-VP"], ["I-NP", "B-NP", "I-NP", "O", "I-VP"],
     "iob1", True, (3, 3, 1), 3),
    # IOB2: gold PER[0,2) LOC[3,4); pred PER[0,1) LOC[3,4)
    ("iob2", ["B-PER", "I-PER", "O", "B-LOC"], ["B-PER", "O", "O", "B-LOC"], "iob2", True, (2, 2, 1), 3),
    # IOE1 (a chunk ends on I): gold NP[0,2) NP[2,3) VP[4,5); pred NP[0,3) VP[4,5)
    ("ioe1", ["I-NP", "E-NP", "I-NP", "O", "I-VP"], ["I-NP", "I-NP", "I-NP", "O", "I-VP"],
     "ioe1", True, (3, 2, 1), 4),
    # IOE2 (every chunk ends on E): gold NP[0,2) NP[2,3) VP[4,5); pred NP[0,1) NP[1,3) VP[4,5)
    ("ioe2", ["I-NP", "E-NP", "E-NP", "O", "E-VP"], ["E-NP", "I-NP", "E-NP", "O", "E-VP"],
     "ioe2", True, (3, 3, 1), 3),
    # IOBES: gold PER[0,1) ORG[2,5); pred PER[0,1) ORG[2,4) ORG[4,5)
    ("iobes", ["S-PER", "O", "B-ORG", "I-ORG", "E-ORG"], ["S-PER", "O", "B-ORG", "E-ORG", "S-ORG"],
     "iobes", True, (2, 3, 1), 3),
    # BILOU (U = single, L = last): gold PER[0,1) ORG[2,5); pred PER[0,1) ORG[1,2) ORG[2,4)
    ("bilou", ["U-PER", "O", "B-ORG", "I-ORG", "L-ORG"], ["U-PER", "U-ORG", "B-ORG", "L-ORG", "O"],
     "bilou", True, (2, 3, 1), 2),
    # BMES (M = middle): gold LOC[0,3) PER[3,4); pred LOC[0,2) LOC[2,3) PER[3,4)
    ("bmes", ["B-LOC", "M-LOC", "E-LOC", "S-PER"], ["B-LOC", "E-LOC", "S-LOC", "S-PER"],
     "bmes", True, (2, 3, 1), 2),
    # bare B/I/O: gold [0,2) [3,4); pred [0,3) [3,4)
    ("bare-bio", ["B", "I", "O", "B"], ["B", "I", "I", "B"], "iob2", False, (2, 2, 1), 3),
    # bare BMES (word segmentation): gold [0,2) [2,3) [3,6); pred [0,2) [2,4) [4,6)
    ("bare-bmes", ["B", "E", "S", "B", "M", "E"], ["B", "E", "B", "E", "B", "E"], "bmes", False, (3, 3, 1), 3),
    # malformed IOB: I after O opens a chunk (conlleval); the stray NN is read as O:
    # gold NP[0,1) NP[2,3) VP[4,5); pred NP[0,3) VP[4,5)
    ("iob-stray", ["B-NP", "NN", "I-NP", "O", "I-VP"], ["B-NP", "I-NP", "I-NP", "O", "B-VP"],
     "iob1", True, (3, 2, 1), 3),
    # malformed BILOU: B without its L closes at O, L after U opens a one-token chunk,
    # a change of type inside a chunk splits it: gold PER[0,1) PER[1,2) ORG[3,4) LOC[4,5);
    # pred PER[0,2) ORG[3,5)
    ("bilou-malformed", ["B-PER", "U-PER", "O", "B-ORG", "L-LOC"], ["B-PER", "L-PER", "O", "B-ORG", "L-ORG"],
     "bilou", True, (4, 2, 0), 3),
    # malformed BMES: M after O opens a chunk, E alone is a chunk: gold X[0,2) X[2,3); pred X[0,3)
    ("bmes-malformed", ["M-X", "E-X", "E-X"], ["B-X", "M-X", "E-X"], "bmes", True, (2, 1, 0), 1),
]


@pytest.mark.parametrize("name, gold, pred, scheme, typed, counts, n_tok", HAND, ids=[c[0] for c in HAND])
def test_hand_worked_counts(name, gold, pred, scheme, typed, counts, n_tok):
    r = evaluate([gold], [pred])
    assert (r.scheme, r.scheme_typed, r.is_chunking) == (scheme, typed, True)
    assert (r.n_gold_chunks, r.n_pred_chunks, r.n_correct_chunks) == counts
    assert r.n_correct_tokens == n_tok
    n_gold, n_pred, n_correct = counts
    assert r.precision == pytest.approx(100.0 * n_correct / n_pred)
    assert r.recall == pytest.approx(100.0 * n_correct / n_gold)
    # the scheme given explicitly reads the same
    given_r = evaluate([gold], [pred], scheme=scheme)
    assert (given_r.n_gold_chunks, given_r.n_pred_chunks, given_r.n_correct_chunks) == counts
    assert not given_r.scheme_detected


def test_handed_bilou_and_bmes_figures():
    # the figures the user reports give for these files (cases 11 and 12)
    r = evaluate([["U-LOC", "U-LOC", "O", "B-LOC", "L-LOC", "U-LOC"]],
                 [["U-LOC", "B-LOC", "L-LOC", "B-LOC", "L-LOC", "U-LOC"]])
    assert (r.n_gold_chunks, r.n_pred_chunks, r.n_correct_chunks) == (4, 4, 3)
    assert round(r.f1, 2) == 75.0 and round(r.accuracy, 2) == 66.67
    r = evaluate([["B-T", "M-T", "M-T", "M-T", "M-T", "E-T", "S-N"]],
                 [["B-T", "M-T", "E-O", "B-T", "M-T", "E-T", "S-N"]])
    assert (r.n_gold_chunks, r.n_pred_chunks, r.n_correct_chunks) == (2, 4, 1)
    assert (round(r.precision, 2), round(r.recall, 2), round(r.f1, 2)) == (25.0, 50.0, 33.33)


def test_stray_labels_are_counted_and_read_as_outside():
    r = evaluate([["B-NP", "NN", "I-NP", "NN"]], [["B-NP", "I-NP", "VB", "O"]])
    assert r.is_chunking and r.stray_gold == {"NN": 2} and r.stray_pred == {"VB": 1}
    assert "NN x2" in r.describe_scheme() and "VB x1" in r.describe_scheme()
    # gold NP[0,1) NP[2,3); pred NP[0,2)
    assert (r.n_gold_chunks, r.n_pred_chunks, r.n_correct_chunks) == (2, 1, 0)
    # a scheme given explicitly makes another scheme's prefixes strays
    r = evaluate([["U-PER", "O", "B-PER", "I-PER"]], [["U-PER", "O", "B-PER", "L-PER"]], scheme="iob2")
    assert r.stray_gold == {"U-PER": 1} and r.stray_pred == {"U-PER": 1, "L-PER": 1}
    assert (r.n_gold_chunks, r.n_pred_chunks, r.n_correct_chunks) == (1, 1, 0)
    # bare labels among typed ones are strays
    assert detect_scheme([["B-X", "I-X", "B", "O"]]).stray == {"B"}


def _iob2_sentences(n_chunks_each: int = 150) -> list[list[str]]:
    """IOB2 sentences with chunks of 1, 2 and 3 tokens, ``n_chunks_each`` of each length and type."""
    out = []
    for i in range(n_chunks_each):
        for typ in ("PER", "LOC"):
            out.append(["O", "B-" + typ, "O", "B-" + typ, "I-" + typ, "O", "B-" + typ, "I-" + typ, "I-" + typ])
    return out


@pytest.mark.parametrize("typo", ["M-PER", "U-PER", "L-PER", "S-LOC", "E-LOC"])
def test_one_typo_does_not_name_another_scheme(typo):
    """One label with another scheme's prefix (in place of an O) among 1,800 IOB2 chunk tokens: IOB2, the typo a stray;
    before, M-PER named BMES (every correct I-X a stray) and U-/L-/S-/E- named BILOU or IOBES. The
    scorer reads a rare S-X or E-X as conlleval does (IOBES, which reads B and I as IOB2 does); training
    takes them for typos too (``typo_prefixes=TRAINING_TYPO_PREFIXES``)."""
    gold = _iob2_sentences()
    gold[7][2] = typo
    s = detect_scheme(gold, typo_prefixes=TRAINING_TYPO_PREFIXES)
    assert (s.name, s.stray) == ("iob2", {typo})
    assert s.read["I-PER"] == ("I", "PER")
    r = evaluate(gold, gold)
    if typo[0] in "SE":
        # B-LOC S-LOC: two chunks (901); B-LOC E-LOC: one chunk of two tokens (900)
        assert r.scheme == "iobes" and not r.stray_gold and r.n_gold_chunks == (901 if typo[0] == "S" else 900)
    else:
        assert r.scheme == "iob2" and r.stray_gold == {typo: 1} and r.n_gold_chunks == 900


def test_rare_prefixes_of_a_real_scheme_keep_it():
    """A scheme whose own prefix is rare (BMES with one 3-token chunk: one M among 1,200 chunk tokens;
    IOBES with one single-token chunk) is kept: without that prefix the labels read worse."""
    bmes = [["B-PER", "E-PER", "O", "S-LOC"]] * 400 + [["B-PER", "M-PER", "E-PER"]]
    assert detect_scheme(bmes).name == "bmes" and not detect_scheme(bmes).stray
    iobes = [["B-PER", "I-PER", "E-PER", "O"]] * 400 + [["S-LOC"]]
    assert detect_scheme(iobes).name == "iobes" and not detect_scheme(iobes).stray
    # IOE2 with one B typo stays IOE2 (B named IOBES before)
    ioe2 = [["I-NP", "E-NP", "O", "E-VP"]] * 300 + [["B-NP", "E-NP"]]
    s = detect_scheme(ioe2, typo_prefixes=TRAINING_TYPO_PREFIXES)
    assert (s.name, s.stray) == ("ioe2", {"B-NP"})


def test_one_broken_chunk_does_not_make_iob2_iob1_nor_ioe2_ioe1():
    """A typo that opens one chunk on I-X (IOB2) or closes one on I-X (IOE2) among hundreds of chunks
    left the scheme IOB1 / IOE1 before, whose transition rules then wrecked constrained decoding."""
    iob2 = [["B-PER", "I-PER", "O", "B-LOC"]] * 100 + [["O", "I-PER", "O"]]
    assert detect_scheme(iob2).name == "iob2"
    ioe2 = [["I-PER", "E-PER", "O", "E-LOC"]] * 100 + [["O", "I-PER", "O"]]
    assert detect_scheme(ioe2).name == "ioe2"
    # an M- typo inside a chunk: a stray, and the chunk after it opens on I-X
    broken = _iob2_sentences() + [["B-ORG", "M-ORG", "I-ORG"]]
    s = detect_scheme(broken, typo_prefixes=TRAINING_TYPO_PREFIXES)
    assert (s.name, s.stray) == ("iob2", {"M-ORG"})
    # IOE1, whose own E is rare, with one typo of another prefix: IOE1, the typo the one stray
    ioe1 = [["I-PER", "I-PER", "O", "I-LOC"]] * 200 + [["I-PER", "E-PER", "I-PER"]]
    for typo in ("S-PER", "B-PER", "U-PER"):
        s = detect_scheme(ioe1 + [[typo, "O"]], typo_prefixes=TRAINING_TYPO_PREFIXES)
        assert (s.name, s.stray) == ("ioe1", {typo})
    # real IOB1 and IOE1 (B / E only between adjacent chunks of one type) are still found
    assert detect_scheme([["I-PER", "I-PER", "B-PER", "O", "I-LOC"]] * 50).name == "iob1"
    assert detect_scheme([["I-PER", "E-PER", "I-PER", "O", "I-LOC"]] * 50).name == "ioe1"
    assert detect_scheme([["I-PER", "O"]]).name == "iob1" and detect_scheme([["B-PER", "O"]]).name == "iob2"


def test_not_chunk_labels_and_the_majority_rule():
    r = evaluate([["NN", "VB", "DT"]], [["NN", "NN", "DT"]])
    assert r.scheme == "none" and not r.is_chunking and r.n_gold_chunks == 0
    # POS tags with one chunk-looking tag are still POS tags
    assert not detect_scheme([["NN", "VB", "DT", "B-X", "JJ"]]).is_chunking
    # the CTB tag "M" among other tags does not make BMES
    assert not detect_scheme([["NN", "M", "CD"]]).is_chunking
    # a scheme that is told wins
    assert evaluate([["NN", "B-X"]], [["NN", "B-X"]], scheme="none").n_gold_chunks == 0


def test_scheme_names_and_aliases():
    assert resolve_scheme("BIOES") == "iobes" and resolve_scheme("bilou") == "bilou"
    assert resolve_scheme(None) == "auto"
    with pytest.raises(ValueError, match="unknown label scheme"):
        evaluate([["B-X"]], [["B-X"]], scheme="iob3")


# --------------------------------------------------------------------------
# conlleval's own rules (the 2004 Perl script, transcribed) as an oracle for
# the schemes it defines: IOB1, IOB2, IOE1, IOE2
# --------------------------------------------------------------------------

def _end_of_chunk(prev_tag, tag, prev_type, typ):
    end = ((prev_tag, tag) in {("B", "B"), ("B", "O"), ("I", "B"), ("I", "O"), ("E", "E"), ("E", "I"),
                               ("E", "O")})
    if prev_tag not in ("O", ".") and prev_type != typ:
        end = True
    return end or prev_tag in ("[", "]")


def _start_of_chunk(prev_tag, tag, prev_type, typ):
    start = ((prev_tag, tag) in {("B", "B"), ("I", "B"), ("O", "B"), ("O", "I"), ("E", "E"), ("E", "I"),
                                 ("O", "E")})
    if tag not in ("O", ".") and prev_type != typ:
        start = True
    return start or tag in ("[", "]")


def _conlleval_counts(gold, pred):
    """(found correct, found guessed, correct chunks, correct tags) as conlleval counts them."""
    def split(lab):
        tag, _, typ = lab.partition("-")
        return tag, typ
    lines = []
    for g, p in zip(gold, pred):
        lines += list(zip(g, p)) + [None]  # a blank line after each sentence
    found_correct = found_guessed = correct_chunk = correct_tags = 0
    in_correct = False
    last_c, last_ct, last_g, last_gt = "O", "", "O", ""
    for item in lines:
        if item is None:
            c, ct, g, gt = "O", "", "O", ""
        else:
            (c, ct), (g, gt) = split(item[0]), split(item[1])
        if in_correct:
            end_c = _end_of_chunk(last_c, c, last_ct, ct)
            end_g = _end_of_chunk(last_g, g, last_gt, gt)
            if end_c and end_g and last_gt == last_ct:
                in_correct = False
                correct_chunk += 1
            elif end_c != end_g or gt != ct:
                in_correct = False
        start_c = _start_of_chunk(last_c, c, last_ct, ct)
        start_g = _start_of_chunk(last_g, g, last_gt, gt)
        if start_c and start_g and gt == ct:
            in_correct = True
        found_correct += start_c
        found_guessed += start_g
        if item is not None and c == g and ct == gt:
            correct_tags += 1
        last_c, last_ct, last_g, last_gt = c, ct, g, gt
    if in_correct:
        correct_chunk += 1
    return found_correct, found_guessed, correct_chunk, correct_tags


@st.composite
def _corpus(draw, prefixes):
    labels = st.sampled_from(["O"] + [f"{p}-{t}" for p in prefixes for t in ("X", "Y")])
    lengths = draw(st.lists(st.integers(min_value=1, max_value=8), min_size=1, max_size=4))
    gold = [draw(st.lists(labels, min_size=n, max_size=n)) for n in lengths]
    pred = [draw(st.lists(labels, min_size=n, max_size=n)) for n in lengths]
    return gold, pred


@pytest.mark.parametrize("prefixes", ["BI", "IE"], ids=["IOB1-IOB2", "IOE1-IOE2"])
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_counts_equal_conlleval_for_the_schemes_it_defines(prefixes, data):
    gold, pred = data.draw(_corpus(prefixes))
    r = evaluate(gold, pred)
    assert r.stray_gold == {} and r.stray_pred == {}
    assert (r.n_gold_chunks, r.n_pred_chunks, r.n_correct_chunks, r.n_correct_tokens) == \
        _conlleval_counts(gold, pred)


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_bilou_and_bmes_read_as_the_iobes_they_rename(data):
    gold, pred = data.draw(_corpus("BIES"))
    base = evaluate(gold, pred, scheme="iobes")
    for scheme, rename in (("bilou", {"E": "L", "S": "U"}), ("bmes", {"I": "M"})):
        def ren(seqs):
            return [[rename.get(lab[0], lab[0]) + lab[1:] if lab != "O" else lab for lab in s] for s in seqs]
        r = evaluate(ren(gold), ren(pred), scheme=scheme)
        assert (r.n_gold_chunks, r.n_pred_chunks, r.n_correct_chunks, r.n_correct_tokens) == \
            (base.n_gold_chunks, base.n_pred_chunks, base.n_correct_chunks, base.n_correct_tokens)
        assert r.per_type == base.per_type


# --------------------------------------------------------------------------
# The command line agrees with the library
# --------------------------------------------------------------------------

@pytest.mark.parametrize("case", HAND, ids=[c[0] for c in HAND])
def test_cli_eval_agrees_with_evaluate(tmp_path, capsys, case):
    name, gold, pred, scheme, _, counts, _ = case
    path = tmp_path / "gp.txt"
    path.write_text("".join(f"w{i} {g} {p}\n" for i, (g, p) in enumerate(zip(gold, pred))), encoding="utf-8")
    assert main(["eval", str(path), "--json"]) == 0
    fig = json.loads(capsys.readouterr().out)
    lib = evaluate([gold], [pred]).to_dict()
    for key in ("f1", "precision", "recall", "accuracy", "per_type", "n_gold_chunks", "n_pred_chunks",
                "n_correct_chunks", "scheme", "stray_gold", "stray_pred"):
        assert fig[key] == lib[key], key
    assert main(["eval", str(path)]) == 0
    text = capsys.readouterr().out
    assert f"scheme: {scheme.upper()}" in text and "detected" in text


def test_cli_scheme_option_and_train_uses_chunk_f1(tmp_path, capsys):
    # BMES data: dev scores (best epoch) and --test are chunk F1, not token accuracy
    train = tmp_path / "train.txt"
    sents = [[("Bei", "B-LOC"), ("jing", "E-LOC"), ("is", "O")], [("Li", "S-PER"), ("ran", "O")],
             [("Shang", "B-LOC"), ("ha", "M-LOC"), ("i", "E-LOC")]] * 3
    train.write_text("".join("".join(f"{w} {lab}\n" for w, lab in s) + "\n" for s in sents), encoding="utf-8")
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(train), "--dev", str(train), "--test", str(train), "--features", "w[0]",
                 "--epochs", "2", "--model", str(model), "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["test"]["scheme"] == "bmes" and out["test"]["is_chunking"] is True
    assert all(rec["dev_f1"] is not None and rec["dev_score"] == rec["dev_f1"] for rec in out["history"])
    # --scheme given on eval: M- is then a stray of IOBES
    assert main(["eval", "-m", str(model), "--test", str(train), "--scheme", "iobes", "--json"]) == 0
    fig = json.loads(capsys.readouterr().out)
    assert fig["scheme"] == "iobes" and fig["stray_gold"] == {"M-LOC": 3}
    assert main(["train", "--train", str(train), "--test", str(train), "--features", "w[0]", "--epochs", "1",
                 "-a", "sapo", "--model", str(model), "--scheme", "none", "--quiet"]) == 0
    assert "test accuracy: 100.00" in capsys.readouterr().out


def test_a_given_scheme_that_misreads_the_labels_names_the_one_that_reads_them():
    from chaintag import evaluate
    gold = [["U-X", "B-Y", "L-Y", "O"]]
    given = evaluate(gold, gold, scheme="iobes")
    assert given.stray_gold == {"U-X": 1, "L-Y": 1}
    assert given.scheme_suggested == "bilou"
    assert "--scheme bilou" in given.describe_scheme()
    # detected, or given and right, or strays that no scheme reads: no suggestion
    assert evaluate(gold, gold).scheme_suggested is None
    assert evaluate(gold, gold, scheme="bilou").scheme_suggested is None
    assert evaluate([["B-X", "NN", "I-X"]], [["B-X", "NN", "I-X"]], scheme="iob2").scheme_suggested is None
    assert "--scheme" not in evaluate(gold, gold, scheme="bilou").describe_scheme()


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_span_labels_write_what_label_spans_read(data):
    """Chunks written in any scheme and notation (span_labels) read back as the same chunks (label_spans,
    with that scheme and notation given), adjacent chunks of one type included."""
    from chaintag.evaluation.chunks import label_spans, span_labels
    from chaintag.evaluation.schemes import NOTATIONS, SCHEMES
    n = data.draw(st.integers(1, 12))
    spans, i = [], 0
    while i < n:
        if data.draw(st.booleans()):
            j = data.draw(st.integers(i + 1, n))
            spans.append((data.draw(st.sampled_from(["PER", "LOC"])), i, j))
            i = j
        else:
            i += 1
    scheme = data.draw(st.sampled_from(sorted(SCHEMES)))
    notation = data.draw(st.sampled_from(list(NOTATIONS)))
    labels = span_labels(n, spans, scheme, notation)
    assert len(labels) == n
    assert label_spans([labels], scheme, notation) == [spans]


def test_predicted_labels_never_change_how_the_gold_is_read():
    """Found by a differential test against conlleval: the scheme was detected from gold and predictions
    together, so one predicted U-X in IOE2 data named BILOU, read every gold E-X as a stray and scored a
    wrong prediction F1 100; M- predicted in IOB1 data named BMES and left the gold no chunk. The gold
    now keeps its reading (the predictions' foreign labels are strays); predictions still name a scheme
    that the gold leaves open (E-X predicted where the gold has only I-X)."""
    gold = [["I-X", "E-X", "O"]] * 3
    r = evaluate(gold, [["I-X", "E-X", "O"], ["U-X", "O", "O"], ["I-X", "E-X", "O"]])
    assert (r.scheme, r.n_gold_chunks, r.n_pred_chunks, r.n_correct_chunks) == ("ioe2", 3, 2, 2)
    assert r.f1 == pytest.approx(80.0) and r.stray_pred == {"U-X": 1} and r.scheme_detected
    r = evaluate([["I-PER", "I-PER", "O"]] * 3, [["I-PER", "M-PER", "O"]] * 3)
    assert (r.scheme, r.n_gold_chunks) == ("iob1", 3)
    for spec in ("AUTO", "auto:B-X"):  # however "auto" is written
        assert evaluate(gold, [["I-X", "E-X", "O"], ["U-X", "O", "O"], ["I-X", "E-X", "O"]],
                        scheme=spec).n_gold_chunks == 3
    r = evaluate([["O", "I-X"]], [["O", "E-X"]])  # the gold's I-X alone leaves IOB1 or IOE1 open
    assert (r.scheme, r.n_correct_chunks, r.stray_pred) == ("ioe1", 1, {})
