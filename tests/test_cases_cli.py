"""Train / tag / eval behaviour on the handed cases (shared/cases/README.md).

Each handed file is used when the cases folder is available (CHAINTAG_CASES or
``<repo>/../shared/cases``); the same kinds are covered on the tests' own
files in tests/test_cli.py and tests/test_cases_io.py, which always run.
"""

from __future__ import annotations

import json

import pytest

from chaintag.cli.main import main
from cases_dir import cases_dir


CASES = cases_dir()
pytestmark = pytest.mark.skipif(CASES is None, reason="handed cases folder not available")
FEATS = ["--features", "w[0];pos[0];w[-1]|w[0]", "--quiet"]


def _train(path, model, *extra):
    return main(["train", "--train", str(path), "--model", str(model), "--epochs", "5", *FEATS, *extra])


@pytest.mark.parametrize("name, sentences", [("01_crlf.txt", 2), ("02_no_final_newline.txt", 2),
                                             ("03_docstart_and_blank_runs.txt", 2)])
def test_tagging_keeps_one_line_per_token(tmp_path, name, sentences):
    src = CASES / name
    model = tmp_path / "m.npz"
    assert _train(src, model) == 0
    out = tmp_path / "out.txt"
    assert main(["tag", "-m", str(model), str(src), "-o", str(out), "--quiet"]) == 0
    text = out.read_text(encoding="utf-8")
    assert "\r" not in text
    # document markers are copied through on their own; the rest are the sentences
    blocks = [b for b in text.split("\n\n") if b.strip() and not b.startswith("-DOCSTART-")]
    assert len(blocks) == sentences
    source_lines = [ln for ln in src.read_text(encoding="utf-8").splitlines() if ln.strip()]
    out_lines = [ln for ln in text.split("\n") if ln]
    n_tokens = sum(1 for ln in source_lines if not ln.startswith("-DOCSTART-"))
    assert len([ln for ln in out_lines if not ln.startswith("-DOCSTART-")]) == n_tokens
    # a marker line with as many fields as the token lines gets their predicted label, O, as they get theirs
    # (one number of fields on every line, as the conlleval script reads)
    width = len(next(ln for ln in source_lines if not ln.startswith("-DOCSTART-")).split())
    assert [ln for ln in out_lines if ln.startswith("-DOCSTART-")] == \
        [ln + " O" if len(ln.split()) == width else ln for ln in source_lines if ln.startswith("-DOCSTART-")]


def test_hash_tokens_are_tokens(tmp_path):
    src = CASES / "04_hash_tokens.txt"
    model = tmp_path / "m.npz"
    assert _train(src, model) == 0
    out = tmp_path / "o.txt"
    assert main(["tag", "-m", str(model), str(src), "-o", str(out), "--quiet"]) == 0
    assert len([ln for ln in out.read_text().split("\n") if ln]) == 5


def test_unseen_test_label_is_a_missed_chunk(tmp_path, capsys):
    model = tmp_path / "m.npz"
    assert _train(CASES / "05_train_labels.txt", model) == 0
    test = CASES / "05_test_has_unseen_label.txt"
    assert main(["tag", "-m", str(model), str(test), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["eval", "-m", str(model), "--test", str(test), "--json", "--quiet"]) == 0
    fig = json.loads(capsys.readouterr().out)
    assert fig["per_type"]["ORG"]["n_gold"] >= 1 and fig["per_type"]["ORG"]["n_correct"] == 0
    assert fig["recall"] < 100.0


@pytest.mark.parametrize("name", ["06_empty.txt", "06_only_blank_lines.txt"])
def test_nothing_to_learn(tmp_path, capsys, name):
    model = tmp_path / "m.npz"
    assert _train(CASES / name, model) != 0
    err = capsys.readouterr().err
    assert "no sentences" in err and name in err
    assert not model.exists()
    good = tmp_path / "g.npz"
    assert _train(CASES / "05_train_labels.txt", good) == 0
    out = tmp_path / "o.txt"
    assert main(["tag", "-m", str(good), str(CASES / name), "-o", str(out), "--quiet"]) == 0
    assert out.read_text() == ""


def test_single_label(tmp_path):
    src = CASES / "07_single_label_single_token.txt"
    model = tmp_path / "m.npz"
    assert _train(src, model) == 0
    out = tmp_path / "o.txt"
    assert main(["tag", "-m", str(model), str(src), "-o", str(out), "--quiet"]) == 0
    labels = {ln.split()[-1] for ln in out.read_text().split("\n") if ln}
    assert labels == {"B-INTJ"}


def test_separator_characters_as_pos_file(tmp_path):
    src = CASES / "08_separator_characters.txt"
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(src), "--columns", "word,label,_", "--model", str(model),
                 "--features", "w[0];w[-1]|w[0];w[0]|w[1]", "--epochs", "10", "--quiet"]) == 0
    out = tmp_path / "o.txt"
    assert main(["tag", "-m", str(model), str(src), "-o", str(out), "--quiet"]) == 0
    rows = [ln.split(" ") for ln in out.read_text().split("\n") if ln]
    src_rows = [ln.split(" ") for ln in src.read_text().split("\n") if ln]
    assert [r[:3] for r in rows] == src_rows
    assert [r[-1] for r in rows] == [r[1] for r in src_rows]  # learned labels, ":" included


