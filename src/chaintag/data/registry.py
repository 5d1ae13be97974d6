"""The named datasets (one folder per dataset under the data directory, one file per split) and the
named resources (word vectors and the like: files in a folder of the data directory, no splits)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["DatasetInfo", "DATASETS", "ResourceInfo", "RESOURCES", "ALIASES", "canonical_name"]


@dataclass(frozen=True)
class DatasetInfo:
    """A named dataset: a folder ``<data dir>/<name>/`` holding one file per split.

    Attributes
    ----------
    name : str
        Dataset name, also the folder name.
    splits : Mapping[str, str]
        Split name -> file name inside the folder.
    format : {"columns", "conllu"}
        File format.
    columns : tuple of str
        Column spec of the files (see :func:`parse_columns`).
    sep : str or None
        Field separator for column files (None: detect).
    description : str
        One line for listings.
    """

    name: str
    splits: Mapping[str, str]
    format: str
    columns: tuple[str, ...]
    sep: str | None
    description: str


#: Every known dataset, by name.
DATASETS: dict[str, DatasetInfo] = {d.name: d for d in (
    DatasetInfo("conll2000", {"train": "train.txt", "test": "test.txt"}, "columns",
                ("word", "pos", "label"), " ",
                "CoNLL-2000 chunking (WSJ), IOB2 chunk labels"),
    DatasetInfo("conll2000_np", {"train": "train.txt", "test": "test.txt"}, "columns",
                ("word", "pos", "label"), " ",
                "base-NP chunking derived from CoNLL-2000 (B-NP, I-NP, O)"),
    DatasetInfo("ptb_sample", {"train": "train.txt", "dev": "dev.txt", "test": "test.txt"},
                "columns", ("word", "label"), " ",
                "Penn Treebank WSJ sample (NLTK), gold POS labels"),
    DatasetInfo("ud_en_ewt", {"train": "en_ewt-ud-train.conllu", "dev": "en_ewt-ud-dev.conllu",
                              "test": "en_ewt-ud-test.conllu"},
                "conllu", ("word", "label"), None,
                "Universal Dependencies English EWT; XPOS labels (UPOS with --label-field upos)"),
    DatasetInfo("jnlpba", {"train": "train.reconstructed.iob2",
                           "train_gold": "train_gold_subset.iob2",
                           "test": "Genia4EReval2.iob2"},
                "columns", ("word", "label"), "\t",
                "JNLPBA bio-entity recognition (train is an approximate reconstruction)"),
)}


@dataclass(frozen=True)
class ResourceInfo:
    """A named resource: files in a folder ``<data dir>/<name>/``, not a corpus with splits.

    Attributes
    ----------
    name : str
        Resource name, also the folder name.
    files : tuple of str
        File names inside the folder.
    description : str
        One line for listings.
    """

    name: str
    files: tuple[str, ...]
    description: str


#: Every known resource, by name.
RESOURCES: dict[str, ResourceInfo] = {r.name: r for r in (
    ResourceInfo("glove6b50d", ("glove.6B.50d.txt",),
                 "GloVe 6B word vectors, 50 dimensions, text format (PDDL 1.0)"),
)}

#: Other names accepted for a dataset or resource: alias -> name.
ALIASES: dict[str, str] = {"glove6b": "glove6b50d"}


def canonical_name(name: str) -> str:
    """The dataset or resource name that ``name`` stands for (itself unless it is an alias).

    Parameters
    ----------
    name : str
        A name of :data:`DATASETS` or :data:`RESOURCES`, or an alias of :data:`ALIASES`.

    Returns
    -------
    str
        ``ALIASES[name]`` for an alias, else ``name`` unchanged (known or not).
    """
    return ALIASES.get(name, name)
