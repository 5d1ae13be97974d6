"""Labels of unlabeled text (atag, atag2): profiles counted by hand, the jackknife, model files, errors."""

from collections import Counter

import numpy as np
import pytest

import chaintag
from chaintag.cli.main import main
from chaintag.errors import InputError
from chaintag.features.autotags import AutoTags, Profile, Text, fold_blocks, label_counts, normalize
from chaintag.learners.stacking import build_autotags

TEXT = "The dog barks\nthe 12 dogs bark\n\nA dog runs\nruns 7\n"


def _tagger(table):
    """A stand-in model: tags each word by a fixed table (else 'X')."""
    return lambda sents: [[table.get(tok[0], "X") for tok in s] for s in sents]


def test_profile_counted_by_hand(tmp_path):
    (tmp_path / "t.txt").write_text(TEXT, encoding="utf-8")
    text = Text([str(tmp_path / "t.txt")])
    assert text.n_tokens == 12 and text.sentences[1] == ["the", "12", "dogs", "bark"]
    def tag(sents):  # a stand-in model: "runs" is VB first in its sentence, else VBZ
        return [[("NN" if w == "dog" else "VB" if w == "runs" and i == 0 else "VBZ" if w == "runs" else
                  "DT" if w.lower() in ("the", "a") else "CD" if w.isdigit() else "NNS" if w == "dogs" else "V")
                 for i, (w, *_) in enumerate(s)] for s in sents]
    labels = ["CD", "DT", "NN", "NNS", "V", "VB", "VBZ"]
    counts = label_counts(tag, text, labels, width=2)
    by_word = {w: Counter({labels[j]: int(n) for j, n in enumerate(row) if n}) for w, row in zip(text.vocab, counts)}
    assert by_word == {"the": Counter(DT=2), "dog": Counter(NN=2), "barks": Counter(V=1), "00": Counter(CD=1),
                       "dogs": Counter(NNS=1), "bark": Counter(V=1), "a": Counter(DT=1),
                       "runs": Counter(VBZ=1, VB=1), "0": Counter(CD=1)}
    prof = Profile.from_counts(text.vocab, labels, counts)
    vals = prof.values()
    assert vals["the"] == ("DT", "DT")
    assert vals["runs"] == ("VB", "VB|VBZ")  # a tie: the first label by name, both joined in name order
    rows = [[("Runs", ""), ("99", ""), ("cat", "")]]
    assert prof.column("atag", rows) == ["VB", "CD", "-"]  # lowercased, digits -> 0; unseen -> "-"
    assert prof.column("atag2", rows) == ["VB|VBZ", "CD", "-"]


def test_ties_and_second_label():
    counts = np.array([[3, 1, 3], [0, 0, 2], [1, 2, 1], [0, 0, 0]])
    prof = Profile.from_counts(["a", "b", "c", "d"], ["X", "Y", "Z"], counts)
    assert prof.values() == {"a": ("X", "X|Z"), "b": ("Z", "Z"), "c": ("Y", "X|Y")}  # d never tagged: left out


def test_fold_blocks_are_contiguous():
    assert fold_blocks(7, 3).tolist() == [0, 0, 0, 1, 1, 2, 2]
    assert fold_blocks(4, 2).tolist() == [0, 0, 1, 1]


