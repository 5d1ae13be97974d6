"""The command line, run in-process on tiny files the tests write."""

import io
import json
import sys

import pytest

import chaintag

from chaintag.cli.main import main

TRAIN = """Paris NNP B-LOC
is VBZ O
nice JJ O

Bob NNP B-PER
runs VBZ O

Ann NNP B-PER
is VBZ O
in IN O
Rome NNP B-LOC

"""
TEST = """Bob NNP B-PER
is VBZ O
in IN O
Paris NNP B-LOC

Acme NNP B-ORG
runs VBZ O
"""


def write(tmp_path, name, text, newline="\n"):
    p = tmp_path / name
    p.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return p


def train(tmp_path, capsys, *extra, train_text=TRAIN, name="m.npz"):
    tr = write(tmp_path, "train.txt", train_text)
    model = tmp_path / name
    code = main(["train", "--train", str(tr), "--model", str(model), "--features", "w[0];pos[0];w[-1]",
                 "--epochs", "5", "--quiet", *extra])
    return code, model, capsys.readouterr()


def test_train_tag_eval_round_trip(tmp_path, capsys):
    code, model, _ = train(tmp_path, capsys)
    assert code == 0 and model.exists()
    test = write(tmp_path, "test.txt", TEST)
    out = tmp_path / "out.txt"
    assert main(["tag", "--model", str(model), str(test), "--output", str(out), "--quiet"]) == 0
    lines = out.read_text(encoding="utf-8").split("\n")
    src = TEST.rstrip("\n").split("\n")
    # one output line per input token, same sentence breaks, input columns kept, one label added
    assert [ln.split()[:3] for ln in lines if ln] == [ln.split() for ln in src if ln]
    assert [bool(ln) for ln in lines[:len(src)]] == [bool(ln) for ln in src]
    assert all(len(ln.split()) == 4 for ln in lines if ln)
    # eval: conlleval-style report naming every type, including B-ORG seen only in the test file
    assert main(["eval", "--model", str(model), "--test", str(test), "--json", "--quiet"]) == 0
    fig = json.loads(capsys.readouterr().out)
    for key in ("f1", "precision", "recall", "accuracy", "per_type", "n_sentences", "n_tokens", "seconds"):
        assert key in fig
    assert fig["n_sentences"] == 2 and fig["n_tokens"] == 6
    assert "ORG" in fig["per_type"] and fig["per_type"]["ORG"]["n_gold"] == 1
    assert fig["per_type"]["ORG"]["n_correct"] == 0
    assert main(["eval", "--model", str(model), "--test", str(test), "--quiet"]) == 0
    report = capsys.readouterr().out
    assert report.startswith("processed 6 tokens with 3 phrases")
    assert "ORG: precision:" in report


def test_eval_two_label_columns(tmp_path, capsys):
    f = write(tmp_path, "pred.txt", "a X B-NP B-NP\nb X I-NP O\n\nc X B-VP B-VP\n")
    assert main(["eval", str(f), "--json"]) == 0
    fig = json.loads(capsys.readouterr().out)
    assert fig["n_tokens"] == 3
    assert fig["precision"] == pytest.approx(50.0) and fig["recall"] == pytest.approx(50.0)


def test_train_json_with_test_and_dev_fraction(tmp_path, capsys):
    test = write(tmp_path, "test.txt", TEST)
    code, model, cap = train(tmp_path, capsys, "--test", str(test), "--json", "--dev-fraction", "0.34")
    assert code == 0
    fig = json.loads(cap.out)
    assert {"f1", "precision", "recall", "accuracy", "per_type", "n_sentences", "n_tokens",
            "seconds", "history", "best_epoch"} <= set(fig)
    assert fig["n_sentences"] == 2  # one of three sentences went to dev
    assert all("dev_score" in h for h in fig["history"])


