#!/usr/bin/env bash
# Lesson 14's tables, in one run on one GPU:
#   1. the ablation: train_speedrun with its recipe (every flag as given here), then once more per
#      row with one piece of it taken away or changed (no label smoothing, no shifts, a constant
#      rate, another optimizer, a smaller batch, no CUDA graphs, one stream, conv1 and its pool apart), each over the same seeds;
#   2. PyTorch with the same network and recipe (tools/pytorch_speedrun.py), in FP32 (TF32 off, as the
#      course) and with BF16 autocast: torch.compile's kernels in a whole-step CUDA graph, then the
#      expert's configuration (shift, model and loss compiled with max-autotune, the update compiled,
#      50 steps in each CUDA graph).
# Then a markdown table: mean and minimum test accuracy over the seeds, median training time, what
# each row changed. The rules are lesson 14's README's.
#
# usage: tools/speedrun_table.sh [--build DIR] [--seeds N] [--no-pytorch] [-- recipe flags...]
#   recipe flags go to both trainers, e.g. -- --epochs 2 --batch 512 --lr 0.2
# Outputs (logs, JSON, table.md) go to $OUT/speedrun or out/speedrun; COURSE_COMMIT names the commit
# where the copy has no git history of its own.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=$ROOT/build/solutions
SEEDS=10
PYTORCH=1
RECIPE=()
while [ $# -gt 0 ]; do
  case $1 in
    --build) BUILD=$2; shift 2 ;;
    --seeds) SEEDS=$2; shift 2 ;;
    --no-pytorch) PYTORCH=0; shift ;;
    --) shift; RECIPE=("$@"); break ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "error: unknown argument '$1' (see $0 --help)" >&2; exit 2 ;;
  esac
done
case $SEEDS in ''|*[!0-9]*|0) echo "error: --seeds must be a positive integer, got '$SEEDS'" >&2; exit 2 ;; esac
TRAIN=$BUILD/bin/train_speedrun
[ -x "$TRAIN" ] || { echo "error: $TRAIN not found; build first: cmake --preset solutions && cmake --build --preset solutions" >&2; exit 1; }
LOG=${OUT:-$ROOT/out}/speedrun
mkdir -p "$LOG"
COMMIT=${COURSE_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}

# name | what changes (flags appended after the recipe's)
ROWS=(
  "recipe|"
  "no label smoothing|--smoothing 0"
  "no shifts|--shift 0"
  "constant rate|--schedule constant"
  "Nesterov (lr 0.1)|--optimizer nesterov --lr 0.1"
  "SGD momentum (lr 0.1)|--optimizer sgd --lr 0.1"
  "Adam (lr 0.003)|--optimizer adam --lr 0.003"
  "batch 128|--batch 128"
  "no CUDA graphs|--graph off"
  "one stream (no branches, lesson 09's 09.12)|--branches off"
  "conv1 and its pool as separate passes (lesson 09's 09.13)|--thin off"
  "BF16 convolutions, TF32 products (lesson 10)|--precision bf16"
)

summary() {  # "mean|min|median" from a train_speedrun log
  sed -n 's/.*seed(s): mean [a-z]* accuracy \([0-9.]*\) %, minimum \([0-9.]*\) %; median training time \([0-9.]*\) s.*/\1|\2|\3/p' "$1"
}

echo "| row | change | mean test acc | min test acc | median training s |" > "$LOG/rows.md"
echo "|---|---|---:|---:|---:|" >> "$LOG/rows.md"
for row in "${ROWS[@]}"; do
  IFS='|' read -r name change <<< "$row"
  file=$LOG/$(echo "$name" | tr -c 'a-zA-Z0-9\n' '_').txt
  # shellcheck disable=SC2086
  "$TRAIN" --seeds "$SEEDS" --out "$LOG/runs_$(basename "$file" .txt)" "${RECIPE[@]}" $change > "$file" 2>&1 ||
    { echo "error: train_speedrun failed for '$name' (see $file)" >&2; tail -3 "$file" >&2; exit 1; }
  IFS='|' read -r mean least median <<< "$(summary "$file")"
  echo "| $name | ${change:--} | $mean % | $least % | $median |" >> "$LOG/rows.md"
  echo "course, $name: mean $mean %, min $least %, median $median s"
done

if [ $PYTORCH -eq 1 ]; then
  echo "| PyTorch, same recipe | pytorch_speedrun.py | mean test acc | min test acc | median training s |" > "$LOG/pytorch.md"
  echo "|---|---|---:|---:|---:|" >> "$LOG/pytorch.md"
  for mode in compile-graph expert; do
    for amp in off bf16; do
      json=$LOG/pytorch_${mode}_$amp.json
      python3 tools/pytorch_speedrun.py --mode $mode --amp "$amp" --seeds "$SEEDS" --json "$json" \
        "${RECIPE[@]}" > "$LOG/pytorch_${mode}_$amp.txt" 2>&1 ||
        { echo "error: pytorch_speedrun.py failed (see $LOG/pytorch_${mode}_$amp.txt)" >&2
          grep -v '^pytorch seed' "$LOG/pytorch_${mode}_$amp.txt" | tail -25 >&2; exit 1; }
      python3 - "$json" "$amp" "$mode" >> "$LOG/pytorch.md" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
label = "FP32 (TF32 off)" if sys.argv[2] == "off" else "BF16 autocast"
how = "compile + graph" if sys.argv[3] == "compile-graph" else "expert"
print(f"| {how}, {label} | --mode {sys.argv[3]} --amp {sys.argv[2]} | {100 * r['mean_accuracy']:.2f} % | "
      f"{100 * r['min_accuracy']:.2f} % | {r['median_train_ms'] / 1e3:.3f} |")
PY
      tail -1 "$LOG/pytorch_${mode}_$amp.txt"
    done
  done
fi

{
  echo "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1); commit $COMMIT; $SEEDS seeds each"
  sed -n 's/^recipe: /recipe: /p;s/^layers: /layers: /p' "$LOG/recipe.txt"  # the first row's log
  echo
  cat "$LOG/rows.md"
  [ $PYTORCH -eq 1 ] && { echo; cat "$LOG/pytorch.md"; }
} > "$LOG/table.md" 2>/dev/null || true
cat "$LOG/table.md"
