"""--format on every command, CoNLL-U Plus, standard input and detection from the content;
no message suggests an option the command lacks; the mistakes users make, caught
(eval on two label columns of different kinds, suspicious label columns, default presets)."""

from __future__ import annotations

import io
import json
import re
import sys

import pytest

from chaintag.cli.main import build_parser, main
from chaintag.io.columns import sniff_conllu

# CoNLL-U Plus with its own column order: XPOS is the 3rd column, 6 columns in all
CUPT = ("# global.columns = ID FORM XPOS UPOS MISC MY:COL\n# sent_id = a\n"
        "1\tDogs\tNNS\tNOUN\t_\t*\n2\tbark\tVBP\tVERB\t_\t1\n3\t.\t.\tPUNCT\t_\t*\n\n"
        "# sent_id = b\n1\tCats\tNNS\tNOUN\t_\t*\n2\tsleep\tVBP\tVERB\t_\t*\n\n")


def _stdin(monkeypatch, text: str):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8")), encoding="utf-8"))


def test_sniffing():
    assert sniff_conllu(CUPT) and sniff_conllu("1\tA\ta\tDET\tDT\t_\t2\tdet\t_\t_\n")
    assert sniff_conllu("# sent_id = 1\n")
    assert not sniff_conllu("#1 NN B-NP\n# NN I-NP\n")       # '#' tokens of a column file
    assert not sniff_conllu("# = SYM O\nA DT O\n")
    assert not sniff_conllu("1 CD B-NP\n2 CD I-NP\n")         # numbers in a column file


def test_conllu_plus_any_name_file_and_stdin(tmp_path, capsys, monkeypatch):
    src = tmp_path / "data.txt"  # neither the name nor an option says CoNLL-U
    src.write_text(CUPT, encoding="utf-8")
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(src), "--model", str(model), "--features", "w[0]", "--quiet",
                 "--no-average"]) == 0
    out = tmp_path / "o.txt"
    assert main(["tag", "-m", str(model), str(src), "-o", str(out), "--quiet"]) == 0
    assert out.read_text(encoding="utf-8") == CUPT  # labels written back into its XPOS column
    assert main(["tag", "-m", str(model), str(src), "-o", str(out), "--quiet", "--label-field", "upos"]) == 0
    got = out.read_text(encoding="utf-8").splitlines()
    assert got[2].split("\t") == ["1", "Dogs", "NNS", "NNS", "_", "*"]
    # standard input, for every command
    _stdin(monkeypatch, CUPT)
    assert main(["train", "--train", "-", "--model", str(model), "--features", "w[0]", "--quiet",
                 "--no-average"]) == 0
    _stdin(monkeypatch, CUPT)
    assert main(["eval", "-m", str(model), "--test", "-", "--json", "--quiet"]) == 0
    fig = json.loads(capsys.readouterr().out)
    assert fig["accuracy"] == 100.0 and fig["n_tokens"] == 5
    _stdin(monkeypatch, CUPT)
    assert main(["tag", "-m", str(model), "--quiet"]) == 0
    assert capsys.readouterr().out == CUPT
    # --format on each command overrides detection
    _stdin(monkeypatch, CUPT)
    assert main(["train", "--train", "-", "--format", "columns", "--model", str(model), "--quiet"]) == 2
    assert "expected" in capsys.readouterr().err
    for cmd in ("train", "eval", "tag", "compare"):
        assert "--format" in build_parser()._subparsers._group_actions[0].choices[cmd].format_help()