def test_tag_stdin_to_stdout(tmp_path, capsys, monkeypatch):
    _, model, _ = train(tmp_path, capsys)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"Ann NNP\r\nruns VBZ\r\n")))
    assert main(["tag", "--model", str(model), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.split("\n")[0].startswith("Ann NNP ") and out.endswith("\n\n")
    assert len([ln for ln in out.split("\n") if ln]) == 2 and "\r" not in out


def test_empty_training_file_is_refused_and_no_model_written(tmp_path, capsys):
    for text in ("", "\n\n  \n\t\n"):
        code, model, cap = train(tmp_path, capsys, train_text=text)
        assert code == 2
        assert "no sentences" in cap.err and "train.txt" in cap.err
        assert "Traceback" not in cap.err
        assert not model.exists()


def test_tagging_empty_input_gives_empty_output(tmp_path, capsys):
    _, model, _ = train(tmp_path, capsys)
    empty = write(tmp_path, "empty.txt", "\n\n")
    out = tmp_path / "out.txt"
    assert main(["tag", "--model", str(model), str(empty), "-o", str(out), "--quiet"]) == 0
    assert out.read_text() == ""


def test_missing_column_names_file_and_line(tmp_path, capsys):
    code, model, cap = train(tmp_path, capsys, train_text="He PRP B-NP\nreckons VBZ\n. . O\n")
    assert code == 2
    assert "train.txt:2" in cap.err and "Traceback" not in cap.err
    assert not model.exists()


def test_debug_shows_traceback(tmp_path, capsys):
    tr = write(tmp_path, "train.txt", "")
    with pytest.raises(Exception):
        main(["train", "--train", str(tr), "--model", str(tmp_path / "m.npz"), "--debug", "--quiet"])


def test_single_label_single_token(tmp_path, capsys):
    code, model, _ = train(tmp_path, capsys, train_text="Hello UH B-INTJ\n\nYes UH B-INTJ\n")
    assert code == 0
    test = write(tmp_path, "t.txt", "Hi UH\n\nYes UH\n")
    out = tmp_path / "o.txt"
    assert main(["tag", "-m", str(model), str(test), "-o", str(out), "--quiet"]) == 0
    assert [ln.split()[-1] for ln in out.read_text().split("\n") if ln] == ["B-INTJ", "B-INTJ"]


def test_separator_characters_survive(tmp_path, capsys):
    text = "ratio NN B-NP\n: : O\nx=1|y NN B-NP\na:b NN I-NP\n\n= SYM O\n| SYM O\n"
    tr = write(tmp_path, "train.txt", text)
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(tr), "--columns", "word,label,_", "--features", "w[0];w[-1]|w[0]",
                 "--model", str(model), "--epochs", "10", "--quiet"]) == 0
    out = tmp_path / "o.txt"
    assert main(["tag", "-m", str(model), str(tr), "-o", str(out), "--quiet"]) == 0
    rows = [ln.split(" ") for ln in out.read_text().split("\n") if ln]
    assert [r[0] for r in rows] == ["ratio", ":", "x=1|y", "a:b", "=", "|"]
    assert [r[-1] for r in rows] == ["NN", ":", "NN", "NN", "SYM", "SYM"]


def test_non_ascii_paths_and_tokens(tmp_path, capsys):
    d = tmp_path / "données"
    d.mkdir()
    code, model, _ = train(d, capsys, train_text="Zürich NNP B-LOC\nist VBZ O\n\n東京 NNP B-LOC\n")
    assert code == 0
    out = d / "sortie.txt"
    assert main(["tag", "-m", str(model), str(d / "train.txt"), "-o", str(out), "--quiet"]) == 0
    assert out.read_text(encoding="utf-8").split("\n")[0].startswith("Zürich NNP")


def test_bad_model_file_exit_code(tmp_path, capsys):
    bad = write(tmp_path, "bad.npz", "garbage")
    test = write(tmp_path, "t.txt", TEST)
    assert main(["tag", "-m", str(bad), str(test), "--quiet"]) == 2
    assert "bad.npz" in capsys.readouterr().err


def test_help_for_every_command(capsys):
    for cmd in (["--help"], ["train", "--help"], ["tag", "--help"], ["eval", "--help"], ["data", "--help"]):
        with pytest.raises(SystemExit) as exc:
            main(cmd)
        assert exc.value.code == 0
    assert "usage: chaintag" in capsys.readouterr().out


