"""A model that reads document columns computes them itself from plain token lists, in Python as on the CLI."""

import numpy as np
import pytest

import chaintag
from chaintag.cli.main import main
from chaintag.errors import InputError
from chaintag.features.document import DOCUMENT_COLUMNS, add_document_columns

# two documents of training text: abbreviations defined, then used
TRAIN = [["the", "T", "cell", "receptor", "(", "TCR", ")", "binds"], ["TCR", "signals", "the", "cell"],
         ["interleukin", "2", "(", "IL-2", ")", "gene", "expression"], ["IL-2", "gene", "expression", "rises"],
         ["the", "IL-2", "receptor", "(", "IL-2R", ")", "is", "here"], ["IL-2R", "binds", "TCR"]]
ENTITY = {"TCR": "B-protein", "IL-2": "B-DNA", "IL-2R": "B-protein", "receptor": "I-protein", "gene": "I-DNA"}
# the sentences tagged in the tests: one document, IL-2 and TCR defined in the first one
TEST = [["interleukin", "2", "(", "IL-2", ")", "and", "TCR"], ["IL-2", "gene", "expression"], ["TCR", "binds"]]
FEATURES = "w[0];w[-1];w[1];abbr[0];docnext[0];doccap[0];doccap[0]|w[0]"


def _labels(sent):
    out = []
    for i, w in enumerate(sent):
        lab = ENTITY.get(w, "O")
        if lab.startswith("I-") and (i == 0 or out[-1][2:] != lab[2:]):  # valid IOB2
            lab = "O"
        out.append(lab)
    return out


def _fit(name, features=FEATURES, **kw):
    rows = add_document_columns(TRAIN, [0, 0, 1, 1, 1, 1])
    return chaintag.make_learner(name, features=features, columns=("word",) + DOCUMENT_COLUMNS, epochs=3,
                                 random_state=0, **kw).fit(rows, [_labels(s) for s in TRAIN])


@pytest.fixture(scope="module", params=["sapo", "sapo2", "perceptron2"])
def model(request):
    return _fit(request.param)


def test_plain_words_get_their_document_columns(model):
    explicit = add_document_columns(TEST)  # the sentences as one document
    assert model.predict(TEST) == model.predict(explicit)
    # the values differ from a document of each sentence alone: the columns were computed over the call
    assert add_document_columns(TEST[1:2])[0] != explicit[1]
    # any iterable of sentences, tuples of the input column, lists of words
    assert model.predict(iter(TEST)) == model.predict(explicit)
    assert model.predict([[(w,) for w in s] for s in TEST]) == model.predict(explicit)
    if model.algorithm != "perceptron2":  # the second-order perceptron has no n-best search
        assert model.predict_nbest(TEST, 3) == model.predict_nbest(explicit, 3)
        assert model.predict_confidence(TEST, 3) == model.predict_confidence(explicit, 3)
    if model.order == 1:
        for a, b in zip(model.predict_marginals(TEST), model.predict_marginals(explicit)):
            np.testing.assert_array_equal(a, b)
    gold = [_labels(s) for s in TEST]
    assert model.evaluate(TEST, gold).accuracy == model.evaluate(explicit, gold).accuracy


def test_constrained_and_partial_decoding_on_plain_words(model):
    explicit = add_document_columns(TEST)
    fixed = [[None] * len(s) for s in TEST]
    fixed[2][0] = "B-protein"
    assert model.predict(TEST, constrain=True, fixed=fixed) == model.predict(explicit, constrain=True, fixed=fixed)


def test_as_the_cli_tags_a_file_without_document_markers(model, tmp_path):
    path = tmp_path / "m.npz"
    model.save(path)
    src = tmp_path / "in.txt"
    src.write_text("".join("\n".join(s) + "\n\n" for s in TEST), encoding="utf-8")
    out = tmp_path / "out.txt"
    assert main(["tag", "--model", str(path), str(src), "--output", str(out), "--quiet"]) == 0
    tagged = [ln.split()[-1] for ln in out.read_text(encoding="utf-8").splitlines() if ln.strip()]
    assert tagged == [lab for s in chaintag.load(path).predict(TEST) for lab in s]
    assert tagged == [lab for s in model.predict(TEST) for lab in s]


def test_input_columns_other_than_the_word():
    rows = [[(w, "NN" if w[0].isupper() else "X") for w in s] for s in TRAIN]
    full = add_document_columns(rows, [0, 0, 1, 1, 1, 1])
    m = chaintag.make_learner("sapo", features="w[0];pos[0];abbr[0];doccap[0]|pos[0]",
                              columns=("word", "pos") + DOCUMENT_COLUMNS, epochs=2).fit(full, [_labels(s)
                                                                                              for s in TRAIN])
    test = [[(w, "NN" if w[0].isupper() else "X") for w in s] for s in TEST]
    assert m.predict(test) == m.predict(add_document_columns(test))
    # columns after the input columns are left out (as chaintag tag copies them through)
    assert m.predict([[t + ("extra",) for t in s] for s in test]) == m.predict(test)
    with pytest.raises(InputError, match=r"sentence 1, token 0: .* has 1 columns, expected 2 .*document columns "
                                         r"abbr, docnext, doccap are computed"):
        m.predict([test[0], [("IL-2",)] + test[1][1:]])


def test_models_without_document_columns_are_unchanged():
    m = chaintag.make_learner("sapo", features="w[0];w[-1]", epochs=2).fit(TRAIN, [_labels(s) for s in TRAIN])
    assert m.predict(TEST) == m.predict([[(w,) for w in s] for s in TEST])
    with pytest.raises(InputError, match=r"sentence 0, token 0: token 'a' is one string \(1 column\), but the model "
                                         r"reads 2 columns: give each token as a tuple"):
        chaintag.make_learner("sapo", features="w[0];pos[0]", columns=("word", "pos"), epochs=1).fit(
            [[("a", "X")]], [["O"]]).predict([["a"]])


def test_the_other_computed_columns_need_nothing_from_the_caller(tmp_path):
    # gazetteer columns (gaz, gazn) are computed by the model's extractor from the words as well
    m = chaintag.make_learner("sapo", features="w[0];gaz[0];gazn[0];@gazetteer=train", epochs=2).fit(
        TRAIN, [_labels(s) for s in TRAIN])
    assert m.predict(TEST) == m.predict([[(w,) for w in s] for s in TEST])
