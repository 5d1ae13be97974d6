"""The choice of the defaults per kind of task (research code): the proper-name tasks and the resource gate."""

import pytest

from chaintag_research import kind_defaults as kd
from chaintag_research.names_tasks import name_labels


def test_name_labels_are_runs_of_proper_nouns_ended_at_chunk_starts():
    tags = ["NNP", "NNP", "VBD", "NNP", "POS", "NNP", "NNPS", "NNP"]
    chunks = ["B-NP", "I-NP", "B-VP", "B-NP", "B-NP", "I-NP", "I-NP", "B-NP"]
    assert name_labels(tags, chunks) == ["B-NAME", "I-NAME", "O", "B-NAME", "O", "B-NAME", "I-NAME", "B-NAME"]
    assert name_labels(tags) == ["B-NAME", "I-NAME", "O", "B-NAME", "O", "B-NAME", "I-NAME", "I-NAME"]
    assert name_labels(["NNP"], ["O"]) == ["B-NAME"] and name_labels([]) == []


def _trial(task, algorithm, candidate, score, resources=None):
    return {"kind": "ner", "task": task, "algorithm": algorithm, "candidate": candidate,
            "resources": " + " in candidate if resources is None else resources, "dev_curve": [score - 1, score],
            "dev_score": score, "best_epoch": 2, "seconds": 1.0}


@pytest.fixture
def ner_only(monkeypatch):
    tasks = {"ner": [("bio", "bio.txt", 0.1), ("news", "news.txt", 0.1)]}
    monkeypatch.setattr(kd, "TASKS", tasks)
    monkeypatch.setattr(kd, "ATTRIBUTE_TASKS", {"ner": ("bio",)})
    # GloVe and the text cover the newswire words, not the biomedical ones
    for train, share in (("bio.txt", 0.72), ("news.txt", 0.97)):
        for which in ("vectors", "text"):
            monkeypatch.setitem(kd._COVERAGE, (train, "None", which), ("x", share))


def test_a_resource_not_taken_scores_as_the_attributes_without_it(ner_only):
    trials = [_trial("bio", "sapo", "ner+gaz", 78.0), _trial("bio", "sapo", "ner+gaz + km(GloVe)", 70.0),
              _trial("news", "sapo", "ner+gaz + km(GloVe)", 92.0), _trial("news", "sapo", "ner+gaz", 89.0),
              _trial("bio", "sapo", "ner+gaz + clusters(unlabeled_bio)", 71.0),
              _trial("news", "sapo", "ner+gaz + clusters(unlabeled_en)", 91.0)]
    seen = {(r["task"], r["candidate"]): r for r in kd.effective(trials)}
    assert seen[("bio", "ner+gaz + km(GloVe)")]["dev_score"] == 78.0
    assert seen[("bio", "ner+gaz + km(GloVe)")]["not_taken"] is True
    assert seen[("news", "ner+gaz + km(GloVe)")]["dev_score"] == 92.0
    assert seen[("bio", "ner+gaz + clusters(text)")]["dev_score"] == 78.0  # one name for every folder
    assert seen[("news", "ner+gaz + clusters(text)")]["dev_score"] == 91.0
    choice = kd.choose(trials)["ner"]["resources"]
    assert (choice["algorithm"], choice["candidate"], choice["scores"]) == \
        ("sapo", "ner+gaz + km(GloVe)", {"bio": 78.0, "news": 92.0})
    # a candidate run only where its resource is taken scores the plain trial elsewhere
    trials.append(_trial("news", "sapo", "ner+gaz + km5(GloVe)", 93.0))
    seen = {(r["task"], r["candidate"]): r for r in kd.effective(trials)}
    assert seen[("bio", "ner+gaz + km5(GloVe)")]["dev_score"] == 78.0
    assert kd.choose(trials)["ner"]["resources"]["candidate"] == "ner+gaz + km5(GloVe)"


def test_ner_attributes_are_chosen_on_the_typed_task_then_learner_and_resources_on_all(ner_only):
    trials = [_trial("bio", "sapo", "ner+gaz", 78.0), _trial("news", "sapo", "ner+gaz", 89.0),
              _trial("bio", "crf", "ner+gaz", 78.5), _trial("news", "crf", "ner+gaz", 88.0),
              _trial("bio", "sapo", "ner", 77.0), _trial("news", "sapo", "ner", 91.0),  # higher sum: not chosen
              _trial("bio", "sapo", "ner + km(GloVe)", 60.0), _trial("news", "sapo", "ner + km(GloVe)", 95.0),
              _trial("bio", "sapo", "ner+gaz + km(GloVe)", 60.0), _trial("news", "sapo", "ner+gaz + km(GloVe)", 90.0)]
    chosen = kd.choose(trials)["ner"]
    assert (chosen["plain"]["algorithm"], chosen["plain"]["candidate"], chosen["plain"]["sum"]) == \
        ("sapo", "ner+gaz", 167.0)  # ner+gaz: crf's on the typed task; then sapo on the sum, 167 > 166.5
    assert (chosen["resources"]["algorithm"], chosen["resources"]["candidate"], chosen["resources"]["sum"]) == \
        ("sapo", "ner+gaz + km(GloVe)", 168.0)
    # a tie between attributes with and without a resource goes to those without
    trials[-1] = _trial("news", "sapo", "ner+gaz + km(GloVe)", 89.0)
    assert kd.choose(trials)["ner"]["resources"]["candidate"] == "ner+gaz"