def test_sapo_training_and_nbest_tagging(tmp_path, capsys, monkeypatch):
    code, model, _ = train(tmp_path, capsys, "--algorithm", "sapo", "--n-best", "3", "--learning-rate", "0.5")
    assert code == 0
    test = write(tmp_path, "test.txt", TEST)
    out = tmp_path / "nbest.jsonl"
    assert main(["tag", "-m", str(model), str(test), "--nbest", "4", "-o", str(out), "--quiet"]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 2 and [len(r["tokens"]) for r in records] == [4, 2]
    for r in records:
        probs = [c["probability"] for c in r["nbest"]]
        scores = [c["score"] for c in r["nbest"]]
        assert len(r["nbest"]) == 4
        assert sum(probs) == pytest.approx(1.0)
        assert scores == sorted(scores, reverse=True)
        assert all(len(c["labels"]) == len(r["tokens"]) for c in r["nbest"])
    # the best of the n-best is what plain tagging writes
    plain = tmp_path / "plain.txt"
    assert main(["tag", "-m", str(model), str(test), "-o", str(plain), "--quiet"]) == 0
    best = [lab for r in records for lab in r["nbest"][0]["labels"]]
    assert [ln.split()[-1] for ln in plain.read_text().split("\n") if ln] == best
    conf = tmp_path / "conf.txt"
    assert main(["tag", "-m", str(model), str(test), "--confidence", "4", "-o", str(conf), "--quiet"]) == 0
    rows = [ln.split() for ln in conf.read_text().split("\n") if ln]
    assert [r[-2] for r in rows] == best
    assert all(0.0 < float(r[-1]) <= 1.0 for r in rows)
    # --confidence with its K left out before the input file: the file is the input, K is 5
    conf5, conf5b = tmp_path / "conf5.txt", tmp_path / "conf5b.txt"
    assert main(["tag", "-m", str(model), "--confidence", str(test), "-o", str(conf5), "--quiet"]) == 0
    assert main(["tag", "-m", str(model), str(test), "--confidence", "5", "-o", str(conf5b), "--quiet"]) == 0
    assert conf5.read_bytes() == conf5b.read_bytes() and conf5.read_bytes() != conf.read_bytes()
    assert main(["tag", "-m", str(model), "--confidence", "nofile.txt", "--quiet"]) == 2
    assert main(["tag", "-m", str(model), "--confidence", "x", str(test), "--quiet"]) == 2
    assert main(["tag", "-m", str(model), "-", "--confidence", str(test), "--quiet"]) == 2  # stdin named: not K
    # K = 1 would give every token probability 1 (over the top-1 sequence): refused, the marginals named
    assert main(["tag", "-m", str(model), str(test), "--confidence", "1"]) == 2
    assert "--confidence takes K between 2 and" in capsys.readouterr().err
    # an integer that is also a file's name is K, with a warning that the file was not tagged
    monkeypatch.chdir(tmp_path)
    (tmp_path / "3").write_text(test.read_text())
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    capsys.readouterr()
    assert main(["tag", "-m", str(model), "--confidence", "3"]) == 0
    assert "--confidence 3 is read as K = 3" in capsys.readouterr().err


@pytest.mark.parametrize("algorithm", ["crf", "crf-lbfgs"])
def test_crf_training_and_marginals(tmp_path, capsys, algorithm):
    extra = ["--learning-rate", "0.5"] if algorithm == "crf" else []
    code, model, _ = train(tmp_path, capsys, "--algorithm", algorithm, "--l2", "0.1", "--epochs", "20", *extra)
    assert code == 0
    test = write(tmp_path, "test.txt", TEST)
    out = tmp_path / "marg.txt"
    assert main(["tag", "-m", str(model), str(test), "--marginals", "-o", str(out), "--quiet"]) == 0
    rows = [ln.split() for ln in out.read_text().split("\n") if ln]
    assert len(rows) == 6 and all(0.0 < float(r[-1]) <= 1.0 for r in rows)


def test_tab_separated_input_keeps_tabs_and_spaces_in_tokens(tmp_path, capsys):
    _, model, _ = train(tmp_path, capsys)
    src = write(tmp_path, "t.tsv", "The\tDT\nParis\tNNP\n\nNew York\tNNP\nruns\tVBZ\n")
    out = tmp_path / "o.tsv"
    assert main(["tag", "-m", str(model), str(src), "-o", str(out), "--quiet"]) == 0
    rows = [ln.split("\t") for ln in out.read_text().split("\n") if ln]
    assert [r[:2] for r in rows] == [["The", "DT"], ["Paris", "NNP"], ["New York", "NNP"], ["runs", "VBZ"]]
    assert all(len(r) == 3 for r in rows)


def test_output_through_a_symlink_keeps_the_link_and_the_mode(tmp_path, capsys):
    import os
    _, model, _ = train(tmp_path, capsys)
    test = write(tmp_path, "test.txt", TEST)
    real = tmp_path / "real.txt"
    real.write_text("old")
    os.chmod(real, 0o644)
    link = tmp_path / "out.lnk"
    link.symlink_to(real)
    assert main(["tag", "-m", str(model), str(test), "-o", str(link), "--quiet"]) == 0
    assert link.is_symlink() and real.read_text().startswith("Bob NNP")
    assert oct(real.stat().st_mode & 0o777) == "0o644"


@pytest.mark.parametrize("args, message", [
    (["--epochs", "0"], "--epochs"), (["--cc", "-1"], "--cc"), (["--dev-fraction", "1.5"], "--dev-fraction"),
    (["--features", "chunk"], "unknown feature preset"), (["--encoding", "nosuch"], "unknown encoding"),
    (["--test", "conll2000:tset"], "tset"),
])
def test_bad_options_fail_before_training_with_exit_2(tmp_path, capsys, args, message):
    code, model, cap = train(tmp_path, capsys, *args)
    assert code == 2 and message in cap.err and "Traceback" not in cap.err
    assert not model.exists()


def test_model_path_in_a_missing_folder_fails_at_once(tmp_path, capsys):
    tr = write(tmp_path, "train.txt", TRAIN)
    code = main(["train", "--train", str(tr), "--model", str(tmp_path / "nope" / "m.npz"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "nope" in err and ".tmp" not in err


def test_template_file_errors_name_file_and_line(tmp_path, capsys):
    feats = write(tmp_path, "feats.txt", "# my templates\nw[0]\nbogus\n")
    code, model, cap = train(tmp_path, capsys, "--features", str(feats))
    assert code == 2 and "feats.txt:3" in cap.err


def test_pos_labels_report_accuracy_only(tmp_path, capsys):
    text = "The DT\ndog NN\n( -LRB-\n) -RRB-\n\nA DT\ncat NN\n"
    tr = write(tmp_path, "pos.txt", text)
    model = tmp_path / "pos.npz"
    assert main(["train", "--train", str(tr), "--model", str(model), "--features", "w[0]", "--quiet"]) == 0
    assert main(["eval", "-m", str(model), "--test", str(tr), "--json", "--quiet"]) == 0
    fig = json.loads(capsys.readouterr().out)
    assert fig["is_chunking"] is False and fig["f1"] is None and fig["accuracy"] == 100.0
    assert fig["n_gold_chunks"] is fig["n_correct_chunks"] is fig["n_pred_chunks"] is None
    assert main(["eval", "-m", str(model), "--test", str(tr), "--quiet"]) == 0
    assert "accuracy only" in capsys.readouterr().out


def test_empty_tab_field_is_an_error(tmp_path, capsys):
    code, model, cap = train(tmp_path, capsys, train_text="The\t\tB-NP\n")
    assert code == 2 and "train.txt:1" in cap.err and "empty" in cap.err


def test_second_order_from_the_cli(tmp_path, capsys):
    code, model, _ = train(tmp_path, capsys, "--order", "2", "--algorithm", "perceptron", "--no-tag-dict")
    assert code == 0
    test = write(tmp_path, "test.txt", TEST)
    assert main(["tag", "-m", str(model), str(test), "--quiet"]) == 0
    assert len([ln for ln in capsys.readouterr().out.split("\n") if ln]) == 6
    assert main(["tag", "-m", str(model), str(test), "--nbest", "2", "--quiet"]) == 2
    code, _, cap = train(tmp_path, capsys, "--order", "2", "--algorithm", "crf")
    assert code == 2 and "--order 2" in cap.err
    code, _, cap = train(tmp_path, capsys, "--order", "2", "--algorithm", "sapo", "--epochs", "3")
    assert code == 0
    assert chaintag.load(model).algorithm == "sapo2"
    assert main(["tag", "-m", str(model), str(test), "--quiet"]) == 0
    assert len([ln for ln in capsys.readouterr().out.split("\n") if ln]) == 6
    assert main(["tag", "-m", str(model), str(test), "--nbest", "2", "--quiet"]) == 0
    code, _, cap = train(tmp_path, capsys, "--order", "2", "--algorithm", "sapo", "--threads", "2")
    assert code == 2 and "sapo --order 2" in cap.err
    code, _, cap = train(tmp_path, capsys, "--order", "2", "--algorithm", "sapo", "--epochs", "2",
                         "--checkpoint-dir", str(tmp_path / "ck"))
    assert code == 0 and (tmp_path / "ck" / "checkpoint.npz").exists()
    code, _, cap = train(tmp_path, capsys, "--order", "2", "--algorithm", "perceptron", "--epochs", "2",
                         "--checkpoint-dir", str(tmp_path / "ck2"))
    assert code == 0 and (tmp_path / "ck2" / "checkpoint.npz").exists()  # the second-order perceptron too
    code, _, cap = train(tmp_path, capsys, "--algorithm", "maxent", "--checkpoint-dir", str(tmp_path / "ck3"))
    assert code == 2 and "--checkpoint-dir is not offered for maxent" in cap.err


def test_interrupted_training_leaves_the_previous_model(tmp_path, capsys, monkeypatch):
    code, model, _ = train(tmp_path, capsys, "--algorithm", "perceptron")
    before = model.read_bytes()
    from chaintag.learners.perceptron import StructuredPerceptron

    def interrupt(self, state, data, order):
        raise KeyboardInterrupt

    monkeypatch.setattr(StructuredPerceptron, "_run_epoch", interrupt)
    code, _, cap = train(tmp_path, capsys, "--algorithm", "perceptron")
    assert code == 130 and "interrupted" in cap.err
    assert model.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.npz", "train.txt"]


def test_tag_copies_document_markers(tmp_path, capsys):
    _, model, _ = train(tmp_path, capsys)
    src = write(tmp_path, "doc.txt", "-DOCSTART- -X- O\n\nBob NNP\nruns VBZ\n\n-DOCSTART- -X- O\n\nAnn NNP\n")
    out = tmp_path / "o.txt"
    assert main(["tag", "-m", str(model), str(src), "-o", str(out), "--quiet"]) == 0
    lines = out.read_text().split("\n")
    assert lines[0] == "-DOCSTART- -X- O" and lines[1] == ""
    assert lines[2].startswith("Bob NNP ") and lines[5] == "-DOCSTART- -X- O"
    assert len([ln for ln in lines if ln]) == 5


@pytest.mark.parametrize("args, message", [
    (["--algorithm", "perceptron", "--n-best", "3"], "--n-best does not apply to perceptron"),
    (["--algorithm", "crf-lbfgs", "--learning-rate", "0.5"], "--learning-rate does not apply to crf-lbfgs"),
    (["--algorithm", "perceptron", "--tag-dict-min", "3"], "--tag-dict-min does not apply to perceptron"),
    (["--algorithm", "sapo", "--maxent-c", "2"], "apply to --algorithm maxent only"),
    (["--algorithm", "maxent", "--C", "2"], "MIRA options"),
])
def test_options_that_do_not_apply_are_refused(tmp_path, capsys, args, message):
    code, model, cap = train(tmp_path, capsys, *args)
    assert code == 2 and message in cap.err and not model.exists()


CONLLU = (
    "# sent_id = 1\n"
    "1\tI\tI\tPRON\tPRP\t_\t2\tnsubj\t_\t_\n"
    "2\tran\trun\tVERB\tVBD\t_\t0\troot\t_\t_\n"
    "3\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_\n\n"
    "1\tYou\tyou\tPRON\tPRP\t_\t2\tnsubj\t_\t_\n"
    "2\twalked\twalk\tVERB\tVBD\t_\t0\troot\t_\t_\n\n"
)


def test_model_remembers_its_conllu_label_field(tmp_path, capsys):
    src = write(tmp_path, "t.conllu", CONLLU)
    model = tmp_path / "upos.npz"
    assert main(["train", "--train", str(src), "--label-field", "upos", "--features", "w[0]", "--epochs", "5",
                 "--no-average", "--model", str(model), "--quiet"]) == 0
    from chaintag.learners import load
    assert load(model).label_field_ == "upos"
    # eval reads UPOS by default for this model
    assert main(["eval", "-m", str(model), "--test", str(src), "--json", "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["accuracy"] == 100.0
    # tag writes into UPOS by default: the file comes back unchanged
    out = tmp_path / "o.conllu"
    assert main(["tag", "-m", str(model), str(src), "-o", str(out), "--quiet"]) == 0
    assert out.read_text(encoding="utf-8") == CONLLU
    # into another column on request, with a warning
    assert main(["tag", "-m", str(model), str(src), "-o", str(out), "--label-field", "xpos"]) == 0
    assert "trained on UPOS labels; they are written into the XPOS column" in capsys.readouterr().err
    # asking for XPOS: labels that share nothing with the model's get a warning, not silence
    assert main(["eval", "-m", str(model), "--test", str(src), "--label-field", "xpos", "--json"]) == 0
    cap = capsys.readouterr()
    assert json.loads(cap.out)["accuracy"] == 0.0 and "none of the 3 gold labels" in cap.err
    # a model trained on a column file keeps no label field; --label-field there gets a warning
    cols = write(tmp_path, "c.txt", "I PRP\nran VBD\n")
    model2 = tmp_path / "c.npz"
    assert main(["train", "--train", str(cols), "--features", "w[0]", "--model", str(model2), "--quiet"]) == 0
    assert load(model2).label_field_ is None
    assert main(["train", "--train", str(cols), "--features", "w[0]", "--model", str(model2),
                 "--label-field", "upos"]) == 0
    assert "--label-field applies to CoNLL-U files" in capsys.readouterr().err
    # --nbest writes JSON lines whatever the input
    assert main(["tag", "-m", str(model), str(src), "--nbest", "2", "--output-format", "conllu"]) == 2
    assert "leave out --output-format" in capsys.readouterr().err
    assert main(["tag", "-m", str(model), str(src), "--nbest", "2"]) == 0
    assert [len(json.loads(line)["nbest"]) for line in capsys.readouterr().out.splitlines()] == [2, 2]


def test_eval_file_mode_refuses_conllu(tmp_path, capsys):
    src = write(tmp_path, "t.conllu", CONLLU)
    assert main(["eval", str(src)]) == 2
    assert "--model MODEL --test" in capsys.readouterr().err


def test_tag_refuses_short_conllu_word_lines(tmp_path, capsys):
    src = write(tmp_path, "t.conllu", CONLLU)
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(src), "--features", "w[0]", "--model", str(model), "--quiet"]) == 0
    short = write(tmp_path, "short.conllu", "1\tA\ta\tDET\n2\tdog\tdog\tNOUN\n\n")
    out = tmp_path / "o.conllu"
    assert main(["tag", "-m", str(model), str(short), "-o", str(out), "--quiet"]) == 2
    assert "short.conllu:1: a CoNLL-U word line has 10 columns, this one has 4" in capsys.readouterr().err
    assert not out.exists()
    assert main(["tag", "-m", str(model), str(short), "--output-format", "columns", "--quiet"]) == 0
    rows = [ln.split("\t") for ln in capsys.readouterr().out.splitlines()]
    assert [r[0] for r in rows] == ["A", "dog", ""] and all(len(r) == 2 for r in rows[:2])


def test_tag_detects_conllu_on_stdin(tmp_path, capsys, monkeypatch):
    src = write(tmp_path, "t.conllu", CONLLU)
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(src), "--features", "w[0]", "--no-average", "--epochs", "5",
                 "--model", str(model), "--quiet"]) == 0
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(CONLLU.encode()))))
    assert main(["tag", "-m", str(model), "--quiet"]) == 0
    assert capsys.readouterr().out == CONLLU  # written back as CoNLL-U, labels learned
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(b"I\nran\n"))))
    assert main(["tag", "-m", str(model), "--quiet"]) == 0
    assert capsys.readouterr().out.splitlines() == ["I PRP", "ran VBD", ""]  # a column file