def test_eval_file_from_stdin(monkeypatch, capsys):
    _stdin(monkeypatch, "a B-X B-X\nb I-X O\n")
    assert main(["eval", "-", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["n_gold_chunks"] == 1


def _options(command: str) -> set[str]:
    sub = build_parser()._subparsers._group_actions[0].choices[command]
    return {s for a in sub._actions for s in a.option_strings}


def test_messages_suggest_only_options_the_command_has(tmp_path, capsys):
    cupt = tmp_path / "x.cupt"
    cupt.write_text(CUPT.replace("\tNNS\t", "\t_\t"), encoding="utf-8")
    mixed = tmp_path / "mixed.txt"
    mixed.write_text("A DT B-NP\n1\tA\ta\tDET\tDT\t_\t2\tdet\t_\t_\n", encoding="utf-8")
    tabbed = tmp_path / "tabbed.txt"
    tabbed.write_text("A DT B-NP\n", encoding="utf-8")
    good = tmp_path / "good.txt"
    good.write_text("A DT B-NP\ncat NN I-NP\n", encoding="utf-8")
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(good), "--model", str(model), "--features", "w[0];pos[0]", "--quiet"]) == 0
    runs = [
        ["train", "--train", str(cupt), "--model", str(tmp_path / "a.npz")],
        ["train", "--train", str(mixed), "--model", str(tmp_path / "a.npz")],
        ["train", "--train", str(tabbed), "--sep", "tab", "--model", str(tmp_path / "a.npz")],
        ["train", "--train", str(good), "--features", "q[0]", "--model", str(tmp_path / "a.npz")],
        ["eval", "-m", str(model), "--test", str(mixed)],
        ["eval", "-m", str(model), "--test", str(cupt)],
        ["eval", str(cupt)],
        ["tag", "-m", str(model), str(mixed)],
        ["tag", "-m", str(model), str(cupt), "--output-format", "conllu", "--label-field", "upos"],
        ["tag", "-m", str(model), str(good), "--output-format", "conllu"],
    ]
    for argv in runs:
        assert main(argv + ["--quiet"]) == 2, argv
        err = capsys.readouterr().err
        assert err
        named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", err))
        assert named <= _options(argv[0]), (argv, err)


# --------------------------------------------------------------------------
# Mistakes caught
# --------------------------------------------------------------------------

def test_eval_refuses_an_untagged_word_and_label_file(tmp_path, capsys):
    # words as "gold" and POS tags as "predicted": they share punctuation, so the other check passes
    words = [f"w{i}" for i in range(60)] + [",", "."]
    tags = ["NN", "VB", "DT", ",", "."]
    lines = [f"{w} {tags[i % 3] if w not in ',.' else w}" for i, w in enumerate(words)]
    f = tmp_path / "pos.txt"
    f.write_text("\n".join(lines[:31]) + "\n\n" + "\n".join(lines[31:]) + "\n", encoding="utf-8")
    assert main(["eval", str(f)]) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and "62 distinct values against 5" in cap.err and "not tagged" in cap.err
    assert "pos.txt" in cap.err
    # a tagged file whose gold and predicted columns hold labels is scored
    g = tmp_path / "tagged.txt"
    g.write_text("\n".join(f"{w} {t} {t}" for w, t in zip(words, [ln.split()[1] for ln in lines])) + "\n",
                 encoding="utf-8")
    assert main(["eval", str(g), "--json"]) == 0


