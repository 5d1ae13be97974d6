"""The recipe file of the library (``chaintag/recipes/recipes.json``) and its loader."""

import pytest

from chaintag import recipes
from chaintag.cli.recipes import RECIPES

#: Every recipe name ``chaintag train --recipe`` took before the recipes became data.
NAMES = ["chunking", "chunking-vec", "base-np", "pos-ptb", "pos-ud", "pos-ud-vec", "bio-ner", "bio-ner-doc",
         "bio-ner-gaz", "bio-ner-affixes", "chunking-km", "base-np-km", "pos-ud-clusters", "chunking-clusters",
         "base-np-plain", "bio-ner-clusters"]


def test_every_recipe_name_is_kept_with_its_settings():
    assert list(recipes.recipes()) == NAMES and list(RECIPES) == NAMES
    assert recipes.settings("bio-ner") == {"algorithm": "sapo", "order": 2, "features": "ner+doc", "l2": 5.0,
                                           "epochs": 29}
    assert recipes.settings("pos-ud-clusters") == {"algorithm": "sapo", "features": "pos+clusters", "l2": 2.0,
                                                   "feature_space": "all", "epochs": 17}
    assert recipes.settings("chunking")["autotags"] == ["unlabeled_en"]
    assert RECIPES["base-np-plain"]["about"] == "base NP chunking: SAPO n=5, L2 1, chunking, 25 epochs"


def test_superseded_recipes_lead_to_the_chosen_recipe_of_their_task():
    chosen = recipes.chosen()
    assert chosen == {"chunking": "chunking", "np": "base-np", "pos": "pos-ptb", "ud": "pos-ud", "ner": "bio-ner"}
    assert {recipes.current(name) for name in NAMES} == set(chosen.values())
    assert recipes.superseded_by("chunking-vec") == "chunking" and recipes.superseded_by("chunking") is None
    assert recipes.current("bio-ner-clusters") == "bio-ner"
    assert [n for n in NAMES if recipes.superseded_by(n) is None] == ["chunking", "base-np", "pos-ptb", "pos-ud",
                                                                      "bio-ner"]
    # the flag is data about the recipe, not a train option
    assert "superseded_by" in recipes.recipes()["chunking-km"]
    assert "superseded_by" not in recipes.settings("chunking-km") and "about" not in recipes.settings("chunking-km")


def test_the_loader_hands_out_copies():
    recipes.settings("chunking")["autotags"].append("other")
    recipes.recipes()["pos-ptb"]["epochs"] = 1
    recipes.chosen()["np"] = "base-np-km"
    assert recipes.settings("chunking")["autotags"] == ["unlabeled_en"]
    assert recipes.settings("pos-ptb")["epochs"] == 16 and recipes.chosen()["np"] == "base-np"


@pytest.mark.parametrize("doc, message", [
    ({"recipes": {}}, "no 'recipes' table"),
    ({"recipes": {"a": {"about": "x"}}}, "recipe 'a': no 'algorithm'"),
    ({"recipes": {"a": {"algorithm": "sapo", "about": "x", "superseded_by": "b"}}}, "names no recipe: 'b'"),
    ({"recipes": {"a": {"algorithm": "sapo", "about": "x", "superseded_by": "b"},
                  "b": {"algorithm": "sapo", "about": "y", "superseded_by": "a"}}}, "comes back to 'a'"),
    ({"recipes": {"a": {"algorithm": "sapo", "about": "x"}}, "chosen": {"np": "c"}}, "is not a recipe: 'c'"),
    ({"recipes": {"a": {"algorithm": "sapo", "about": "x", "superseded_by": "b"},
                  "b": {"algorithm": "sapo", "about": "y"}}, "chosen": {"np": "a"}}, "is superseded: 'a'"),
])
def test_check_refuses_a_broken_recipe_file(doc, message):
    with pytest.raises(ValueError, match=message):
        recipes.check(doc)


def test_unknown_names_raise_key_error():
    with pytest.raises(KeyError):
        recipes.settings("no-such-recipe")
    with pytest.raises(KeyError):
        recipes.current("no-such-recipe")