def test_tag_jobs_give_the_same_bytes(tmp_path):
    """Worker processes tag batches in parallel; the output is that of one process, in input order."""
    text = "".join("-DOCSTART- -X- O\n\n" if i % 7 == 0 else f"w{i} NN B-NP\nx{i} VB B-VP\n\n" for i in range(60))
    src = write(tmp_path, "in.txt", text)
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(src), "--features", "w[0];pos[0]", "--model", str(model), "--quiet"]) == 0
    outs = {}
    for jobs in ("1", "2"):
        outs[jobs] = tmp_path / f"o{jobs}.txt"
        assert main(["tag", "-m", str(model), str(src), "-o", str(outs[jobs]), "--batch-size", "3",
                     "--confidence", "3", "--jobs", jobs, "--quiet"]) == 0
    assert outs["1"].read_bytes() == outs["2"].read_bytes()
    lines = outs["1"].read_text().splitlines()
    assert lines.count("-DOCSTART- -X- O") == 9 and len(lines) == len(text.splitlines())
    # CoNLL-U, written back in order
    conllu = write(tmp_path, "t.conllu", CONLLU * 5)
    cmodel = tmp_path / "c.npz"
    assert main(["train", "--train", str(conllu), "--features", "w[0]", "--model", str(cmodel), "--quiet"]) == 0
    for jobs in ("1", "2"):
        assert main(["tag", "-m", str(cmodel), str(conllu), "-o", str(outs[jobs]), "--batch-size", "1",
                     "--jobs", jobs, "--quiet"]) == 0
    assert outs["1"].read_bytes() == outs["2"].read_bytes()
    assert main(["tag", "-m", str(cmodel), str(conllu), "--jobs", "0"]) == 2


