"""The known model names: the built-in taggers and those built from the data directory.

Each entry says what the model tags, what it reads, the dataset split and the
``chaintag train`` settings that make it (the same settings give the same bytes:
training is serial and seeded), the scores measured with those settings, and the
licence of the data it learned from. Nothing here trains or reads data: see
:mod:`chaintag.api.builtin_models`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["ModelInfo", "MODELS", "BUILTIN", "known_names"]

_UD_EWT_LICENCE = "CC BY-SA 4.0 (UD English EWT; attribution in ATTRIBUTION-UD-EWT.txt)"

#: The Penn Treebank's part-of-speech tags (en-pos writes them; the WSJ files spell brackets ``(`` ``)``,
#: UD EWT ``-LRB-`` ``-RRB-``): whether a chunker's POS column can take en-pos's tags.
PENN_TAGS = frozenset("CC CD DT EX FW IN JJ JJR JJS LS MD NN NNS NNP NNPS PDT POS PRP PRP$ RB RBR RBS RP SYM TO "
                      "UH VB VBD VBG VBN VBP VBZ WDT WP WP$ WRB # $ . , : `` '' ( ) -LRB- -RRB- HYPH NFP ADD AFX "
                      "GW".split())


@dataclass(frozen=True)
class ModelInfo:
    """A model known by name.

    Attributes
    ----------
    name : str
        The name given to ``--model`` and :func:`chaintag.load`.
    tags : str
        What it labels, for listings (``"POS, Penn Treebank tags (XPOS)"``).
    reads : str
        What input it reads (``"words"``, ``"words and POS tags (word,pos columns)"``).
    dataset : str
        The dataset it is trained on (a name of :data:`chaintag.data.registry.DATASETS`).
    split : str
        The dataset's split it is trained on.
    settings : Mapping
        The settings of :func:`chaintag.train` (the names of ``chaintag train``'s options) that
        make it; every other setting keeps its default. They name the learner and the attributes,
        so that a change of ``train``'s defaults does not change what a name means.
    licence : str
        The licence of the training data, which a model learned from it carries.
    builtin : bool
        Shipped in the package (``<name>.npz`` beside this module), usable with no data directory.
    sha256 : str or None
        Hex SHA-256 of the shipped file (built-in models only): a rebuild gives the same bytes.
    scores : Mapping
        Measured scores with these settings: split (``"dev"``, ``"test"``) -> figure in percent
        (accuracy for POS, chunk F1 for chunking and NER); empty when none was measured.
    metric : str
        ``"accuracy"`` or ``"F1"``: what ``scores`` hold.
    source : str
        Where the scores are documented.
    """

    name: str
    tags: str
    reads: str
    dataset: str
    split: str
    settings: Mapping
    licence: str
    builtin: bool = False
    sha256: str | None = None
    scores: Mapping = field(default_factory=dict)
    metric: str = "accuracy"
    source: str = ""

    @property
    def file_name(self) -> str:
        """The model's file name, in the package (built-in) or the cache folder."""
        return f"{self.name}.npz"

    def train_source(self) -> str:
        """The dataset reference of its training data (``ud_en_ewt:train``)."""
        return f"{self.dataset}:{self.split}"


def _pos(label_field: str, epochs: int) -> dict:
    """The built-in taggers' settings, chosen on ud_en_ewt:dev (docs/models.md)."""
    return {"algorithm": "perceptron", "features": "pos", "feature_space": "gold", "cc": 2, "shuffle": True,
            "seed": 0, "epochs": epochs, "label_field": label_field}


_ENTRIES = (
    ModelInfo("en-pos", "POS, Penn Treebank tags (UD EWT XPOS)", "words", "ud_en_ewt", "train",
              _pos("xpos", 12), _UD_EWT_LICENCE, builtin=True,
              sha256="e012b4aa1d3a1e157f0b8a6cbc66821bc1ffa984dee52a1bcccf1539e4f35458",
              scores={"dev": 94.32, "test": 94.30}, source="docs/models.md"),
    ModelInfo("en-upos", "POS, Universal POS tags (UD EWT UPOS)", "words", "ud_en_ewt", "train",
              _pos("upos", 13), _UD_EWT_LICENCE, builtin=True,
              sha256="e6063f260296fadcef75833a30839126de393e044d8d61fbe6afa1e4069fd0e5",
              scores={"dev": 94.76, "test": 94.93}, source="docs/models.md"),
    ModelInfo("en-chunk", "phrase chunks, CoNLL-2000 (IOB2)", "words and POS tags (word,pos columns)",
              "conll2000", "train", {"algorithm": "perceptron", "features": "chunking", "epochs": 10},
              "as the CoNLL-2000 data (NLTK; WSJ text of the Penn Treebank)",
              scores={"test": 93.48}, metric="F1", source="docs/RESULTS.md"),
    ModelInfo("en-np", "base noun phrases (B-NP, I-NP, O)", "words and POS tags (word,pos columns)",
              "conll2000_np", "train", {"algorithm": "perceptron", "features": "chunking", "epochs": 20},
              "as the CoNLL-2000 data (NLTK; WSJ text of the Penn Treebank)",
              scores={"test": 93.82}, metric="F1", source="docs/RESULTS.md"),
    ModelInfo("en-pos-wsj", "POS, Penn Treebank tags (WSJ sample)", "words", "ptb_sample", "train",
              {"algorithm": "perceptron", "features": "pos", "epochs": 20},
              "as the NLTK Penn Treebank sample: non-commercial use only (LDC)",
              scores={"test": 96.33}, source="docs/RESULTS.md"),
    ModelInfo("en-bio-ner", "biomedical entities, JNLPBA (protein, DNA, RNA, cell line, cell type)", "words",
              "jnlpba", "train", {"algorithm": "perceptron", "features": "ner", "epochs": 10},
              "as the JNLPBA data (GENIA Project licence: annotations CC BY 3.0)",
              scores={"test": 69.64}, metric="F1", source="docs/models.md"),
)

#: Every known model, by name: the built-in ones first.
MODELS: dict[str, ModelInfo] = {m.name: m for m in _ENTRIES}

#: The names of the models shipped in the package.
BUILTIN: tuple[str, ...] = tuple(m.name for m in _ENTRIES if m.builtin)


def known_names() -> list[str]:
    """Every known model name, the built-in ones first.

    Returns
    -------
    list of str
    """
    return list(MODELS)
