"""Proper-name tasks built from the handed POS-tagged data: English NER tasks beside JNLPBA for the choice of
the NER defaults.

The data directory holds one NER task (JNLPBA, biomedical abstracts). A default chosen on it alone is chosen
for one domain, and its resources (text of that domain) say nothing about newswire or web text. Two more
NER tasks are built here from the gold POS tags of the handed English data, with the POS column dropped:

- ``wsj_names``: CoNLL-2000 (Wall Street Journal), each maximal run of ``NNP`` / ``NNPS`` tokens inside one
  chunk is one ``NAME`` span (a chunk boundary ends a run: "Mr. Vinken" is one name, "Japan 's Sony" two);
- ``ewt_names``: UD English EWT (web text: blogs, reviews, e-mail, answers), each maximal run of XPOS
  ``NNP`` / ``NNPS`` tokens is one ``NAME`` span.

The tasks are untyped (one entity type): they measure finding names, where capitalisation misleads at the
start of a sentence and in headlines, and where word clusters of text from the same language help most;
typing needs data we do not have. Files: two columns (word, label), BIO, blank line between sentences.

Run ``python -m chaintag_research.names_tasks OUT [--data-dir DIR]`` to write them (``OUT/wsj_names/`` and
``OUT/ewt_names/``: ``train.txt``, ``test.txt``, and EWT's ``dev.txt``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

#: XPOS tags of proper nouns.
NAME_TAGS = frozenset({"NNP", "NNPS"})


def name_labels(tags, chunks=None) -> list[str]:
    """BIO labels of the maximal runs of proper-noun tags, a run ended at every chunk start.

    Parameters
    ----------
    tags : sequence of str
        XPOS tags of one sentence.
    chunks : sequence of str, optional
        Chunk labels (BIO) of the same tokens: a ``B-`` label or ``O`` ends a run.

    Returns
    -------
    list of str
        ``B-NAME``, ``I-NAME`` or ``O`` per token.
    """
    out, inside = [], False
    for i, tag in enumerate(tags):
        breaks = chunks is not None and not chunks[i].startswith("I-")
        if tag in NAME_TAGS:
            out.append("I-NAME" if inside and not breaks else "B-NAME")
            inside = True
        else:
            out.append("O")
            inside = False
    return out


def _columns(path: Path):
    """Sentences of a whitespace column file as lists of token rows."""
    sent = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            parts = line.split()
            if parts:
                sent.append(parts)
            elif sent:
                yield sent
                sent = []
    if sent:
        yield sent


def _conllu(path: Path):
    """Sentences of a CoNLL-U file as ``(form, xpos)`` pairs (multiword-token and empty-node lines skipped)."""
    sent = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if not line:
                if sent:
                    yield sent
                    sent = []
                continue
            if line.startswith("#"):
                continue
            cols = line.split("\t")
            if "-" in cols[0] or "." in cols[0]:
                continue
            sent.append((cols[1], cols[4]))
    if sent:
        yield sent


def _write(path: Path, sentences) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    n = 0
    with open(tmp, "w", encoding="utf-8") as fh:
        for words, labels in sentences:
            fh.writelines(f"{w} {lab}\n" for w, lab in zip(words, labels))
            fh.write("\n")
            n += 1
    os.replace(tmp, path)
    return n


def build(out_dir, data_dir=None) -> dict:
    """Write the two tasks under ``out_dir``; returns ``{task: {"train", "dev", "test"}}`` paths (``dev`` None
    for ``wsj_names``: the last 10 % of its training file, as for CoNLL-2000)."""
    from chaintag.data.location import resolve_data_dir
    data = resolve_data_dir(data_dir)
    out = Path(out_dir)
    tasks = {}
    wsj = {}
    for split in ("train", "test"):
        path = out / "wsj_names" / f"{split}.txt"
        if not path.exists():
            _write(path, (([r[0] for r in s], name_labels([r[1] for r in s], [r[2] for r in s]))
                          for s in _columns(data / "conll2000" / f"{split}.txt")))
        wsj[split] = str(path)
    tasks["wsj_names"] = {"train": wsj["train"], "dev": None, "test": wsj["test"]}
    ewt = {}
    for split in ("train", "dev", "test"):
        path = out / "ewt_names" / f"{split}.txt"
        if not path.exists():
            _write(path, (([w for w, _ in s], name_labels([t for _, t in s]))
                          for s in _conllu(data / "ud_en_ewt" / f"en_ewt-ud-{split}.conllu")))
        ewt[split] = str(path)
    tasks["ewt_names"] = ewt
    return tasks


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--data-dir", default=os.environ.get("CHAINTAG_DATA"))
    args = ap.parse_args(argv)
    for task, paths in build(args.out, args.data_dir).items():
        print(task, paths)
    return 0


if __name__ == "__main__":
    sys.exit(main())