def test_jackknife_reads_the_other_blocks(tmp_path):
    """A training block reads the profile of the model trained without it; new text the full model's."""
    (tmp_path / "t.txt").write_text("bank river\nbank money\n", encoding="utf-8")
    rows = [[("bank",), ("river",)], [("bank",), ("money",)], [("river",)], [("money",), ("bank",)]]
    labels = [["A", "B"], ["C", "D"], ["B"], ["D", "C"]]

    class Memory:
        """Tags each word with its most frequent training label (ties: name), unseen words 'Z'."""
        def __init__(self, rows, labels):
            c = {}
            for s, ls in zip(rows, labels):
                for tok, y in zip(s, ls):
                    c.setdefault(tok[0], Counter())[y] += 1
            self.table = {w: min(n.items(), key=lambda kv: (-kv[1], kv[0]))[0] for w, n in c.items()}
            self.labels_ = sorted({y for ls in labels for y in ls} | {"Z"})

        def predict(self, sents):
            return _tagger(self.table)(sents)

    seen = []

    def fit(r, ls):
        seen.append(len(r))
        return Memory(r, ls)

    at = build_autotags(fit, rows, labels, [str(tmp_path / "t.txt")], folds=2)
    assert seen == [2, 2, 4]
    # block 0 (sentences 0, 1) is profiled by a model of sentences 2, 3: bank -> C, river -> B, money -> D
    # block 1 (sentences 2, 3) by a model of sentences 0, 1: bank -> A (tie A/C: name), river -> B, money -> D
    assert at.train_columns["atag"] == ["C", "B", "C", "D", "B", "D", "A"]
    assert at.train_columns["atag2"] == ["C", "B", "C", "D", "B", "D", "A"]
    # the full model: bank took A once and C twice in training -> C
    assert at.column("atag", [[("bank",), ("unseen",)]]) == ["C", "-"]


def _data(n=24, seed=0):
    rng = np.random.default_rng(seed)
    words = {"DT": ["the", "a"], "NN": ["dog", "cat", "run"], "VB": ["run", "sleep", "bark"]}
    sents, labels = [], []
    for _ in range(n):
        tags = ["DT", "NN", "VB"] if rng.random() < 0.7 else ["NN", "VB"]
        sents.append([str(rng.choice(words[t])) for t in tags])
        labels.append(tags)
    return sents, labels


def _most_frequent(model, text):
    """Each normalized word of ``text`` -> the label ``model`` gave it most often (ties: name), counted here."""
    c = {}
    for s, ys in zip(text, model.predict(text)):
        for w, y in zip(s, ys):
            c.setdefault(normalize(w), Counter())[y] += 1
    return {w: min(n.items(), key=lambda kv: (-kv[1], kv[0]))[0] for w, n in c.items()}


def _train_file(tmp_path, sents, labels):
    """A two-column training file (word, label) of the sentences."""
    train = tmp_path / "train.txt"
    train.write_text("\n\n".join("\n".join(f"{w} {y}" for w, y in zip(s, ls)) for s, ls in zip(sents, labels))
                     + "\n", encoding="utf-8")
    return train


TEXT2 = "the dog runs\na cat barks\nthe run was long\ncats sleep\nthe wolf howls\n"


def test_model_equals_one_trained_on_the_columns_written_out(tmp_path):
    """The virtual columns change nothing but the columns' values: the same weights as a model trained on
    rows where the jackknifed values (computed here with independent fold models) are real columns."""
    (tmp_path / "t.txt").write_text(TEXT2, encoding="utf-8")
    sents, labels = _data()
    feats = f"w[0];suf2(w[0]);atag[0];atag2[-1]|atag[0];@autotags={tmp_path / 't.txt'};@autofolds=3"
    m = chaintag.SAPO(features=feats, epochs=3, random_state=1).fit(sents, labels)
    text = [ln.split() for ln in TEXT2.splitlines()]

    def profile(train_s, train_l):
        base = chaintag.SAPO(features="w[0];suf2(w[0])", epochs=3, random_state=1).fit(train_s, train_l)
        c = {}
        for s, ys in zip(text, base.predict(text)):
            for w, y in zip(s, ys):
                c.setdefault(normalize(w), Counter())[y] += 1
        out = {}
        for w, n in c.items():
            top = sorted(n.items(), key=lambda kv: (-kv[1], kv[0]))[:2]
            out[w] = (top[0][0], "|".join(sorted(t for t, _ in top)))
        return out

    block = fold_blocks(len(sents), 3)
    rows = [None] * len(sents)
    for k in range(3):
        idx = np.flatnonzero(block != k)
        prof = profile([sents[i] for i in idx], [labels[i] for i in idx])
        for i in np.flatnonzero(block == k):
            rows[i] = [(w,) + prof.get(normalize(w), ("-", "-")) for w in sents[i]]
    ref = chaintag.SAPO(features="w[0];suf2(w[0]);atag[0];atag2[-1]|atag[0]", epochs=3, random_state=1,
                        columns=("word", "atag", "atag2")).fit(rows, labels)
    assert m.extractor_.n_attributes == ref.extractor_.n_attributes
    np.testing.assert_array_equal(m.weights_, ref.weights_)
    full = profile(sents, labels)
    assert m.extractor_.autotags.profile.values() == full
    new = [["the", "wolf", "sleeps"], ["cats", "run"]]
    new_rows = [[(w,) + full.get(normalize(w), ("-", "-")) for w in s] for s in new]
    assert m.predict(new) == ref.predict(new_rows)


