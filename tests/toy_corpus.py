"""The toy chunking corpus shared by the learner tests: (word, POS) tokens and IOB chunk labels."""

SENTS = [
    [("the", "DT"), ("dog", "NN"), ("barks", "VBZ")],
    [("a", "DT"), ("cat", "NN"), ("sleeps", "VBZ"), ("here", "RB")],
    [("dogs", "NNS"), ("bark", "VBP")],
    [("the", "DT"), ("old", "JJ"), ("cat", "NN")],
    [("here", "RB"), ("the", "DT"), ("dog", "NN"), ("sleeps", "VBZ")],
]
LABELS = [["B-NP", "I-NP", "B-VP"], ["B-NP", "I-NP", "B-VP", "B-ADVP"], ["B-NP", "B-VP"],
          ["B-NP", "I-NP", "I-NP"], ["B-ADVP", "B-NP", "I-NP", "B-VP"]]
