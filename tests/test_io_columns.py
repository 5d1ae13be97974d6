"""Tests for chaintag.io.columns: reading and writing CoNLL column files."""

from __future__ import annotations

import io
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chaintag.errors import InputError
from chaintag.io.columns import (
    Sentence, format_sentence, iter_lines, iter_sentences, read_sentences, write_sentences,
)


def write_bytes(tmp_path, data: bytes, name: str = "data.txt"):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def token_lists(sentences):
    return [s.tokens for s in sentences]


TWO = [[("He", "PRP", "B-NP"), ("reckons", "VBZ", "B-VP"), (".", ".", "O")],
       [("The", "DT", "B-NP"), ("cat", "NN", "I-NP")]]
TWO_TEXT = "He PRP B-NP\nreckons VBZ B-VP\n. . O\n\nThe DT B-NP\ncat NN I-NP\n"


def test_basic_lines_and_values(tmp_path):
    path = write_bytes(tmp_path, TWO_TEXT.encode())
    got = read_sentences(path)
    assert token_lists(got) == TWO
    assert [s.line for s in got] == [1, 5]
    assert isinstance(got[0], Sentence)


def test_crlf(tmp_path):
    path = write_bytes(tmp_path, TWO_TEXT.replace("\n", "\r\n").encode())
    got = read_sentences(path)
    assert token_lists(got) == TWO
    assert all(not v.endswith("\r") for s in got for t in s.tokens for v in t)


def test_lone_cr(tmp_path):
    path = write_bytes(tmp_path, TWO_TEXT.replace("\n", "\r").encode())
    got = read_sentences(path)
    assert token_lists(got) == TWO
    assert [s.line for s in got] == [1, 5]


@pytest.mark.parametrize("ending", ["\r\n", "\r", "\n"])
def test_line_ending_across_chunk_boundary(ending):
    # The line ending starts on the last byte of the first 64 KiB chunk.
    first = "a " + "x" * (65535 - 4) + " O"
    assert len(first) == 65535
    data = (first + ending + "b y O\r" + "c z O\n\nd w O").encode()
    got = read_sentences(io.BytesIO(data))
    assert [len(s.tokens) for s in got] == [3, 1]
    assert got[0].tokens[0][1] == "x" * 65531
    assert got[0].tokens[1] == ("b", "y", "O")
    assert got[1].tokens == [("d", "w", "O")]
    assert got[1].line == 5


def test_bom_stripped(tmp_path):
    path = write_bytes(tmp_path, b"\xef\xbb\xbf" + TWO_TEXT.encode())
    got = read_sentences(path)
    assert got[0].tokens[0] == ("He", "PRP", "B-NP")


def test_bom_stripped_from_text_stream():
    got = read_sentences(io.StringIO("\ufeffa B\n"))
    assert got[0].tokens == [("a", "B")]


def test_document_markers_and_blank_runs(tmp_path):
    text = ("-DOCSTART- -X- O\n\n\n\nHe PRP B-NP\nruns VBZ B-VP\n\n\n"
            "-DOCSTART- -X- O\n\nIt PRP B-NP\nstops VBZ B-VP\n\n\n\n")
    got = read_sentences(write_bytes(tmp_path, text.encode()))
    assert token_lists(got) == [[("He", "PRP", "B-NP"), ("runs", "VBZ", "B-VP")],
                                [("It", "PRP", "B-NP"), ("stops", "VBZ", "B-VP")]]
    assert [s.line for s in got] == [5, 11]


def test_marker_ends_sentence_without_blank_line():
    text = "a O\nb O\n###MEDLINE:123\nc O\n-DOCSTART-\td\n"
    got = read_sentences(io.StringIO(text))
    assert token_lists(got) == [[("a", "O"), ("b", "O")], [("c", "O")]]


def test_medline_markers_in_tab_file():
    text = "###MEDLINE:9999\n\nIL-2\tB-protein\ngene\tO\n\n###MEDLINE:10000\n\nT\tO\n"
    got = read_sentences(io.StringIO(text))
    assert token_lists(got) == [[("IL-2", "B-protein"), ("gene", "O")], [("T", "O")]]
    assert [s.line for s in got] == [3, 8]


