"""Training curves of one or several runs, from their per-epoch histories, as one PNG."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .report import line_plots

__all__ = ["METRICS", "DEFAULT_METRICS", "plot_histories"]

#: Figures a history can hold: record key -> (axis label, log scale).
METRICS = {
    "dev_score": ("dev score (chunk F1 or accuracy, %)", False),
    "dev_f1": ("dev chunk F1 (%)", False),
    "dev_accuracy": ("dev token accuracy (%)", False),
    "weight_complexity": ("mean |weight| (log scale)", True),
    "errors": ("training errors (tokens per epoch)", False),
    "updates": ("updates (sentences per epoch)", False),
    "loss": ("training objective (per epoch)", False),
    "seconds": ("training time per epoch (s)", False),
    "cpu_seconds": ("CPU time per epoch (s)", False),
}
#: Panels drawn when none are asked for (those the histories hold).
DEFAULT_METRICS = ("dev_score", "weight_complexity", "errors", "seconds")


def plot_histories(histories: Mapping[str, Sequence[dict]], path, *, metrics: Sequence[str] | None = None,
                   title: str | None = None) -> list[str]:
    """Draw the per-epoch curves of several training runs, one panel per figure.

    Parameters
    ----------
    histories : mapping of str to sequence of dict
        Run label -> its per-epoch records (see
        :func:`chaintag.io.history.read_history`).
    path : str or os.PathLike
        The PNG file, written atomically.
    metrics : sequence of str, optional
        Keys of :data:`METRICS`, one panel each. Default: those of
        :data:`DEFAULT_METRICS` that at least one history holds.
    title : str, optional
        Title over the panels.

    Returns
    -------
    list of str
        The metrics drawn, in panel order.

    Raises
    ------
    ValueError
        An unknown metric, a metric no history holds, or no metric to draw.
    """
    unknown = [m for m in (metrics or ()) if m not in METRICS]
    if unknown:
        raise ValueError(f"unknown metric(s) {', '.join(unknown)}; choose from {', '.join(METRICS)}")

    def held(metric):
        return any(rec.get(metric) is not None for recs in histories.values() for rec in recs)

    if metrics:
        missing = [m for m in metrics if not held(m)]
        if missing:
            raise ValueError(f"no history holds {', '.join(missing)}")
        chosen = list(metrics)
    else:
        chosen = [m for m in DEFAULT_METRICS if held(m)]
    if not chosen:
        raise ValueError("the histories hold none of " + ", ".join(DEFAULT_METRICS))
    panels = []
    for metric in chosen:
        ylabel, logy = METRICS[metric]
        if metric == "dev_score":  # name the score when every run has the same kind
            kinds = {rec.get("dev_f1") is not None for recs in histories.values() for rec in recs
                     if rec.get("dev_score") is not None}
            if len(kinds) == 1:
                ylabel = METRICS["dev_f1" if kinds.pop() else "dev_accuracy"][0]
        series = []
        for label, recs in histories.items():
            pts = [(rec["epoch"], rec[metric]) for rec in recs if rec.get(metric) is not None]
            if pts:
                series.append((label, [x for x, _ in pts], [y for _, y in pts]))
        if logy and any(y <= 0 for _, _, ys in series for y in ys):
            logy = False
        panel = {"series": series, "title": ylabel.split(" (")[0].replace("dev ", "development "), "xlabel": "epoch", "ylabel": ylabel,
                 "logy": logy, "marker": "o" if max(len(xs) for _, xs, _ in series) <= 30 else None}
        panels.append(panel)
    line_plots(path, panels, suptitle=title, ncols=min(len(panels), 2), shared_legend=len(histories) > 1,
               label_order=list(histories))
    return chosen
