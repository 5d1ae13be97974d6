"""Report helpers: Markdown tables, CSV files, matplotlib figures, machine details.

Figures are drawn with matplotlib's non-interactive Agg backend, so reports
can be made on machines without a display.
"""

from __future__ import annotations

import csv
import os
import platform
import sys
from pathlib import Path
from typing import Iterable, Sequence


def fmt(value, digits: int = 2, none: str = "-") -> str:
    """A number for a table: fixed ``digits`` decimals; ``none`` for None or NaN."""
    if value is None:
        return none
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    try:
        v = float(value)
    except (TypeError, ValueError):
        return str(value)
    if v != v:
        return none
    return f"{v:.{digits}f}"


def fmt_p(p) -> str:
    """A p-value for a table: ``<0.001`` below 0.001, else three decimals."""
    if p is None:
        return "-"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def p_text(p) -> str:
    """A p-value in a sentence: ``p < 0.001`` or ``p = 0.020``."""
    if p is None:
        return "p = -"
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def md_table(header: Sequence[str], rows: Iterable[Sequence], align: str | None = None) -> str:
    """A Markdown table; ``align`` has one character per column (``l`` or ``r``; default: first left)."""
    header = list(header)
    align = align or "l" + "r" * (len(header) - 1)
    sep = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(sep) + " |"]
    for row in rows:
        lines.append("| " + " | ".join(str(c) for c in row) + " |")
    return "\n".join(lines) + "\n"


def write_csv(path, header: Sequence[str], rows: Iterable[Sequence]) -> None:
    """Write a CSV file (UTF-8, ``\\n`` line ends); None becomes an empty field."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(header)
        for row in rows:
            writer.writerow(["" if v is None else (f"{v:.6g}" if isinstance(v, float) else v) for v in row])


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def line_plots(path, panels: Sequence[dict], suptitle: str | None = None, ncols: int | None = None,
               shared_legend: bool = False, label_order: Sequence[str] | None = None) -> None:
    """Save one figure of line-plot panels (PNG; SVG or PDF by the file extension).

    Each label keeps one colour in every panel (the order of first appearance),
    so a run missing from a panel does not shift the others' colours.

    Parameters
    ----------
    path : str or os.PathLike
    panels : sequence of dict
        Each with ``series`` (list of ``(label, xs, ys)``), ``title``,
        ``xlabel``, ``ylabel`` and optionally ``logy`` (bool), ``hlines``
        (list of ``(label, y)`` drawn dashed), ``marker`` (str).
    suptitle : str, optional
    ncols : int, optional
        Panels per row (default: all in one row, at most 3).
    shared_legend : bool, default False
        One legend under the panels (each label once) instead of one per panel.
    label_order : sequence of str, optional
        Labels in the order that fixes their colours (default: the order of
        first appearance in the panels).
    """
    plt = _pyplot()
    n = len(panels)
    ncols = ncols or min(n, 3)
    nrows = (n + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.2 * ncols, 3.9 * nrows + (0.6 if shared_legend else 0)),
                             squeeze=False)
    order: dict[str, int] = {label: k for k, label in enumerate(label_order or ())}
    for panel in panels:
        for label in [s[0] for s in panel["series"]] + [h[0] for h in panel.get("hlines", [])]:
            order.setdefault(label, len(order))

    def style(label):
        k = order[label]
        return {"color": f"C{k % 10}", "linestyle": ("-", "-.", ":")[k // 10 % 3]}

    for ax, panel in zip(axes.flat, panels):
        for label, xs, ys in panel["series"]:
            ax.plot(xs, ys, label=label, marker=panel.get("marker", None), markersize=3, linewidth=1.4,
                    **style(label))
        for label, y in panel.get("hlines", []):
            ax.axhline(y, linewidth=1.0, label=label, **dict(style(label), linestyle="--"))
        if panel.get("logy"):
            ax.set_yscale("log")
        if panel.get("integer_x", True):
            from matplotlib.ticker import MaxNLocator
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            xs_all = {x for _, xs, _ in panel["series"] for x in xs}
            if len(xs_all) == 1:  # one point: one tick, not fractions around it
                ax.set_xticks(sorted(xs_all))
        if panel.get("logx"):
            ax.set_xscale("log")
        if panel.get("xticks"):
            ax.set_xticks(panel["xticks"])
            ax.set_xticklabels([str(x) for x in panel["xticks"]])
            ax.minorticks_off()
        if panel.get("ylim"):
            ax.set_ylim(*panel["ylim"])
            below = [y for _, _, ys in panel["series"] for y in ys if y is not None and y < panel["ylim"][0]]
            if below:  # say what the focused axis leaves out
                ax.text(0.99, 0.02, f"{len(below)} point{'s' if len(below) > 1 else ''} below the axis "
                        f"(lowest {min(below):.1f})", transform=ax.transAxes, ha="right", va="bottom",
                        fontsize=7, color="0.35")
        ax.set_title(panel.get("title", ""), fontsize=10)
        ax.set_xlabel(panel.get("xlabel", ""))
        ax.set_ylabel(panel.get("ylabel", ""))
        ax.grid(True, alpha=0.3)
        if not shared_legend:
            ax.legend(fontsize=7, loc=panel.get("legend_loc", "best"))
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    if suptitle:
        fig.suptitle(suptitle, fontsize=11)
    if shared_legend:  # one legend under the panels, each label once
        seen: dict[str, object] = {}
        for ax in axes.flat:
            for handle, label in zip(*ax.get_legend_handles_labels()):
                seen.setdefault(label, handle)
        seen = dict(sorted(seen.items(), key=lambda item: order.get(item[0], len(order))))
        ncol = min(len(seen), 5)
        fig.legend(list(seen.values()), list(seen), loc="lower center", ncol=ncol, fontsize=8, frameon=False)
        rows = (len(seen) + ncol - 1) // ncol
        fig.tight_layout(rect=(0, 0.035 * rows + 0.02, 1, 1))
    else:
        fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    try:
        from chaintag.io.atomic import atomic_open
        fmt_ = Path(path).suffix.lower().lstrip(".")
        with atomic_open(path, "wb", encoding=None) as fh:  # no half-written file on a crash
            fig.savefig(fh, format=fmt_ if fmt_ in ("svg", "pdf") else "png", dpi=110)
    finally:
        plt.close(fig)


def focus_ylim(values: Iterable[float], top_share: float = 0.75, pad: float = 0.15) -> tuple[float, float] | None:
    """Y limits that show the upper part of the curves (early low points are cut off).

    The lower limit is the ``1 - top_share`` quantile of ``values``, so the
    curves' interesting range is not squashed by the first epochs.
    """
    import numpy as np
    vals = np.asarray([v for v in values if v is not None], dtype=float)
    if not len(vals):
        return None
    lo, hi = float(np.quantile(vals, 1.0 - top_share)), float(vals.max())
    span = max(hi - lo, 1e-6)
    return lo - pad * span, hi + pad * span


def record_invocation(out_dir, *, command: str, wall: float, trained: int, before: dict, after: dict) -> list[dict]:
    """Append this invocation to ``out_dir/invocations.jsonl`` and return every invocation recorded there.

    A report rewritten from cached runs thus keeps the wall time of the
    invocation that trained them.
    """
    import json
    from datetime import datetime, timezone
    path = Path(out_dir) / "invocations.jsonl"
    entry = {"finished": datetime.now(timezone.utc).isoformat(timespec="seconds"), "command": command,
             "wall_seconds": round(wall, 1), "passes_trained": trained, "cpus": before.get("cpus"),
             "load_average_start": before.get("load_average"), "load_average_end": after.get("load_average")}
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry) + "\n")
    entries = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entries.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return entries


def invocations_table(entries: list[dict]) -> str:
    """Markdown table of the recorded invocations (see :func:`record_invocation`)."""
    rows = [[e["finished"], f"`{e['command']}`", f"{e['wall_seconds']:.0f}", e["passes_trained"],
             ", ".join(str(x) for x in e.get("load_average_start") or []) or "-",
             ", ".join(str(x) for x in e.get("load_average_end") or []) or "-"] for e in entries]
    return md_table(["finished (UTC)", "command", "wall time (s)", "passes trained", "load average at start "
                     "(1, 5, 15 min)", "at end"], rows, align="llrrll")


def source_commit() -> str | None:
    """The git commit of the chaintag source that runs (``abc1234``, ``+ changes`` when the checkout
    differs from it), or None outside a git checkout: a release number alone does not name the code."""
    import subprocess
    import chaintag
    folder = os.path.dirname(os.path.abspath(chaintag.__file__))
    try:
        commit = subprocess.run(["git", "-C", folder, "rev-parse", "--short=12", "HEAD"], capture_output=True,
                                text=True, timeout=10)
        if commit.returncode != 0:
            return None
        dirty = subprocess.run(["git", "-C", folder, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return commit.stdout.strip() + (" + changes" if dirty else "")


def machine_details() -> dict:
    """CPU count, load average, Python and library versions and the source's commit, for the report."""
    import numpy as np
    from chaintag import __version__
    details = {"python": sys.version.split()[0], "numpy": np.__version__, "chaintag": __version__,
               "platform": platform.platform(), "cpus": os.cpu_count(), "commit": source_commit()}
    try:
        import numba
        details["numba"] = numba.__version__
    except ImportError:  # pragma: no cover
        pass
    try:
        import sklearn
        details["scikit-learn"] = sklearn.__version__
    except ImportError:  # pragma: no cover
        pass
    try:
        details["load_average"] = tuple(round(x, 2) for x in os.getloadavg())
    except OSError:  # pragma: no cover
        details["load_average"] = None
    return details


