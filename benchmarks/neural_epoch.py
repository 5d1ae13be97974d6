"""The BiLSTM-CRF's seconds per CoNLL-2000 epoch, for ``bench_speed.py``'s table.

Runs ``bench_neural.py speed-one`` (the reference configuration: word
embeddings 100d, character CNN, POS embeddings, 200 LSTM units per direction,
Adam, batch 32) in a child process on all of CoNLL-2000's training sentences,
on the CPU with PyTorch's threads (every core), or on a GPU with
``--neural-device cuda``, where ``nvidia-smi`` is sampled every half second for
the GPU's utilisation. Needs the ``neural`` extra (PyTorch); without it the row
says so.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading

#: The goal for the BiLSTM-CRF's CPU epoch on 2 cores, seconds.
CPU_GOAL_S = 10.0
BATCH_SIZE = 32


def _sample_gpu(stop: threading.Event, out: list) -> None:
    """Append the GPU utilisation (percent) every half second until ``stop`` is set."""
    while not stop.wait(0.5):
        try:
            r = subprocess.run(["nvidia-smi", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits"],
                               capture_output=True, text=True, timeout=5)
            out.append(float(r.stdout.split()[0]))
        except (OSError, ValueError, IndexError, subprocess.SubprocessError):
            return


def neural_epochs(epochs: int, device: str, data_dir: str | None) -> dict:
    """Train the BiLSTM-CRF for ``epochs`` epochs in a child process; its per-epoch figures.

    Returns
    -------
    dict
        ``epoch_seconds`` and ``epoch_cpu_seconds`` (lists, one per epoch), ``torch_threads``,
        ``device``, ``batch_size``, ``gpu_utilisation`` (percent samples, empty on the CPU),
        ``loadavg_before`` / ``loadavg_after``; or ``{"skipped": reason}`` without PyTorch.

    Raises
    ------
    SystemExit
        When the child fails (its standard error is the message).
    """
    if importlib.util.find_spec("torch") is None:
        return {"skipped": "PyTorch is not installed (pip install 'chaintag[neural]')"}
    cmd = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_neural.py"),
           "speed-one", "--learner", "bilstm-crf", "--epochs", str(epochs), "--device", device]
    if data_dir:
        cmd += ["--data-dir", data_dir]
    samples: list = []
    stop = threading.Event()
    sampler = None
    if device.startswith("cuda") and shutil.which("nvidia-smi"):
        sampler = threading.Thread(target=_sample_gpu, args=(stop, samples), daemon=True)
        sampler.start()
    try:
        out = subprocess.run(cmd, capture_output=True, text=True)
    finally:
        stop.set()
        if sampler is not None:
            sampler.join()
    if out.returncode:
        sys.exit(out.stderr)
    row = json.loads(out.stdout.strip().splitlines()[-1])
    row.update(device=device, batch_size=BATCH_SIZE, gpu_utilisation=samples)
    return row


def neural_line(row: dict) -> str:
    """One line for the report: seconds per epoch (median over the epochs after the first, which
    includes the warm-up, when there are several), CPU seconds, threads, and the goal on the CPU."""
    if "skipped" in row:
        return f"BiLSTM-CRF seconds per CoNLL-2000 epoch: skipped, {row['skipped']}"
    wall, cpu = row["epoch_seconds"], row["epoch_cpu_seconds"]
    steady = wall[1:] or wall
    text = (f"BiLSTM-CRF seconds per CoNLL-2000 epoch ({row['sentences']:,} sentences, batch {row['batch_size']}, "
            f"{row['device']}, torch threads {row['torch_threads']}): {statistics.median(steady):.1f} s wall "
            f"(each: {', '.join(f'{s:.1f}' for s in wall)}), {statistics.median(cpu[1:] or cpu):.1f} s CPU")
    if row["device"] == "cpu":
        met = statistics.median(steady) <= CPU_GOAL_S
        text += f"  (goal <= {CPU_GOAL_S:g} s on 2 cores: {'ok' if met else 'MISSED'})"
    elif row["gpu_utilisation"]:
        u = row["gpu_utilisation"]
        text += f"; GPU utilisation median {statistics.median(u):.0f} % [{min(u):.0f}-{max(u):.0f}]"
    return text + f"; load {row['loadavg_before']} -> {row['loadavg_after']}"
