"""`chaintag tag` off a terminal: plain progress lines per batch, throttled, and a last line."""

import io
import sys

from chaintag.cli.tag_cmd import _LogLines


def test_one_line_per_batch_at_most_every_interval_and_a_last_line(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    now = [100.0]
    lines = _LogLines(batch_size=10, interval=5.0)
    lines._clock = lambda: now[0]
    lines.t0 = lines._last = 100.0
    for k in range(1, 36):  # 35 sentences, one second apart
        now[0] = 100.0 + k
        lines.update(1)
    lines.close()
    out = err.getvalue().splitlines()
    # batches end at 10, 20, 30 sentences (t = 110, 120, 130 s): each 5 s or more after the last line
    assert out == ["tagging: 10 sentences read in 10.0 s", "tagging: 20 sentences read in 20.0 s",
                   "tagging: 30 sentences read in 30.0 s", "tagging: done, 35 sentences in 35.0 s"]


def test_batches_closer_than_the_interval_share_a_line(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    now = [0.0]
    lines = _LogLines(batch_size=1, interval=5.0)
    lines._clock = lambda: now[0]
    lines.t0 = lines._last = 0.0
    for k in range(1, 13):  # 12 one-sentence batches, one second apart: lines at 5 and 10 s only
        now[0] = float(k)
        lines.update(1)
    lines.close()
    assert err.getvalue().splitlines() == ["tagging: 5 sentences read in 5.0 s",
                                           "tagging: 10 sentences read in 10.0 s",
                                           "tagging: done, 12 sentences in 12.0 s"]


def test_the_cli_writes_the_last_line_off_a_terminal_and_nothing_with_quiet(tmp_path):
    import subprocess
    data = tmp_path / "t.txt"
    data.write_text("The DT B-NP\ncat NN I-NP\nsat VBD B-VP\n\nA DT B-NP\ndog NN I-NP\nran VBD B-VP\n\n")
    model = tmp_path / "m.npz"
    cli = [sys.executable, "-m", "chaintag.cli.main"]
    subprocess.run(cli + ["train", "--train", str(data), "--features", "chunking", "--model", str(model), "-q"],
                   check=True)
    r = subprocess.run(cli + ["tag", "--model", str(model), str(data)], capture_output=True, text=True)
    assert r.returncode == 0
    assert r.stderr.splitlines()[-1].startswith("tagging: done, 2 sentences in ")
    q = subprocess.run(cli + ["tag", "--model", str(model), str(data), "-q"], capture_output=True, text=True)
    assert q.returncode == 0 and "tagging:" not in q.stderr


def test_raw_text_counts_paragraphs_read_in_batches_and_sentences_tagged(monkeypatch):
    """Raw text is read in paragraphs, reported in batches of 64: the lines called them sentences, and a
    batch that did not end on a multiple of the batch size never printed one."""
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    now = [0.0]
    lines = _LogLines(batch_size=100, interval=5.0, unit="paragraph")
    lines._clock = lambda: now[0]
    lines.t0 = lines._last = 0.0
    for k in range(1, 5):  # 4 batches of 64 paragraphs, 10 s apart: 64, 128 (past 100), 192, 256 (past 200)
        now[0] = 10.0 * k
        lines.update(64)
    lines.close(1000)
    assert err.getvalue().splitlines() == ["tagging: 128 paragraphs read in 20.0 s",
                                           "tagging: 256 paragraphs read in 40.0 s",
                                           "tagging: done, 1,000 sentences in 40.0 s (25 sentences/s)"]