def test_conllu_multiword_and_empty_nodes(tmp_path):
    src = CASES / "09_multiword_and_empty_nodes.conllu"
    model = tmp_path / "m.npz"
    # last weights: the one sentence is learned exactly (averaged weights keep a trace of the first mistakes)
    assert _train(src, model, "--features", "w[0]", "--no-average") == 0
    out = tmp_path / "o.txt"
    assert main(["tag", "-m", str(model), str(src), "-o", str(out), "--quiet", "--output-format", "columns"]) == 0
    rows = [ln.split("\t") for ln in out.read_text().split("\n") if ln]
    assert [r[0] for r in rows] == ["I", "do", "n't", "know", "."]
    assert [r[1] for r in rows] == ["PRP", "VBP", "RB", "VB", "."]  # learned from the same file
    # default for CoNLL-U input: the file itself, predicted labels in XPOS, every other line kept
    out = tmp_path / "o.conllu"
    assert main(["tag", "-m", str(model), str(src), "-o", str(out), "--quiet"]) == 0
    assert out.read_text(encoding="utf-8") == src.read_text(encoding="utf-8")
    # into UPOS instead: XPOS keeps the file's values, UPOS gets the model's (XPOS-trained) labels
    assert main(["tag", "-m", str(model), str(src), "-o", str(out), "--quiet", "--label-field", "upos"]) == 0
    got = [ln.split("\t") for ln in out.read_text(encoding="utf-8").splitlines()]
    src_lines = [ln.split("\t") for ln in src.read_text(encoding="utf-8").splitlines()]
    assert len(got) == len(src_lines)
    words = [i for i, r in enumerate(src_lines) if len(r) == 10 and r[0].isdigit()]
    assert [got[i][3] for i in words] == ["PRP", "VBP", "RB", "VB", "."]
    assert all(got[i] == src_lines[i] for i in range(len(got)) if i not in words)
    assert all(got[i][:3] + got[i][4:] == src_lines[i][:3] + src_lines[i][4:] for i in words)


def test_conllu_output_refusals(tmp_path, capsys):
    src = CASES / "09_multiword_and_empty_nodes.conllu"
    model = tmp_path / "m.npz"
    assert _train(src, model, "--features", "w[0]") == 0
    out = tmp_path / "o.txt"
    assert main(["tag", "-m", str(model), str(src), "-o", str(out), "--quiet", "--confidence", "3"]) == 2
    assert "--output-format columns" in capsys.readouterr().err
    assert main(["tag", "-m", str(model), str(src), "-o", str(out), "--quiet", "--confidence", "3",
                 "--output-format", "columns"]) == 0
    columns = tmp_path / "plain.txt"
    columns.write_text("I\nknow\n", encoding="utf-8")
    assert main(["tag", "-m", str(model), str(columns), "--output-format", "conllu", "--quiet"]) == 2
    assert "needs CoNLL-U input" in capsys.readouterr().err
    # a model reading two columns cannot tag CoNLL-U words (FORM only)
    two = tmp_path / "two.txt"
    two.write_text("I PRP B\nknow VB I\n", encoding="utf-8")
    model2 = tmp_path / "m2.npz"
    assert main(["train", "--train", str(two), "--columns", "word,pos,label", "--features", "w[0];pos[0]",
                 "--model", str(model2), "--epochs", "1", "--quiet"]) == 0
    out.unlink()
    assert main(["tag", "-m", str(model2), str(src), "-o", str(out), "--quiet"]) == 2
    assert "reads 2 column(s)" in capsys.readouterr().err and not out.exists()