def test_eval_refuses_two_columns_that_share_no_label(tmp_path, capsys):
    f = tmp_path / "ner.txt"
    f.write_text("Ann NNP B-PER\nmet VBD O\nBob NNP B-PER\n\nHi UH O\n", encoding="utf-8")
    assert main(["eval", str(f), "--json"]) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and "share no label" in cap.err and "ner.txt" in cap.err
    # the right columns score
    assert main(["eval", str(f), "--gold-column", "-1", "--pred-column", "-1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["f1"] == 100.0


def test_train_warns_about_label_columns(tmp_path, capsys):
    one = tmp_path / "one.txt"
    one.write_text("a NN X\nb NN X\n\nc NN X\n", encoding="utf-8")
    assert main(["train", "--train", str(one), "--model", str(tmp_path / "m.npz"), "--epochs", "1"]) == 0
    err = capsys.readouterr().err
    assert "single label, 'X'" in err and "column 3 of 3" in err
    nums = tmp_path / "nums.txt"
    nums.write_text("".join(f"w{i} {i % 7}\n" for i in range(20)), encoding="utf-8")
    assert main(["train", "--train", str(nums), "--model", str(tmp_path / "m.npz"), "--epochs", "1"]) == 0
    assert "are numbers on 20 of 20 tokens" in capsys.readouterr().err
    swapped = tmp_path / "swapped.txt"
    swapped.write_text("Ann B-PER NNP\nmet O VBD\nBob B-PER NNP\n", encoding="utf-8")
    assert main(["train", "--train", str(swapped), "--model", str(tmp_path / "m.npz"), "--epochs", "1"]) == 0
    assert "feature column 'pos' holds chunk labels (IOB2)" in capsys.readouterr().err
    first = tmp_path / "first.txt"  # the label column first: the word column holds the chunk labels
    first.write_text("B-PER Ann\nI-PER Lee\nO met\nB-LOC Rome\n", encoding="utf-8")
    assert main(["train", "--train", str(first), "--model", str(tmp_path / "m.npz"), "--epochs", "1"]) == 0
    assert "feature column 'word' holds chunk labels (IOB2)" in capsys.readouterr().err
    typos = tmp_path / "typos.txt"  # PER and B_LOC beside BIO labels
    typos.write_text("Mary PER\nmet O\nJohn B-PER\nin O\nGeneva B_LOC\n\nBob B-PER\nand O\nAl PER\n",
                     encoding="utf-8")
    assert main(["train", "--train", str(typos), "--model", str(tmp_path / "m.npz"), "--epochs", "1"]) == 0
    assert "are chunk labels (IOB2), but 2 fit none of its prefixes: 'PER' on 2 tokens, 'B_LOC' on 1 token; " \
        "they are learned as labels of their own" in capsys.readouterr().err
    clean = tmp_path / "clean.txt"
    clean.write_text("Mary B-PER\nmet O\nJohn B-PER\nin O\nGeneva B-LOC\n", encoding="utf-8")
    assert main(["train", "--train", str(clean), "--model", str(tmp_path / "m.npz"), "--epochs", "1"]) == 0
    assert "warning" not in capsys.readouterr().err.lower()


def test_label_warnings_read_the_scheme_and_the_columns_named(tmp_path, capsys):
    from chaintag.learners import load
    model = tmp_path / "m.npz"
    sents = ["Ann B-PER\nLee I-PER\nmet O\nRome B-LOC\nCity I-LOC\nHall I-LOC\n"] * 40
    typo = tmp_path / "typo.txt"  # one M- typo among 240 IOB2 labels: IOB2, the typo named, I-X read
    typo.write_text("\n".join(sents + ["Al B-PER\nBo M-PER\n"]), encoding="utf-8")
    assert main(["train", "--train", str(typo), "--model", str(model), "--epochs", "1"]) == 0
    err = capsys.readouterr().err
    assert "are chunk labels (IOB2), but 1 fit none of its prefixes: 'M-PER' on 1 token" in err
    assert load(model).training_summary_["label_scheme"] == "iob2"
    # one S- typo: conlleval reads S, but the model records IOB2 (whose rules --constrain enforces)
    typo.write_text("\n".join(sents + ["Al B-PER\nBo S-PER\n"]), encoding="utf-8")
    assert main(["train", "--train", str(typo), "--model", str(model), "--epochs", "1"]) == 0
    assert "(IOB2), but 1 fit none of its prefixes: 'S-PER' on 1 token" in capsys.readouterr().err
    assert load(model).training_summary_["label_scheme"] == "iob2"
    # one chunk opened on I- (a B- typed as O): IOB2 recorded (it was IOB1, whose rules --constrain then
    # enforced), and the break named with its line
    broken = tmp_path / "broken.txt"
    broken.write_text("\n".join(sents + ["In O\nYork I-LOC\n"]), encoding="utf-8")
    assert main(["train", "--train", str(broken), "--model", str(model), "--epochs", "1"]) == 0
    assert (f"break the rules of IOB2 on 1 token, the first at line {7 * 40 + 2} of {broken}: 'I-LOC' after 'O'"
            in capsys.readouterr().err)
    assert load(model).training_summary_["label_scheme"] == "iob2"
    # --scheme is the one the warning and the model use
    bilou = tmp_path / "bilou.txt"
    bilou.write_text("Ann B-PER\nLee L-PER\nmet O\nRome U-LOC\n\nBob U-PER\n", encoding="utf-8")
    assert main(["train", "--train", str(bilou), "--model", str(model), "--epochs", "1", "--scheme", "iob2"]) == 0
    assert ("(IOB2), but 3 fit none of its prefixes: 'L-PER' on 1 token, 'U-LOC' on 1 token, 'U-PER' on 1 token; "
            "they are learned as labels of their own, and spans, tagged entities and chunk F1 read them as O (the "
            "labels look like BILOU: --scheme bilou (or auto) reads them all)") in capsys.readouterr().err
    assert load(model).training_summary_["label_scheme"] == "iob2"
    # a --scheme that the labels break: the rules broken, and the scheme that reads them
    iob2 = tmp_path / "iob2.txt"
    iob2.write_text("Ann B-PER\nLee I-PER\nmet O\nRome B-LOC\n\nBob B-PER\n", encoding="utf-8")
    assert main(["train", "--train", str(iob2), "--model", str(model), "--epochs", "1", "--scheme", "iob1"]) == 0
    assert (f"break the rules of IOB1 on 3 tokens, the first at line 1 of {iob2}: 'B-PER' first in a sentence; "
            "spans and chunk F1 read them as conlleval does, and --constrain never predicts such a sequence (the "
            "labels look like IOB2: --scheme iob2 (or auto) reads them all)") in capsys.readouterr().err
    # the typo hint names the prefixes of the scheme (BILOU data with an S- typo)
    bilou_typo = tmp_path / "bilou_typo.txt"
    bilou_typo.write_text("\n".join(["Ann B-PER\nLee L-PER\nmet O\nRome U-LOC\n"] * 30 + ["Oslo S-LOC\n"]),
                          encoding="utf-8")
    assert main(["train", "--train", str(bilou_typo), "--model", str(model), "--epochs", "1"]) == 0
    assert "read them as O (a typo of B-X / I-X / L-X / U-X?)" in capsys.readouterr().err
    # a label column named with --columns is not second-guessed
    swapped = tmp_path / "swapped.txt"
    swapped.write_text("Ann B-PER NNP\nmet O VBD\nBob B-PER NNP\n", encoding="utf-8")
    assert main(["train", "--train", str(swapped), "--model", str(model), "--epochs", "1",
                 "--columns", "word,ner,label"]) == 0
    assert "holds chunk labels" not in capsys.readouterr().err
    # entity types without prefixes (O on half the tokens) beside a chunk column
    io = tmp_path / "io.txt"
    io.write_text("Ann NNP B-NP PER\nmet VBD B-VP O\nin IN B-PP O\nRome NNP B-NP LOC\n", encoding="utf-8")
    assert main(["train", "--train", str(io), "--model", str(model), "--epochs", "1"]) == 0
    assert "holds chunk labels" not in capsys.readouterr().err
    # a word column of chunk labels with one stray value among 120 tokens is still found
    first = tmp_path / "first.txt"
    rows = [f"{lab} w{i}" for i, lab in enumerate(["B-PER", "I-PER", "O"] * 40)]
    rows[5] = "Lee w5"
    first.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert main(["train", "--train", str(first), "--model", str(model), "--epochs", "1"]) == 0
    assert "feature column 'word' holds chunk labels (IOB2)" in capsys.readouterr().err


def test_default_preset_uses_the_pos_column(tmp_path, capsys):
    from chaintag.learners import load
    f = tmp_path / "chunks.txt"
    f.write_text("He PRP B-NP\nruns VBZ B-VP\n\nThe DT B-NP\ncat NN I-NP\n", encoding="utf-8")
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(f), "--model", str(model), "--epochs", "1"]) == 0
    err = capsys.readouterr().err
    assert "preset 'chunking'" in err and "pos[0]" in err and "feature columns: word, pos" in err
    assert load(model).features == "chunking"
    ner = tmp_path / "ner.txt"
    ner.write_text("Ann NNP B-PER\nmet VBD O\n", encoding="utf-8")
    assert main(["train", "--train", str(ner), "--model", str(model), "--epochs", "1"]) == 0
    err = capsys.readouterr().err
    assert "preset 'ner+gaz'" in err and "pos[0]" in err and "gaz[0]" in err  # the NER default
    words = tmp_path / "pos.txt"
    words.write_text("Ann NNP\nmet VBD\n", encoding="utf-8")
    assert main(["train", "--train", str(words), "--model", str(model), "--epochs", "1"]) == 0
    assert "preset 'pos'" in capsys.readouterr().err
    # a preset given is said too
    assert main(["train", "--train", str(words), "--model", str(model), "--epochs", "1", "-f", "w[0]"]) == 0
    assert "features: 'w[0]'; 2 templates: bias; word[0]" in capsys.readouterr().err


