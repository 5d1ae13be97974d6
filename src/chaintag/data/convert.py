"""Conversions of public sources into the column files of the data directory.

- Penn Treebank ``.mrg`` parse trees into ``word TAG`` lines (``ptb_sample``),
  split by WSJ file id.
- CoNLL-2000 chunking lines into base-NP chunking lines (``conll2000_np``).

Used by :mod:`chaintag.data.fetch`; pure functions of text, without I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from chaintag.errors import InputError

__all__ = ["read_trees", "tree_tokens", "convert_treebank", "derive_np"]

_PTB_SPLITS = ("train", "dev", "test")
_NP_TAGS = frozenset({"B-NP", "I-NP"})


# --------------------------------------------------------------------------- trees


_TREE_TOKEN = re.compile(r"[()]|[^\s()]+")


def read_trees(text: str, name: str = "<trees>") -> Iterator[list]:
    """Read bracketed parse trees (Penn Treebank ``.mrg`` style).

    Parameters
    ----------
    text : str
        Zero or more trees, e.g. ``"( (S (NP (DT The) (NN cat)) (VBD sat)) )"``.
    name : str
        Name of the source, for error messages.

    Yields
    ------
    list
        One node per top-level bracket: ``[label, child, ...]`` where ``label``
        is the first atom after the opening bracket (None when the bracket opens
        directly with a sub-tree, as the outer bracket of ``.mrg`` trees does) and
        each child is a nested node or a word.

    Raises
    ------
    InputError
        Unbalanced brackets, or a word outside any bracket.
    """
    stack: list[list] = []
    for m in _TREE_TOKEN.finditer(text):
        tok = m.group()
        if tok == "(":
            stack.append([None])
        elif tok == ")":
            if not stack:
                raise InputError(f"unbalanced ')' at offset {m.start()}", name)
            node = stack.pop()
            if stack:
                stack[-1].append(node)
            else:
                yield node
        elif not stack:
            raise InputError(f"{tok!r} outside any bracket at offset {m.start()}", name)
        elif stack[-1] == [None]:
            stack[-1][0] = tok
        else:
            stack[-1].append(tok)
    if stack:
        raise InputError(f"{len(stack)} bracket(s) left open at the end", name)


def tree_tokens(tree: list) -> list[tuple[str, str]]:
    """The (word, tag) preterminals of a tree, in order, without ``-NONE-`` elements.

    Parameters
    ----------
    tree : list
        A node as yielded by :func:`read_trees`.

    Returns
    -------
    list of tuple of (str, str)
        ``(word, tag)`` for each node ``(TAG word)``; empty elements (tag
        ``-NONE-``: traces, null complementizers) are left out.
    """
    out: list[tuple[str, str]] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        label, children = node[0], node[1:]
        if label is not None and len(children) == 1 and isinstance(children[0], str):
            if label != "-NONE-":
                out.append((children[0], label))
            continue
        stack.extend(c for c in reversed(children) if isinstance(c, list))
    return out


def _ptb_split(number: int) -> str:
    if number <= 159:
        return "train"
    if number <= 179:
        return "dev"
    return "test"


def convert_treebank(files: dict[str, str]) -> dict[str, str]:
    """Turn Penn Treebank files into ``word TAG`` split files.

    Parameters
    ----------
    files : dict of str to str
        File id (``"wsj_0001"``) -> text of its ``.mrg`` file.

    Returns
    -------
    dict of str to str
        ``"train.txt"``, ``"dev.txt"``, ``"test.txt"``: one ``word TAG`` line per
        token and a blank line after each sentence, files in order of id;
        wsj_0001-0159 go to train, 0160-0179 to dev, 0180-0199 (and above) to
        test. Sentences left empty once ``-NONE-`` elements are dropped are
        skipped. ``"fileids.tsv"``: header ``split<TAB>sentence<TAB>fileid`` then
        the 0-based sentence index in its split file and its file id.
    """
    parts: dict[str, list[str]] = {s: [] for s in _PTB_SPLITS}
    counts = dict.fromkeys(_PTB_SPLITS, 0)
    ids = ["split\tsentence\tfileid\n"]
    for fileid in sorted(files):
        m = re.fullmatch(r"wsj_(\d{4})", fileid)
        if m is None:
            raise ValueError(f"not a WSJ file id: {fileid!r}")
        split = _ptb_split(int(m.group(1)))
        for tree in read_trees(files[fileid], fileid + ".mrg"):
            tokens = tree_tokens(tree)
            if not tokens:
                continue
            parts[split].append("".join(f"{w} {t}\n" for w, t in tokens) + "\n")
            ids.append(f"{split}\t{counts[split]}\t{fileid}\n")
            counts[split] += 1
    out = {f"{s}.txt": "".join(parts[s]) for s in _PTB_SPLITS}
    out["fileids.tsv"] = "".join(ids)
    return out


# --------------------------------------------------------------------------- NP chunks


def derive_np(text: str, name: str = "<conll2000>") -> str:
    """Base-NP chunking lines from CoNLL-2000 lines.

    Parameters
    ----------
    text : str
        ``word POS chunk`` lines, blank lines between sentences.
    name : str
        Name of the source, for error messages.

    Returns
    -------
    str
        The same lines with every chunk tag other than ``B-NP`` and ``I-NP``
        replaced by ``O``; blank lines are written as empty lines. Every line,
        the last included, ends with a newline.

    Raises
    ------
    InputError
        A line without exactly three fields, or an ``I-NP`` that does not follow
        an NP tag.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # nothing after the final newline
    out: list[str] = []
    prev = "O"
    for number, line in enumerate(lines, 1):
        if not line.strip():
            out.append("\n")
            prev = "O"
            continue
        fields = line.split(" ")
        if len(fields) != 3:
            raise InputError(f"expected 'word POS chunk', found {len(fields)} field(s)", name,
                             number)
        word, pos, chunk = fields
        tag = chunk if chunk in _NP_TAGS else "O"
        if tag == "I-NP" and prev not in _NP_TAGS:
            raise InputError("I-NP does not follow an NP tag", name, number)
        out.append(f"{word} {pos} {tag}\n")
        prev = tag
    return "".join(out)