def test_missing_column(tmp_path, capsys):
    model = tmp_path / "m.npz"
    assert _train(CASES / "10_missing_column.txt", model) == 2
    err = capsys.readouterr().err
    assert "10_missing_column.txt:2" in err
    assert not model.exists() and list(tmp_path.iterdir()) == []


def test_bilou_eval_file(capsys):
    # case 11: L- is the last token, U- a single-token chunk
    assert main(["eval", str(CASES / "11_bilou_gold_pred.txt"), "--json"]) == 0
    fig = json.loads(capsys.readouterr().out)
    assert (fig["n_gold_chunks"], fig["n_pred_chunks"], fig["n_correct_chunks"]) == (4, 4, 3)
    assert round(fig["precision"], 2) == round(fig["recall"], 2) == round(fig["f1"], 2) == 75.00
    assert round(fig["accuracy"], 2) == 66.67 and fig["scheme"] == "bilou"
    assert main(["eval", str(CASES / "11_bilou_gold_pred.txt")]) == 0
    assert "scheme: BILOU (detected" in capsys.readouterr().out


def test_bmes_eval_file_and_training_on_bmes(tmp_path, capsys):
    # case 12: M- is a middle token; chunk scores, not token accuracy only
    assert main(["eval", str(CASES / "12_bmes_gold_pred.txt"), "--json"]) == 0
    fig = json.loads(capsys.readouterr().out)
    assert (fig["n_gold_chunks"], fig["n_pred_chunks"], fig["n_correct_chunks"]) == (2, 4, 1)
    assert (round(fig["precision"], 2), round(fig["recall"], 2), round(fig["f1"], 2)) == (25.00, 50.00, 33.33)
    # train --test and the best-epoch choice use chunk F1 on BMES data
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(CASES / "12_bmes_train.txt"), "--dev", str(CASES / "12_bmes_train.txt"),
                 "--test", str(CASES / "12_bmes_train.txt"), "--model", str(model), "--features", "w[0]",
                 "--epochs", "3", "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["test"]["is_chunking"] and out["test"]["scheme"] == "bmes" and out["f1"] is not None
    assert all(rec["dev_score"] == rec["dev_f1"] for rec in out["history"])


@pytest.mark.parametrize("name", ["13_ideographic_space_token.txt", "13_nbsp_inside_token.txt",
                                  "13_nbsp_trailing.txt"])
def test_unicode_spaces_are_token_characters(tmp_path, name):
    # case 13: columns split on ASCII space and tab only; tokens written back byte for byte
    src = CASES / name
    model = tmp_path / "m.npz"
    assert _train(src, model) == 0
    out = tmp_path / "o.txt"
    assert main(["tag", "-m", str(model), str(src), "-o", str(out), "--quiet"]) == 0
    src_lines = [ln for ln in src.read_bytes().split(b"\n") if ln]
    got = [ln for ln in out.read_bytes().split(b"\n") if ln]
    assert [g.rsplit(b" ", 1)[0] for g in got] == src_lines
    # the training labels are learned from the right column (no shift)
    assert [g.rsplit(b" ", 1)[1] for g in got] == [ln.rsplit(b" ", 1)[1] for ln in src_lines]


def test_one_column_input_with_an_ideographic_space_token(tmp_path):
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(CASES / "13_ideographic_space_token.txt"), "--columns", "word,_,label",
                 "--model", str(model), "--features", "w[0]", "--epochs", "5", "--quiet"]) == 0
    out = tmp_path / "o.txt"
    src = CASES / "13_one_column_input.txt"
    assert main(["tag", "-m", str(model), str(src), "-o", str(out), "--quiet"]) == 0
    got = [ln for ln in out.read_bytes().split(b"\n") if ln]
    assert [g.rsplit(b" ", 1)[0] for g in got] == [ln for ln in src.read_bytes().split(b"\n") if ln]
    assert len(got) == 3 and got[1] == "\u3000 O".encode()


