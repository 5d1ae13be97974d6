"""Labels with control characters are warned about, with the file, line and label."""

from chaintag.cli.main import main
from chaintag.data.datasets import load_corpus
from chaintag.data.label_check import control_char_labels


def test_train_warns_about_control_characters_in_labels(tmp_path, capsys):
    path = tmp_path / "train.txt"
    path.write_bytes(b"the DT B-NP\ndog NN I\x00NP\nbarks VBZ B-VP\x1b\n\na DT B-NP\ncat NN I\x00NP\n"
                     b"sits VBZ B-VP\x7f\nhere RB B-ADVP\n")
    assert main(["train", "--train", str(path), "--features", "w[0]", "--epochs", "1",
                 "--model", str(tmp_path / "m.npz")]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning:")]
    assert warnings == [
        f"warning: {path}:2: label 'I\\x00NP' holds a control character (U+0000); "
        "is the file damaged or in another encoding?",
        f"warning: {path}:3: label 'B-VP\\x1b' holds a control character (U+001B); "
        "is the file damaged or in another encoding?",
        f"warning: {path}:7: label 'B-VP\\x7f' holds a control character (U+007F); "
        "is the file damaged or in another encoding?",
    ]
    # clean labels: no warning; -q silences warnings like every log line
    assert main(["train", "--train", str(path), "--features", "w[0]", "--epochs", "1", "-q",
                 "--model", str(tmp_path / "m.npz")]) == 0
    assert capsys.readouterr().err == ""


def test_clean_and_conllu_labels(tmp_path):
    clean = tmp_path / "clean.txt"
    clean.write_text("the DT B-NP\ndog NN I-NP\n\n")
    assert control_char_labels(load_corpus(str(clean))) == []
    conllu = tmp_path / "x.conllu"
    conllu.write_bytes(b"# text = a b\n1\ta\ta\tX\tA\x01B\t_\t0\troot\t_\t_\n2\tb\tb\tX\tB\t_\t1\tdep\t_\t_\n\n")
    found = control_char_labels(load_corpus(str(conllu)))
    assert [lab for _, lab in found] == ["A\x01B"] and found[0][0] in (1, 2)
