"""Command-line options of streamed training (``chaintag train --stream / --stream-dir``)."""

from __future__ import annotations

import argparse

from ..api.train_stream import AUTO_BYTES


def add_stream_options(p) -> None:
    """Add ``--stream`` / ``--no-stream`` and ``--stream-dir`` to the ``train`` parser."""
    p.add_argument("--stream", action=argparse.BooleanOptionalAction, default=None,
                   help="read the training file in chunks of sentences and keep the model and one chunk in "
                        "memory, not the corpus (perceptron, mira, nbest-mira, sapo, crf; default: on for "
                        f"files of {AUTO_BYTES // 2**20} MiB or more when the model is the same either way: "
                        "perceptron, mira and nbest-mira without --shuffle)")
    p.add_argument("--stream-dir", metavar="DIR", default=None,
                   help="where streamed training writes the corpus's compact arrays while it runs (default: "
                        "the temporary folder, $TMPDIR); about 10-40 bytes per token, removed at the end")