def test_whitespace_only_lines_break_sentences():
    text = "a O\n   \nb O\n\t\nc O\n \t \r\nd O"
    got = read_sentences(io.StringIO(text))
    assert token_lists(got) == [[("a", "O")], [("b", "O")], [("c", "O")], [("d", "O")]]


def test_no_final_newline(tmp_path):
    path = write_bytes(tmp_path, TWO_TEXT.rstrip("\n").encode())
    got = read_sentences(path)
    assert token_lists(got) == TWO


def test_no_final_newline_after_cr(tmp_path):
    path = write_bytes(tmp_path, b"a O\rb O\r")
    assert token_lists(read_sentences(path)) == [[("a", "O"), ("b", "O")]]


def test_hash_is_a_token():
    text = "# NN B-NP\n1 CD I-NP\nis VBZ B-VP\n#hashtag NN B-NP\n. . O\n"
    got = read_sentences(io.StringIO(text))
    assert len(got) == 1
    assert [t[0] for t in got[0].tokens] == ["#", "1", "is", "#hashtag", "."]


def test_tab_file_tokens_with_spaces():
    text = "New York\tNNP\tB-LOC\nis\tVBZ\tO\n\nfoo bar baz\tNN\tO\t\n"
    got = read_sentences(io.StringIO(text))
    assert token_lists(got) == [[("New York", "NNP", "B-LOC"), ("is", "VBZ", "O")],
                                [("foo bar baz", "NN", "O")]]


def test_tab_detection_uses_first_token_line_not_marker():
    text = "-DOCSTART- -X- O\n\na b\tO\n"
    assert token_lists(read_sentences(io.StringIO(text))) == [[("a b", "O")]]


def test_space_file_collapses_whitespace_runs():
    text = "a   DT  \t B-NP  \nb NN I-NP\n"
    # first line has a tab, so this is a tab file: force whitespace splitting
    got = read_sentences(io.StringIO(text), sep=" ")
    assert got[0].tokens == [("a", "DT", "B-NP"), ("b", "NN", "I-NP")]


def test_forced_tab_separator():
    got = read_sentences(io.StringIO("a b c\n"), sep="\t")
    assert got[0].tokens == [("a b c",)]


def test_inconsistent_columns_names_file_and_line(tmp_path):
    path = write_bytes(tmp_path, b"He PRP B-NP\nreckons VBZ\n. . O\n", name="bad.txt")
    with pytest.raises(InputError) as err:
        read_sentences(path)
    assert err.value.path == str(path)
    assert err.value.line == 2
    assert "expected 3 columns" in str(err.value)
    assert "found 2" in str(err.value)
    assert str(err.value).startswith(f"{path}:2: ")


def test_inconsistent_columns_in_later_sentence():
    text = "a B C\n\nd E\n"
    with pytest.raises(InputError) as err:
        read_sentences(io.StringIO(text), name="x.txt")
    assert (err.value.path, err.value.line) == ("x.txt", 3)


def test_stdin_default_name():
    with pytest.raises(InputError) as err:
        read_sentences(io.BytesIO(b"a b\nc\n"))
    assert str(err.value).startswith("<stdin>:2: ")


def test_invalid_utf8_names_line(tmp_path):
    path = write_bytes(tmp_path, b"a O\nb O\n\nc\xff O\n")
    with pytest.raises(InputError) as err:
        read_sentences(path)
    assert err.value.line == 4
    assert "not valid UTF-8" in str(err.value)
    assert "--encoding" in str(err.value)


def test_other_encoding(tmp_path):
    path = write_bytes(tmp_path, "café NN\n".encode("latin-1"))
    assert read_sentences(path, encoding="latin-1")[0].tokens == [("café", "NN")]


def test_unsupported_encoding_rejected():
    with pytest.raises(ValueError):
        read_sentences(io.BytesIO(b""), encoding="utf-16")