def test_sep_tab_on_a_space_separated_file_says_so(tmp_path, capsys):
    src = write(tmp_path, "s.txt", "He PRP\nruns VBZ\n")
    assert main(["train", "--train", str(src), "--columns", "word,label", "--sep", "tab",
                 "--model", str(tmp_path / "m.npz")]) == 2
    assert "s.txt:1: " in (err := capsys.readouterr().err) and "look space-separated" in err


def test_train_threads_option(tmp_path, capsys):
    code, model, _ = train(tmp_path, capsys, "--threads", "2", "--algorithm", "sapo")
    assert code == 0
    import chaintag
    assert chaintag.load(model).n_jobs == 2
    code, model, _ = train(tmp_path, capsys, "--threads", "2", name="default.npz")  # NER data: SAPO too
    assert code == 0 and chaintag.load(model).n_jobs == 2 and chaintag.load(model).algorithm == "sapo"
    code, _, out = train(tmp_path, capsys, "--threads", "0", name="bad.npz")
    assert code == 2 and "--threads" in out.err
    code, _, out = train(tmp_path, capsys, "--threads", "2", "--algorithm", "crf", name="crf.npz")
    assert code == 2 and "--threads does not apply to crf" in out.err


def test_running_out_of_memory_is_one_error_line(tmp_path, capsys, monkeypatch):
    from chaintag.learners.sapo2 import SecondOrderSAPO

    def too_big(self, data):
        raise MemoryError("Unable to allocate 7.46 GiB for an array with shape (1000000000,) and data type float64")
    monkeypatch.setattr(SecondOrderSAPO, "_begin", too_big)
    code, model, cap = train(tmp_path, capsys, "--algorithm", "sapo", "--order", "2")
    assert code == 2 and not model.exists() and "Traceback" not in cap.err
    assert cap.err.strip().splitlines()[-1].startswith("chaintag train: error: out of memory (Unable to allocate 7.46 GiB")