def test_default_preset_follows_the_resources_given(tmp_path):
    from chaintag.api.train_checks import default_preset, resource_kind
    chunks = [["B-NP", "I-NP", "B-VP"]]
    ents = [["B-PER", "O"]]
    tags = [["DT", "NN"]]
    vec = tmp_path / "v.txt"
    vec.write_text("the 0.1 0.2\ndog 0.3 0.4\n", encoding="utf-8")
    brown = tmp_path / "paths"
    brown.write_text("0101\tthe\t5\n", encoding="utf-8")
    folder = tmp_path / "text"
    folder.mkdir()
    assert resource_kind([str(vec)]) == "vectors" and resource_kind([str(folder)]) == "clusters"
    assert resource_kind([str(brown)]) is False and resource_kind([]) is False
    assert resource_kind([str(vec), str(folder)]) == "both"  # each kind reads the one that helped it
    cols = ("word", "pos")
    assert [default_preset(cols, chunks, k)[0] for k in (False, "vectors", "clusters")] == \
        ["chunking", "chunking", "chunking+text"]
    assert [default_preset(("word",), ents, k)[0] for k in (False, "vectors", "clusters")] == \
        ["ner+gaz", "ner+gaz+km", "ner+gaz"]
    assert [default_preset(("word",), tags, k)[0] for k in (False, "vectors", "clusters")] == ["pos", "pos+km", "pos"]