def test_model_file_round_trip(tmp_path):
    (tmp_path / "t.txt").write_text(TEXT2, encoding="utf-8")
    sents, labels = _data()
    m = chaintag.StructuredPerceptron(features=f"w[0];atag[0];atag2[1];@autotags={tmp_path}",
                                      epochs=2).fit(sents, labels)
    m.save(tmp_path / "m.npz")
    back = chaintag.load(tmp_path / "m.npz")
    assert back.extractor_.autotags.profile.values() == m.extractor_.autotags.profile.values()
    assert back.extractor_.autotags.sources == ["t.txt"] and back.extractor_.autotags.n_tokens == 15
    test = [["the", "wolf", "runs"], ["a", "cat"]]
    assert back.predict(test) == m.predict(test)
    back.save(tmp_path / "m2.npz")
    assert (tmp_path / "m2.npz").read_bytes() == (tmp_path / "m.npz").read_bytes()

    # edited files (checksums written again): wide or fractional ids, repeated words, no profile
    from chaintag.errors import ModelFormatError
    from chaintag.io.model_file import load_model, save_model
    meta, arrays = load_model(tmp_path / "m.npz")
    n = len(arrays["autotags_first"])
    edits = [("autotags_first", np.full(n, 2**32 + 1, dtype=np.int64)),
             ("autotags_second", np.zeros(n, dtype=np.float64)), ("words", None), ("meta", None)]
    for name, value in edits:
        m2, a2 = dict(meta), dict(arrays)
        ex = dict(m2["extractor"])
        if name == "words":
            ex["autotags"] = dict(ex["autotags"], words=[ex["autotags"]["words"][0]] * n)
        elif name == "meta":
            ex.pop("autotags")
        else:
            a2[name] = value
        m2["extractor"] = ex
        save_model(tmp_path / "bad.npz", m2, a2)
        with pytest.raises(ModelFormatError, match="inconsistent|holds no autotags"):
            chaintag.load(tmp_path / "bad.npz")


def test_other_attributes_for_the_text_models(tmp_path):
    """@autofeatures=PRESET: the models that tag the text read that preset (words alone), the learner the rest."""
    (tmp_path / "t.txt").write_text(TEXT2, encoding="utf-8")
    sents, labels = _data()
    two = [[(w, "p" + w[0]) for w in s] for s in sents]
    m = chaintag.SAPO(features=f"w[0];pos[0];atag[0];@autotags={tmp_path};@autofeatures=pos", epochs=2,
                      random_state=0).fit(two, labels)
    base = chaintag.SAPO(features="pos", epochs=2, random_state=0).fit(sents, labels)
    text = [ln.split() for ln in TEXT2.splitlines()]
    want = _most_frequent(base, text)
    assert {w: v[0] for w, v in m.extractor_.autotags.profile.values().items()} == want
    assert [t.name for t in m.extractor_.templates] == ["bias", "word[0]", "pos[0]", "atag[0]"]


