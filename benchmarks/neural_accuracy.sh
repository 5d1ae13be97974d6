#!/usr/bin/env bash
# Accuracy of the neural taggers on the benchmark tasks (benchmarks/bench_neural.py accuracy), the runs
# side by side in parallel, each within a training-time budget; one JSON file and one log per run.
#
#   OUT=results DEVICE=cuda BUDGET=350 benchmarks/neural_accuracy.sh conll2000:bilstm-crf jnlpba:bilstm-crf
#
# A run is TASK:ALGORITHM[:HIDDEN]. Settings (environment): OUT (folder, default neural-accuracy), DEVICE
# (cpu), BUDGET (training seconds per run, 600), EPOCHS (most epochs, 50), THREADS (torch threads per run,
# 2), LIMIT (first N sentences of every split, for a trial), PYTHON (python3), CHAINTAG_DATA (data folder).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-neural-accuracy}
mkdir -p "$OUT"
runs=("$@")
[ ${#runs[@]} -eq 0 ] && runs=(conll2000:bilstm-crf conll2000:bilstm jnlpba:bilstm-crf)
pids=()
for spec in "${runs[@]}"; do
    IFS=: read -r task alg hidden <<< "$spec"
    hidden=${hidden:-200}
    name="$task-$alg-h$hidden"
    extra=()
    [ -n "${LIMIT:-}" ] && extra=(--limit "$LIMIT")
    PYTHONUNBUFFERED=1 "${PYTHON:-python3}" benchmarks/bench_neural.py accuracy --task "$task" --algorithm "$alg" \
        --hidden "$hidden" --device "${DEVICE:-cpu}" --epochs "${EPOCHS:-50}" --max-seconds "${BUDGET:-600}" \
        --threads "${THREADS:-2}" --out "$OUT/$name.json" "${extra[@]}" > "$OUT/$name.log" 2>&1 &
    pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
exit $status