def test_training_budget_is_the_learners_declaration(tmp_path):
    """SAPO declares 20 epochs for training runs; others keep their constructor default; --epochs wins."""
    import chaintag
    from chaintag.learners import LEARNERS
    f = tmp_path / "pos.txt"
    f.write_text("Ann NNP\nmet VBD\nBob NNP\n\nBob NNP\nran VBD\n", encoding="utf-8")
    assert LEARNERS["sapo"].train_epochs == 20 and LEARNERS["sapo"]().epochs == 10
    assert chaintag.train(train=str(f), features="w[0]").model.epochs == 20
    assert chaintag.train(train=str(f), features="w[0]", epochs=3).model.epochs == 3
    assert chaintag.train(train=str(f), features="w[0]", algorithm="perceptron").model.epochs == \
        LEARNERS["perceptron"]().epochs


def test_the_learners_settings_for_the_kind_apply_with_the_default_attributes(tmp_path):
    """SAPO's kind_params apply when the kind's default attributes are used; options given win; a learner
    without them keeps its defaults."""
    import chaintag
    from chaintag.api.train_checks import task_kind
    from chaintag.learners import LEARNERS
    f = tmp_path / "chunks.txt"
    f.write_text("He PRP B-NP\nruns VBZ B-VP\n\nThe DT B-NP\ncat NN I-NP\nsat VBD B-VP\n", encoding="utf-8")
    assert task_kind(("word", "pos"), [["B-NP", "B-VP"]]) == "chunking"
    assert task_kind(("word",), [["B-PER", "O"]]) == "ner" and task_kind(("word",), [["NN"]]) == "pos"
    assert task_kind(("word", "pos"), [["NN"]]) is None
    want = LEARNERS["sapo"].kind_params["chunking"]
    m = chaintag.train(train=str(f), epochs=1).model
    assert (m.feature_space, m.l2) == (want["feature_space"], want["l2"]) == ("all", 2.0)
    m = chaintag.train(train=str(f), epochs=1, feature_space="gold", l2=0.5).model
    assert (m.feature_space, m.l2) == ("gold", 0.5)
    m = chaintag.train(train=str(f), epochs=1, features="chunking").model  # attributes named: none apply
    assert (m.feature_space, m.l2) == ("gold", 1.0)
    m = chaintag.train(train=str(f), epochs=1, algorithm="perceptron").model
    assert m.feature_space == "gold"