def test_non_ascii_tokens_labels_and_path(tmp_path):
    folder = tmp_path / "données_日本"
    folder.mkdir()
    path = folder / "корпус.txt"
    path.write_text("Москва B-LOC\n東京 B-LOC\nnaïve Ö-X\n\n😀 ÉMOJI\n", encoding="utf-8")
    got = read_sentences(path)
    assert token_lists(got) == [[("Москва", "B-LOC"), ("東京", "B-LOC"), ("naïve", "Ö-X")],
                                [("😀", "ÉMOJI")]]
    out = folder / "выход.txt"
    write_sentences(got, out)
    assert token_lists(read_sentences(out)) == token_lists(got)


def test_empty_and_blank_only_files(tmp_path):
    assert read_sentences(write_bytes(tmp_path, b"", "empty.txt")) == []
    assert read_sentences(write_bytes(tmp_path, b"\n\n   \n\r\n\t\n", "blank.txt")) == []
    assert read_sentences(io.StringIO("")) == []


def test_missing_file_is_input_error(tmp_path):
    with pytest.raises(InputError) as err:
        read_sentences(tmp_path / "nope.txt")
    assert err.value.path == str(tmp_path / "nope.txt")


def test_huge_sentence(tmp_path):
    n = 100_000
    path = tmp_path / "huge.txt"
    path.write_text("".join(f"w{i} L{i % 7}\n" for i in range(n)), encoding="utf-8")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)  # any recursion per token would fail loudly
    try:
        got = read_sentences(path)
        out = tmp_path / "out.txt"
        write_sentences(got, out)
    finally:
        sys.setrecursionlimit(limit)
    assert len(got) == 1 and len(got[0].tokens) == n
    assert got[0].tokens[-1] == (f"w{n - 1}", f"L{(n - 1) % 7}")
    assert out.read_text(encoding="utf-8") == path.read_text(encoding="utf-8") + "\n"


def test_round_trip_exact(tmp_path):
    src = tmp_path / "src.txt"
    src.write_text(TWO_TEXT + "\n", encoding="utf-8")
    out = tmp_path / "out.txt"
    assert write_sentences(read_sentences(src), out) == 2
    assert out.read_bytes() == src.read_bytes()
    assert token_lists(read_sentences(out)) == TWO


def test_round_trip_tab_separated(tmp_path):
    sents = [[("New York", "B-LOC"), ("is", "O")]]
    out = tmp_path / "out.tsv"
    write_sentences(sents, out, sep="\t")
    assert out.read_text(encoding="utf-8") == "New York\tB-LOC\nis\tO\n\n"
    assert token_lists(read_sentences(out)) == sents


def test_write_to_text_stream_and_format_sentence():
    buf = io.StringIO()
    n = write_sentences([[("a", "B")], [], Sentence([("c", "D"), ("e", "F")], 9)], buf)
    assert n == 2
    assert buf.getvalue() == "a B\n\nc D\ne F\n\n"
    assert format_sentence([("x", "y")], sep="\t") == "x\ty\n\n"
    assert format_sentence([]) == ""


@pytest.mark.parametrize("sep, bad", [
    (" ", ("a b", "O")), (" ", ("a", "")), (" ", ("a\nb", "O")), (" ", ("a", "O\r")),
    (" ", ("a", "O ")), (" ", ()), ("\t", ("a\tb", "O")), ("\t", ("a", "")),
    ("\t", ("a\rb", "O")), ("\t", ("two words",)), ("\t", (" ", " ")),
])
def test_write_refuses_values_that_would_not_read_back(tmp_path, sep, bad):
    out = tmp_path / "out.txt"
    out.write_text("old\n", encoding="utf-8")
    with pytest.raises(ValueError):
        write_sentences([[("ok",) * len(bad)], [bad]], out, sep=sep)
    assert out.read_text(encoding="utf-8") == "old\n"  # atomic: untouched
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


class CountingStream(io.RawIOBase):
    """An endless binary stream of short sentences that counts the bytes served."""

    def __init__(self):
        self.served = 0
        self.i = 0
        self.pending = b""

    def readable(self):
        return True

    def readinto(self, b):
        while len(self.pending) < len(b):
            self.pending += f"w{self.i} O\nx{self.i} O\n\n".encode()
            self.i += 1
        n = len(b)
        b[:n] = self.pending[:n]
        self.pending = self.pending[n:]
        self.served += n
        return n