#: Files or folders that only a report writes: the runs cache, the record of invocations, tune's choice.
REPORT_MARKERS = frozenset({"runs", "invocations.jsonl", "best.json"})


def check_report_folder(path, option: str = "--out") -> None:
    """Refuse a report folder that is empty text, a file, or a folder of other files.

    The reports (compare, tune, the reproductions) write README.md, CSV files and a runs/ cache into
    their folder, and reuse their own folders (those holding one of :data:`REPORT_MARKERS`, such as the
    reports shipped in docs/results, whose runs/ is not kept), but never replace files they did not
    write. Hidden files (``.gitkeep``) are ignored.

    Parameters
    ----------
    path : str or os.PathLike
        The report folder (it need not exist).
    option : str
        The option that names it, for the messages.

    Raises
    ------
    chaintag.errors.InputError
        For an empty path, a file, or a folder of other files (naming a few of them).
    """
    from chaintag.errors import InputError
    text = os.fspath(path)
    if not text.strip():
        raise InputError(f"{option}: an empty path; give a folder for the report")
    if os.path.exists(text) and not os.path.isdir(text):
        raise InputError(f"{option} names a file; give a folder for the report", text)
    if os.path.isdir(text):
        entries = sorted(e for e in os.listdir(text) if not e.startswith("."))
        if entries and not set(entries) & REPORT_MARKERS:
            shown = ", ".join(entries[:4]) + (", ..." if len(entries) > 4 else "")
            raise InputError(f"{option} is a folder of other files ({shown}), which the report would replace: "
                             "give a new folder, or one a report was written to", text)