def test_profiles_kept_for_the_same_settings_and_data(tmp_path):
    """Training epoch by epoch (as through checkpoints) builds the profiles once: @autoepochs fixes the
    text taggers' passes, and the last profiles are reused for the same settings, text and data."""
    (tmp_path / "t.txt").write_text(TEXT2, encoding="utf-8")
    sents, labels = _data()
    feats = f"w[0];atag[0];@autotags={tmp_path / 't.txt'};@autoepochs=2"
    m1 = chaintag.SAPO(features=feats, epochs=1).fit(sents, labels)
    m2 = chaintag.SAPO(features=feats, epochs=3).fit(sents, labels)
    assert m2.extractor_.autotags.profile is m1.extractor_.autotags.profile
    ref = chaintag.SAPO(features=feats.replace("@autoepochs=2", "@autoepochs=3"), epochs=3).fit(sents, labels)
    assert ref.extractor_.autotags.profile is not m2.extractor_.autotags.profile
    other = chaintag.SAPO(features=feats, epochs=3).fit(sents[:-1], labels[:-1])
    assert other.extractor_.autotags.profile is not m2.extractor_.autotags.profile
    # the fold models had 2 passes: a model of the text's taggers' own with 2 passes gives the full profile
    base = chaintag.SAPO(features="w[0]", epochs=2).fit(sents, labels)
    text = [ln.split() for ln in TEXT2.splitlines()]
    want = _most_frequent(base, text)
    assert {w: v[0] for w, v in m2.extractor_.autotags.profile.values().items()} == want
    with pytest.raises(InputError, match="positive integer"):
        chaintag.SAPO(features=feats + ";@autoepochs=0", epochs=1).fit(sents, labels)


def test_errors(tmp_path):
    sents, labels = _data(8)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine line\nbad \xff byte\n")
    with pytest.raises(InputError, match=r"bad.txt:2: not UTF-8"):
        Text([str(bad)])
    with pytest.raises(InputError, match="no such file"):
        Text([str(tmp_path / "missing.txt")])
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match=r"no \*.txt files"):
        Text([str(tmp_path / "empty")])
    (tmp_path / "blank.txt").write_text("\n  \n", encoding="utf-8")
    with pytest.raises(InputError, match="no tokens"):
        Text([str(tmp_path / "blank.txt")])
    good = tmp_path / "good.txt"
    good.write_text(TEXT2, encoding="utf-8")
    with pytest.raises(InputError, match="no text is named"):
        chaintag.SAPO(features="w[0];atag[0]", epochs=1).fit(sents, labels)
    with pytest.raises(InputError, match="jackknife blocks"):
        chaintag.SAPO(features=f"w[0];atag[0];@autotags={good};@autofolds=1", epochs=1).fit(sents, labels)
    with pytest.raises(InputError, match="2 to 8 jackknife folds"):
        chaintag.SAPO(features=f"w[0];atag[0];@autotags={good};@autofolds=9", epochs=1).fit(sents, labels)
    with pytest.raises(InputError, match="hashed"):
        chaintag.SAPO(features=f"w[0];atag[0];@autotags={good}", hash_bits=10, epochs=1).fit(sents, labels)
    two = [[(w, "x") for w in s] for s in sents]
    with pytest.raises(InputError, match="read the words alone"):
        chaintag.SAPO(features=f"w[0];pos[0];atag[0];@autotags={good}", epochs=1).fit(two, labels)
    from chaintag.features.extract import AttributeExtractor
    from chaintag.features.templates import parse_template
    with pytest.raises(InputError, match="@autotags=PATH"):
        AttributeExtractor([parse_template("atag[0]")], ("word",))
    vectors = tmp_path / "v.txt"
    vectors.write_text("the 0.1 0.2\ndog 0.3 -0.1\n", encoding="utf-8")
    with pytest.raises(InputError, match="not of the virtual column 'atag'"):  # before any text is read
        chaintag.SAPO(features=f"w[0];vec(atag[0]);@autotags={tmp_path / 'none.txt'};@clusters={vectors}",
                      epochs=1).fit(sents, labels)
    # a data column named atag is the data's: the text's taggers cannot read it from raw text
    named = [[(w, "x") for w in s] for s in sents]
    with pytest.raises(InputError, match="the text has no 'atag' column"):
        chaintag.SAPO(features=f"w[0];atag[0];atag2[0];@autotags={good}", columns=("word", "atag"),
                      epochs=1).fit(named, labels)
    with pytest.raises(InputError, match="integer of at least 2"):
        chaintag.SAPO(features=f"w[0];atag[0];@autotags={good};@autofolds=\u00b2", epochs=1).fit(sents, labels)