def test_streaming_reads_lazily():
    stream = CountingStream()
    it = iter_sentences(stream)
    first = next(it)
    assert first.tokens == [("w0", "O"), ("x0", "O")]
    second = next(it)
    assert second.line == 4
    assert stream.served <= 2 * 65536  # an endless stream: only a chunk was read
    it.close()


def test_iter_sentences_is_lazy_about_errors():
    # The bad line comes after the first sentence: the first one is still yielded.
    it = iter_sentences(io.StringIO("a O\n\nb\n"), name="f")
    assert next(it).tokens == [("a", "O")]
    with pytest.raises(InputError):
        next(it)


def test_iter_lines_reads_text_stream_buffer():
    raw = io.BytesIO("é O\r\nb O".encode())
    wrapper = io.TextIOWrapper(raw, encoding="ascii")  # the buffer is used, not this encoding
    assert list(iter_lines(wrapper)) == ["é O", "b O"]


# --- property test -----------------------------------------------------------------

_token_chars = st.characters(
    blacklist_categories=("Cc", "Cs", "Zs", "Zl", "Zp", "Co", "Cn"),
    blacklist_characters="\ufeff",
)
_value = st.text(_token_chars, min_size=1, max_size=6)


@st.composite
def column_files(draw):
    n_cols = draw(st.integers(1, 4))
    row = st.tuples(*[_value] * n_cols).filter(
        lambda r: not r[0].startswith(("-DOCSTART-", "###MEDLINE:")))
    sentences = draw(st.lists(st.lists(row, min_size=1, max_size=5), max_size=5))
    sep = draw(st.sampled_from([" ", "\t"]))
    crlf = draw(st.booleans())
    nl = "\r\n" if crlf else "\n"
    parts = [nl * draw(st.integers(0, 2))]
    for s in sentences:
        parts.append(nl.join(sep.join(r) for r in s) + nl)
        parts.append(nl * draw(st.integers(1, 3)))
    text = "".join(parts)
    if draw(st.booleans()):
        text = text.rstrip("\r\n")
    return sentences, text


@settings(max_examples=150, deadline=None)
@given(column_files())
def test_property_round_trip(case):
    sentences, text = case
    got = read_sentences(io.BytesIO(text.encode("utf-8")))
    assert token_lists(got) == sentences
    for sep in (" ", "\t"):
        buf = io.StringIO()
        write_sentences(got, buf, sep=sep)
        again = read_sentences(io.BytesIO(buf.getvalue().encode("utf-8")))
        assert token_lists(again) == sentences
        assert buf.getvalue() == "".join(format_sentence(s, sep) for s in sentences)


def test_conllu_read_as_columns_gets_a_hint():
    import io as _io
    text = "# sent_id = 1\n1\tI\tI\tPRON\tPRP\t_\t0\troot\t_\t_\n\n"
    with pytest.raises(InputError, match=r"<stdin>:2: expected 4 columns .*looks like CoNLL-U"):
        list(iter_sentences(_io.StringIO(text), name="<stdin>"))
    # a token "#" in a column file is not taken for a CoNLL-U comment
    with pytest.raises(InputError) as err:
        list(iter_sentences(_io.StringIO("# #\nword NN extra\n"), name="f"))
    assert "CoNLL-U" not in str(err.value)


def test_sniff_conllu():
    from chaintag.io.columns import sniff_conllu
    assert sniff_conllu(b"# sent_id = 1\n1\tI\tI\tPRON\tPRP\t_\t0\troot\t_\t_\n")
    assert sniff_conllu("\ufeff\n1\tI\tI\tPRON\tPRP\t_\t0\troot\t_\t_\n")  # no comment, BOM, blank first
    assert sniff_conllu(b"1-2\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n")
    assert not sniff_conllu(b"# #\nHe PRP B-NP\n")  # a '#' token of a column file
    assert not sniff_conllu(b"He\tPRP\tB-NP\n")
    assert not sniff_conllu(b"")