def test_the_default_learner_is_the_one_chosen_for_the_kind_of_task(tmp_path, monkeypatch):
    """SAPO for every kind (KIND_ALGORITHMS names none other); a kind's learner there is taken; --algorithm
    wins; --order 2 and the like, chosen before the data is read, take SAPO."""
    import chaintag
    from chaintag.api import train_checks
    from chaintag.errors import InputError
    assert train_checks.KIND_ALGORITHMS == {}
    ner = tmp_path / "ner.txt"
    ner.write_text("Ann NNP B-PER\nmet VBD O\n\nBob NNP B-PER\nran VBD O\n", encoding="utf-8")
    said = []
    assert chaintag.train(str(ner), epochs=1, log=said.append).model.algorithm == "sapo"
    assert "learner: sapo (the default for ner, chosen on dev; --algorithm to choose), 1 epoch" in said
    monkeypatch.setattr(train_checks, "KIND_ALGORITHMS", {"ner": "crf"})
    ner.write_text("Ann NNP B-PER\nmet VBD O\n\nBob NNP B-PER\nran VBD O\n", encoding="utf-8")
    chunks = tmp_path / "chunks.txt"
    chunks.write_text("He PRP B-NP\nruns VBZ B-VP\n\nThe DT B-NP\ncat NN I-NP\n", encoding="utf-8")
    said = []
    assert chaintag.train(str(ner), epochs=1, log=said.append).model.algorithm == "crf"
    assert "learner: crf (the default for ner, chosen on dev; --algorithm to choose), 1 epoch" in said
    assert chaintag.train(str(chunks), epochs=1).model.algorithm == "sapo"
    assert chaintag.train(str(ner), epochs=1, algorithm="sapo").model.algorithm == "sapo"
    assert chaintag.train(str(ner), epochs=1, order=2).model.algorithm == "sapo2"
    with pytest.raises(InputError, match="n_best does not apply|has no parameter n_best"):
        chaintag.train(str(ner), epochs=1, n_best=3)