def _stdin_bytes(monkeypatch, data: bytes):
    import io
    import sys
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def test_conllu_plus_file_and_stdin(tmp_path, capsys, monkeypatch):
    # case 14: CoNLL-U Plus (11 columns), any file name, read by train, eval and tag, from a file or stdin
    src = CASES / "14_conllu_plus.cupt"
    renamed = tmp_path / "plus.txt"
    renamed.write_bytes(src.read_bytes())
    model = tmp_path / "m.npz"
    for path in (src, renamed):
        assert main(["train", "--train", str(path), "--model", str(model), "--features", "w[0]", "--no-average",
                     "--quiet"]) == 0
        assert main(["eval", "-m", str(model), "--test", str(path), "--json", "--quiet"]) == 0
        assert json.loads(capsys.readouterr().out)["n_tokens"] == 7
        out = tmp_path / "o.txt"
        assert main(["tag", "-m", str(model), str(path), "-o", str(out), "--quiet"]) == 0
        assert out.read_bytes() == src.read_bytes()
    for argv in (["train", "--train", "-", "--model", str(model), "--features", "w[0]", "--no-average"],
                 ["eval", "-m", str(model), "--test", "-", "--json"], ["tag", "-m", str(model)]):
        _stdin_bytes(monkeypatch, src.read_bytes())
        assert main(argv + ["--quiet"]) == 0, argv
        out = capsys.readouterr().out
        if argv[0] == "tag":
            assert out.encode() == src.read_bytes()
        if argv[0] == "eval":
            assert json.loads(out)["accuracy"] == 100.0


def test_eval_on_pos_and_chunk_columns_is_refused(capsys):
    # case 18: the last two columns are POS tags and chunk labels: the predictions are missing
    assert main(["eval", str(CASES / "18_gold_only.txt")]) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and "share no label" in cap.err and "18_gold_only.txt" in cap.err


def test_sentence_per_line_text(tmp_path, capsys):
    # case 17: never read as one multi-column token: refused with what the input must look like,
    # or tagged as sentences with --format text
    train = tmp_path / "t.txt"
    train.write_text("The DT\ncat NN\nsat VBD\non IN\nthe DT\nmat NN\n. .\n\nA DT\ndog NN\nbarked VBD\n", encoding="utf-8")
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(train), "--model", str(model), "-f", "w[0]", "--no-average",
                 "--quiet"]) == 0
    src = CASES / "17_sentence_per_line.txt"
    assert main(["tag", "-m", str(model), str(src)]) == 2
    err = capsys.readouterr().err
    assert "17_sentence_per_line.txt:2" in err and "one sentence per line" in err and "--format raw" in err
    assert "--format pretokenized" in err
    assert main(["tag", "-m", str(model), str(src), "--format", "text", "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [[pair.rsplit("/", 1)[0] for pair in ln.split(" ")] for ln in lines] == \
        [ln.split(" ") for ln in src.read_text(encoding="utf-8").splitlines()]
    assert lines[0] == "The/DT cat/NN sat/VBD on/IN the/DT mat/NN ./."


@pytest.mark.parametrize("algorithm", ["perceptron", "sapo", "crf", "mira"])
def test_tied_scores_give_the_same_labels_everywhere(tmp_path, capsys, algorithm):
    # case 16: tag, --nbest's first path, --confidence and --marginals agree on tied scores
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(CASES / "16_tie_train.txt"), "--model", str(model), "-a", algorithm,
                 "--quiet"]) == 0
    src = str(CASES / "16_tie_input.txt")
    runs = {}
    for opt in ([], ["--nbest", "1"], ["--nbest", "3"], ["--confidence", "3"], ["--marginals"]):
        assert main(["tag", "-m", str(model), src, "--quiet", *opt]) == 0
        out = capsys.readouterr().out
        if opt and opt[0] == "--nbest":
            runs[tuple(opt)] = [json.loads(ln)["nbest"][0]["labels"] for ln in out.splitlines()]
        else:
            runs[tuple(opt)] = [[ln.split()[1] for ln in block.splitlines()] for block in out.split("\n\n")
                                if block.strip()]
    first = runs[()]
    assert all(labels == first for labels in runs.values()), runs


def test_many_labels_second_order_refused_up_front(tmp_path, capsys, monkeypatch):
    # case 15: 1,500 labels; the second-order model refuses at once with the cost it would take
    import subprocess
    import sys
    subprocess.run([sys.executable, str(CASES / "15_many_labels_gen.py"), "1500"], cwd=tmp_path, check=True)
    data = tmp_path / "train_L1500.txt"
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(data), "--order", "2", "--model", str(model), "-f", "w[0]"]) == 2
    err = capsys.readouterr().err
    n = len({ln.split()[1] for ln in data.read_text().splitlines() if ln})  # the labels drawn (1,295 of 1,500)
    assert f"{n:,} labels" in err and f"{n * n:,} label pairs" in err and f"{n ** 3:,} trigram weights" in err
    assert "GiB" in err and "steps per epoch" in err and not model.exists()
    # the first-order model trains on the same data
    assert main(["train", "--train", str(data), "--model", str(model), "-f", "w[0]", "--epochs", "1",
                 "--quiet"]) == 0