def test_a_command_line_mistake_is_one_line_with_a_suggestion(capsys):
    for argv, expect in ((["train", "-a", "sap", "--train", "x", "--model", "y"], "did you mean sapo?"),
                         (["tagg"], "did you mean tag?"),
                         (["train", "--train", "x"], "the following arguments are required: --model")):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert expect in err and "--help lists the options" in err
        assert len(err.strip().splitlines()) == 1 and "usage:" not in err


def test_a_conll_2002_marker_line_gets_a_label_as_the_token_lines_do(tmp_path):
    """``-DOCSTART- -DOCSTART- O`` was copied as it was while the token lines got a fourth field: the
    conlleval script stopped with "unexpected number of features: 4 (3)"."""
    text = ("-DOCSTART- -DOCSTART- O\n\nJuan NP B-PER\nvive VM O\n\n-DOCSTART- -DOCSTART- O\n\n"
            "Ana NP B-PER\ncanta VM O\n\n")
    src = write(tmp_path, "es.txt", text)
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(src), "--features", "w[0];pos[0]", "--model", str(model), "--quiet"]) == 0
    out = tmp_path / "o.txt"
    assert main(["tag", "-m", str(model), str(src), "-o", str(out), "--quiet"]) == 0
    lines = [ln for ln in out.read_text().splitlines() if ln]
    assert lines[0] == "-DOCSTART- -DOCSTART- O O" and lines[3] == "-DOCSTART- -DOCSTART- O O"
    assert {len(ln.split()) for ln in lines} == {4}
    assert main(["eval", str(out)]) == 0  # and it scores as before