def test_trailing_columns_no_template_reads_are_not_asked_for_when_tagging(tmp_path, capsys):
    """word pos chunk ner: the NER preset reads word and pos, so the model reads two columns, and tags a
    file of word and pos; a column before a read one keeps its place."""
    from chaintag.learners import load
    train = tmp_path / "ner.txt"
    train.write_text("Ann NNP B-NP B-PER\nLee NNP I-NP I-PER\nmet VBD B-VP O\nRome NNP B-NP B-LOC\n\n"
                     "Bob NNP B-NP B-PER\nran VBD B-VP O\n", encoding="utf-8")
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(train), "--model", str(model), "--epochs", "2"]) == 0
    assert f"column c2 of {train}: read by no template, not needed to tag" in capsys.readouterr().err
    assert load(model).columns_ == ("word", "pos")
    two = tmp_path / "two.txt"
    two.write_text("Ann NNP\nran VBD\n", encoding="utf-8")
    assert main(["tag", "-m", str(model), str(two)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "Ann NNP B-PER"
    # a column the templates read after an unread one: both kept
    assert main(["train", "--train", str(train), "--model", str(model), "--epochs", "1",
                 "--features", "word[0];c2[0]"]) == 0
    assert load(model).columns_ == ("word", "pos", "c2")


def test_train_reads_dev_and_test_labels_written_in_another_notation(tmp_path, capsys):
    """--dev / --test labels of the training types written PER-B against B-PER: read as the training data
    writes them (dev 0.00 at every epoch and test F1 0 before)."""
    train = tmp_path / "train.txt"
    train.write_text("\n\n".join(["John B-PER\nSmith I-PER\nran O", "Paris B-LOC\nis O"] * 5) + "\n",
                     encoding="utf-8")
    dev = tmp_path / "dev.txt"
    dev.write_text("John PER-B\nSmith PER-I\nran O\n\nParis LOC-B\nis O\n", encoding="utf-8")
    test = tmp_path / "test.txt"
    test.write_text("Paris U-LOC\nis O\n\nJohn B-PER\nSmith L-PER\n", encoding="utf-8")
    assert main(["train", "--train", str(train), "--dev", str(dev), "--test", str(test), "--model",
                 str(tmp_path / "m.npz"), "--epochs", "3", "--json"]) == 0
    cap = capsys.readouterr()
    assert f"note: the gold labels of {dev} are written PER-B, the training data's B-PER: their chunks" in cap.err
    assert f"note: the gold labels of {test} are in the BILOU scheme, the training data's in IOB2" in cap.err
    out = json.loads(cap.out)
    assert out["test"]["f1"] == 100.0 and out["history"][-1]["dev_f1"] == 100.0


def test_eval_reads_test_files_with_the_columns_named_at_training(tmp_path, capsys):
    """A model trained with --columns word,pos,label,_ scores a file of that layout from its third column
    (it read the last one, and warned about chunk types, before); a file of another layout is read as
    the options say."""
    four = tmp_path / "four.txt"
    four.write_text("Ann NNP B-PER B-NP\nLee NNP I-PER I-NP\nran VBD O B-VP\n\nRome NNP B-LOC B-NP\n"
                    "is VBZ O B-VP\n", encoding="utf-8")
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(four), "--columns", "word,pos,label,_", "--model", str(model),
                 "--epochs", "5", "-q"]) == 0
    assert main(["eval", "-m", str(model), "-t", str(four), "--json"]) == 0
    cap = capsys.readouterr()
    assert json.loads(cap.out)["n_gold_chunks"] == 2 and "is a type of" not in cap.err
    assert f"note: the columns of {four} are read as at training: --columns word,pos,label,_" in cap.err
    three = tmp_path / "three.txt"
    three.write_text("Ann NNP B-PER\nran VBD O\n", encoding="utf-8")
    assert main(["eval", "-m", str(model), "-t", str(three), "--json"]) == 0
    cap = capsys.readouterr()
    assert json.loads(cap.out)["n_gold_chunks"] == 1 and "read as at training" not in cap.err


def test_held_out_sentences_that_are_training_sentences_are_warned_about(tmp_path, capsys):
    """A --dev file cut from the training file (the dev score overstated: 97.8-99.1 against a test score
    of 94.8 in a user's run) and a --test file of training sentences get a warning each."""
    sents = [f"w{i} NN\nx{i} VB\n" for i in range(40)]
    train = tmp_path / "train.txt"
    train.write_text("\n".join(sents), encoding="utf-8")
    dev = tmp_path / "dev.txt"
    dev.write_text("\n".join(sents[-8:] + ["new NN\none VB\n"]), encoding="utf-8")
    assert main(["train", "--train", str(train), "--dev", str(dev), "--test", str(train), "--model",
                 str(tmp_path / "m.npz"), "--epochs", "1"]) == 0
    err = capsys.readouterr().err
    assert f"warning: 8 of the 9 dev sentences of {dev} (89 %) are also training sentences" in err
    assert f"warning: 40 of the 40 test sentences of {train} (100 %) are also training sentences: the test " \
           "score is not a held-out score" in err


def test_a_template_reading_a_missing_column_names_the_files_columns(tmp_path, capsys):
    """The error listed the document columns (abbr, docnext, doccap) that chaintag computes, as if the
    file had them."""
    f = tmp_path / "w4.txt"
    f.write_text("Ann NNP B-NP B-PER\nLee NNP I-NP I-PER\n", encoding="utf-8")
    assert main(["train", "--train", str(f), "--columns", "w,p,c,label", "--model", str(tmp_path / "m.npz"),
                 "--epochs", "1"]) == 2
    assert "reads column 'word', but the data has columns w, p, c (set them with --columns)" in \
        capsys.readouterr().err