def test_text_files_read_once_and_without_a_byte_order_mark(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.txt").write_bytes(b"\xef\xbb\xbfThe dog\r\nruns\n")
    (tmp_path / "d" / "b.TXT").write_text("ignored\n", encoding="utf-8")
    text = Text([str(tmp_path / "d"), str(tmp_path / "d" / "a.txt")])
    assert text.sentences == [["The", "dog"], ["runs"]] and text.vocab == ["the", "dog", "runs"]


def test_cli_train_and_tag(tmp_path, capsys):
    sents, labels = _data()
    train = _train_file(tmp_path, sents, labels)
    (tmp_path / "text").mkdir()
    (tmp_path / "text" / "a.txt").write_text(TEXT2, encoding="utf-8")
    model = tmp_path / "m.npz"
    (tmp_path / "more.txt").write_text("the cat\n", encoding="utf-8")
    assert main(["train", "--train", str(train), "--model", str(model), "--algorithm", "sapo", "--features",
                 "w[0];atag[0];atag2[0];@autofolds=2", "--autotags", str(tmp_path / "text"), "--epochs", "2",
                 "--autotags", str(tmp_path / "more.txt"), "--quiet"]) == 0  # given twice: both read
    back = chaintag.load(model)
    assert back.extractor_.autotags.folds == 2 and back.extractor_.autotags.profile.values()["the"][0] == "DT"
    assert back.extractor_.autotags.sources == ["a.txt", "more.txt"]
    test = tmp_path / "test.txt"
    test.write_text("the\nwolf\nhowls\n", encoding="utf-8")
    out = tmp_path / "out.txt"
    assert main(["tag", "--model", str(model), str(test), "--output", str(out), "--quiet"]) == 0
    assert len([ln for ln in out.read_text().splitlines() if ln.strip()]) == 3
    capsys.readouterr()
    assert main(["inspect", str(model)]) == 0
    assert "labels of unlabeled text (atag, atag2): " in capsys.readouterr().out
    info = back.summary()["virtual_columns"]
    assert info == {"autotags": {"sources": ["a.txt", "more.txt"], "folds": 2, "text_tokens": 17,
                                 "words": len(back.extractor_.autotags.profile.words)}}


def test_large_files_train_in_memory_with_virtual_columns(tmp_path, monkeypatch):
    """A file big enough to stream by default trains in memory when templates read atag or gaz."""
    import chaintag.api.train_stream as ts
    monkeypatch.setattr(ts, "AUTO_BYTES", 0)
    sents, labels = _data()
    train = _train_file(tmp_path, sents, labels)
    (tmp_path / "t.txt").write_text(TEXT2, encoding="utf-8")
    for feats in ("w[0];atag[0];@autofolds=2", "w[0];gaz[0]"):
        assert main(["train", "-a", "perceptron", "--no-shuffle", "--train", str(train), "--model",
                     str(tmp_path / "m.npz"), "--features", feats, "--autotags", str(tmp_path / "t.txt"),
                     "--epochs", "1", "--quiet"]) == 0


def test_runner_keys_runs_by_the_text_and_trains_them_step_by_step(tmp_path):
    """The experiment runner (tune, compare, reproduce): a run's digest covers its unlabeled text, and its
    epochs are trained through checkpoints with the text's taggers of the run's length, so that each
    epoch's test score is the one of an uninterrupted run of that many epochs."""
    from test_experiments import _toy_corpus, _write
    from chaintag_research import Runner
    from chaintag_research.config import DataRef, Run
    train = _write(tmp_path / "train.txt", *_toy_corpus(60, 1))
    test = _write(tmp_path / "test.txt", *_toy_corpus(20, 2))
    text = tmp_path / "t.txt"
    text.write_text(TEXT2, encoding="utf-8")
    feats = f"w[0];w[-1];atag[0];atag2[1];@autotags={text};@autofolds=2"
    run = Run(key="a", label="a", task="toy", learner="sapo", params={"random_state": 0}, features=feats, epochs=3,
              train=DataRef(train, 0.0, 0.75), dev=None, test=DataRef(test), metric="f1")
    runner = Runner(tmp_path / "out", progress=False)
    before = runner.digest(run)
    res = runner.run_one(run)
    assert res.summary["strategy"] == "stepwise"
    tokens = [[tuple(ln.split()[:2]) for ln in block.splitlines()]
              for block in open(train, encoding="utf-8").read().strip().split("\n\n")]
    labels = [[ln.split()[-1] for ln in block.splitlines()]
              for block in open(train, encoding="utf-8").read().strip().split("\n\n")]
    cut = int(len(tokens) * 0.75)
    for epochs in (2, 3):
        direct = chaintag.SAPO(features=feats + ";@autoepochs=3", epochs=epochs, random_state=0,
                               columns=("word", "pos")).fit(tokens[:cut], labels[:cut])
        test_tok = [[tuple(ln.split()[:2]) for ln in b.splitlines()]
                    for b in open(test, encoding="utf-8").read().strip().split("\n\n")]
        test_lab = [[ln.split()[-1] for ln in b.splitlines()]
                    for b in open(test, encoding="utf-8").read().strip().split("\n\n")]
        assert res.records[epochs - 1]["test_score"] == pytest.approx(direct.evaluate(test_tok, test_lab).f1)
    text.write_text("other words here\n", encoding="utf-8")
    assert runner.digest(run) != before
    # and the template file of the text's taggers
    taggers = tmp_path / "af.txt"
    taggers.write_text("w[0]\n", encoding="utf-8")
    run2 = Run(key="b", label="b", task="toy", learner="sapo", params={}, features=feats + f";@autofeatures={taggers}",
               epochs=1, train=DataRef(train, 0.0, 0.75), dev=None, test=DataRef(test), metric="f1")
    first = runner.digest(run2)
    taggers.write_text("w[0]\nw[1]\n", encoding="utf-8")
    assert runner.digest(run2) != first


def test_resume_with_more_epochs(tmp_path):
    """With @autoepochs a checkpointed run resumes to more epochs and equals an uninterrupted run; without
    it the refusal says why."""
    (tmp_path / "t.txt").write_text(TEXT2, encoding="utf-8")
    sents, _ = _data(40)
    rng = np.random.default_rng(3)  # labels at random: taggers of 1 and 4 passes tag the text differently
    labels = [[str(rng.choice(["A", "B", "C"])) for _ in s] for s in sents]
    feats = f"w[0];atag[0];@autotags={tmp_path / 't.txt'};@autofolds=2"
    one = chaintag.SAPO(features=feats, epochs=1).fit(sents, labels, checkpoint_dir=tmp_path / "a")
    four = chaintag.SAPO(features=feats, epochs=4).fit(sents, labels)
    assert one.extractor_.autotags.profile.values() != four.extractor_.autotags.profile.values()
    with pytest.raises(InputError, match="@autoepochs=E"):
        chaintag.SAPO(features=feats, epochs=4).fit(sents, labels, checkpoint_dir=tmp_path / "a", resume=True)
    pinned = feats + ";@autoepochs=2"
    chaintag.SAPO(features=pinned, epochs=2).fit(sents, labels, checkpoint_dir=tmp_path / "b")
    resumed = chaintag.SAPO(features=pinned, epochs=4).fit(sents, labels, checkpoint_dir=tmp_path / "b", resume=True)
    straight = chaintag.SAPO(features=pinned, epochs=4).fit(sents, labels)
    np.testing.assert_array_equal(resumed.weights_, straight.weights_)


def test_template_files_take_added_parts(tmp_path):
    """A template file with --clusters / --autotags, as @autofeatures, and pinned by the runner."""
    from chaintag.features.spec import autotag_sources, inline, with_autoepochs
    sents, labels = _data()
    train = _train_file(tmp_path, sents, labels)
    (tmp_path / "tpl").mkdir()
    (tmp_path / "tpl" / "t.txt").write_text(TEXT2, encoding="utf-8")
    spec = tmp_path / "tpl" / "feats.txt"
    spec.write_text("# templates\nw[0]\natag[0]  # the text's label\n@autotags=t.txt\n@autofolds=2\n", encoding="utf-8")
    plain = tmp_path / "tpl" / "plain.txt"
    plain.write_text("w[0]\nsuf2(w[0])\n", encoding="utf-8")
    assert inline(str(spec)) == f"w[0];atag[0];@autotags={tmp_path / 'tpl' / 't.txt'};@autofolds=2"
    assert with_autoepochs(str(spec), 3).endswith(";@autofolds=2;@autoepochs=3")
    assert autotag_sources(with_autoepochs(str(spec), 3)) == [str(tmp_path / "tpl" / "t.txt")]
    vectors = tmp_path / "v.txt"
    vectors.write_text("the 0.1 0.2\ndog 0.3 -0.1\n", encoding="utf-8")
    for extra in (["--clusters", str(vectors)], ["--autotags", str(tmp_path / "tpl" / "t.txt")]):
        assert main(["train", "--train", str(train), "--model", str(tmp_path / "m.npz"), "--features", str(spec),
                     "--epochs", "1", "--quiet", *extra]) == 0
        assert chaintag.load(tmp_path / "m.npz").extractor_.autotags.sources == ["t.txt"]
    assert main(["train", "--train", str(train), "--model", str(tmp_path / "m.npz"), "--features",
                 f"w[0];atag[0];@autofeatures={plain};@autofolds=2", "--autotags", str(tmp_path / "tpl"),
                 "--clusters", str(vectors), "--epochs", "1", "--quiet"]) == 0
    # a relative @autofeatures=FILE in a template file is read from the file's folder, from any folder
    (tmp_path / "tpl" / "f4.txt").write_text("w[0]\natag[0]\n@autotags=t.txt\n@autofeatures=plain.txt\n"
                                             "@autofolds=2\n", encoding="utf-8")
    for extra in ([], ["--clusters", str(vectors)]):
        assert main(["train", "--train", str(train), "--model", str(tmp_path / "m.npz"), "--features",
                     str(tmp_path / "tpl" / "f4.txt"), "--epochs", "1", "--quiet", *extra]) == 0
    from chaintag.features.spec import autotag_features, autotag_preset
    assert autotag_preset(str(tmp_path / "tpl" / "f4.txt")) == str(plain)
    assert autotag_features(str(tmp_path / "tpl" / "f4.txt")) == "w[0];suf2(w[0])"


def test_taggers_of_a_data_column(tmp_path):
    """@autotarget=pos: the text's taggers learn the pos column; each word's profile is its POS tags there."""
    (tmp_path / "t.txt").write_text(TEXT2, encoding="utf-8")
    sents, labels = _data()
    rows = [[(w, "P" + y) for w, y in zip(s, ls)] for s, ls in zip(sents, labels)]  # a POS column
    chunks = [["B" if y == "DT" else "I" for y in ls] for ls in labels]
    m = chaintag.SAPO(features=f"w[0];pos[0];atag[0];@autotags={tmp_path};@autofeatures=pos;@autotarget=pos;"
                      "@autofolds=2", epochs=2, random_state=0).fit(rows, chunks)
    base = chaintag.SAPO(features="pos", epochs=2, random_state=0).fit(sents, [["P" + y for y in ls] for ls in labels])
    text = [ln.split() for ln in TEXT2.splitlines()]
    assert {w: v[0] for w, v in m.extractor_.autotags.profile.values().items()} == _most_frequent(base, text)
    assert set(m.extractor_.autotags.profile.labels) <= {"PDT", "PNN", "PVB"}
    with pytest.raises(InputError, match="@autotarget=word"):
        chaintag.SAPO(features=f"w[0];atag[0];@autotags={tmp_path};@autofeatures=pos;@autotarget=word",
                      epochs=1).fit(rows, chunks)


def test_template_file_with_a_byte_order_mark_and_unused_text(tmp_path, capsys):
    sents, labels = _data()
    train = _train_file(tmp_path, sents, labels)
    spec = tmp_path / "f.txt"
    spec.write_bytes(b"\xef\xbb\xbfw[0]\nsuf2(w[0])\n")
    (tmp_path / "t.txt").write_text(TEXT2, encoding="utf-8")
    assert main(["train", "--train", str(train), "--model", str(tmp_path / "m.npz"), "--features", str(spec),
                 "--autotags", str(tmp_path / "t.txt"), "--epochs", "1"]) == 0
    assert "warning: the unlabeled text (--autotags, or the recipe's) is not used" in capsys.readouterr().err
    m = chaintag.load(tmp_path / "m.npz")
    assert [t.name for t in m.extractor_.templates] == ["bias", "word[0]", "suf2(word[0])"]
    assert m.extractor_.autotags is None
