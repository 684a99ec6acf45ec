#!/usr/bin/env bash
# Lesson 12's results table, in one run on one GPU: every network of lessons/12_beyond_mnist/models
# on every data set that is here, with its published recipe, trained
#   1. by train_beyond --device gpu (the framework's GPU trainer with lesson 08's kernels, lesson 12's layers and Adadelta), and
#   2. by PyTorch (tools/pytorch_layers.py) with the same network, recipe and data on the same GPU,
#      its fastest FP32 configurations: the whole training step in one CUDA graph (cudnn.benchmark),
#      and torch.compile's kernels inside that graph (--no-compile leaves that one out; --autotune
#      makes them max-autotune's, which costs minutes of set-up per network and batch size, else
#      Inductor's defaults), and with --expert the expert's configuration too (the model and the loss
#      compiled with max-autotune, the optimizer fused where PyTorch has one, 50 steps a CUDA graph),
# then a markdown table: test accuracy after the recipe's epochs, the median training seconds of an
# epoch (epochs 2.. : the first carries one-time costs on both sides), the ratio to the faster
# PyTorch configuration, and the published figures beside them. FP32, TF32 off.
#
# usage: tools/compare_pytorch_beyond.sh [--build DIR] [--rows a,b,...] [--epochs N] [--no-compile] [--autotune]
#                                       [--expert]
#   --rows    which rows (default: all whose data set is here): mlp-mnist, lenet5-mnist,
#             lenet5_classic-mnist, mnist_cnn-mnist, mnist_cnn-fashion, lenet5-cifar10, colour_cnn-cifar10
#   --epochs  train every row N epochs instead of its recipe's (a quick look; not the table's figures)
# Outputs (logs, JSON, metrics, table.md) go to $OUT/compare_beyond or out/compare_beyond; COURSE_COMMIT
# names the commit in the table where the copy has no git history of its own.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=$ROOT/build/solutions
ROWS=""
EPOCHS=""
COMPILE=1
COMPILE_MODE=default
EXPERT=0
while [ $# -gt 0 ]; do
  case $1 in
    --build) BUILD=$2; shift 2 ;;
    --rows) ROWS=$2; shift 2 ;;
    --epochs) EPOCHS=$2; shift 2 ;;
    --no-compile) COMPILE=0; shift ;;
    --autotune) COMPILE_MODE=max-autotune-no-cudagraphs; shift ;;
    --expert) EXPERT=1; shift ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "error: unknown argument '$1' (see $0 --help)" >&2; exit 2 ;;
  esac
done
case $EPOCHS in ''|[1-9]|[1-9][0-9]) ;; *) echo "error: --epochs must be 1-99, got '$EPOCHS'" >&2; exit 2 ;; esac
TRAIN=$BUILD/bin/train_beyond
[ -x "$TRAIN" ] || { echo "error: $TRAIN not found; build first: cmake --preset solutions && cmake --build --preset solutions" >&2; exit 1; }
python3 -c "import torch" 2> /dev/null || { echo "error: PyTorch is not installed for python3" >&2; exit 1; }
LOG=${OUT:-$ROOT/out}/compare_beyond
mkdir -p "$LOG"

# name | model | data set | epochs | recipe (the same flags for both trainers) | the published result
ALL_ROWS=(
  "mlp-mnist|mlp|mnist|20|--optimizer sgd --lr 0.05 --momentum 0.9 --batch 128|98.0 % (CPU, 132 s) / 98.4 % (one GPU, 35 s) after 20 epochs"
  "lenet5-mnist|lenet5|mnist|20|--optimizer sgd --lr 0.1 --momentum 0.9 --batch 128|-"
  "lenet5_classic-mnist|lenet5_classic|mnist|20|--optimizer sgd --lr 0.1 --momentum 0.9 --batch 128|-"
  "mnist_cnn-mnist|mnist_cnn|mnist|12|--optimizer adadelta --lr 1.0 --rho 0.95 --batch 128|99.25 % after 12 epochs (Keras)"
  "mnist_cnn-fashion|mnist_cnn|fashion|12|--optimizer adadelta --lr 1.0 --rho 0.95 --batch 128|-"
  "lenet5-cifar10|lenet5|cifar10|50|--optimizer sgd --lr 0.1 --momentum 0.9 --batch 128|about 60 % after 50 epochs (CPU 1313 s, one GPU 127 s)"
  "colour_cnn-cifar10|colour_cnn|cifar10|30|--optimizer sgd --lr 0.05 --momentum 0.9 --batch 128|-"
)
data_dir() {
  case $1 in mnist) echo "$ROOT/data/mnist" ;; fashion) echo "$ROOT/data/fashion-mnist" ;; cifar10) echo "$ROOT/data/cifar-10" ;; esac
}
data_here() {
  case $1 in cifar10) [ -f "$(data_dir "$1")/test_batch.bin" ] ;; *) [ -f "$(data_dir "$1")/train-images-idx3-ubyte" ] ;; esac
}

: > "$LOG/rows.txt"
status=0
for row in "${ALL_ROWS[@]}"; do
  IFS='|' read -r name model dataset epochs recipe published <<< "$row"
  if [ -n "$ROWS" ] && [[ ",$ROWS," != *",$name,"* ]]; then continue; fi
  if ! data_here "$dataset"; then
    echo "== $name: skipped, no $dataset data set in $(data_dir "$dataset")"
    echo "$name|$model|$dataset|0|$recipe|$published|missing" >> "$LOG/rows.txt"
    continue
  fi
  [ -z "$EPOCHS" ] || epochs=$EPOCHS
  common=(--model "$model" --dataset "$dataset" --data "$(data_dir "$dataset")" --epochs "$epochs" --seed 1)
  echo "== $name: train_beyond ${common[*]} $recipe"
  # shellcheck disable=SC2086
  "$TRAIN" "${common[@]}" $recipe --device gpu --out "$LOG/$name" 2>&1 | tee "$LOG/$name.course.txt"
  configs="graph"
  [ $COMPILE = 0 ] || configs="graph compile-graph"
  [ $COMPILE = 0 ] || [ $EXPERT = 0 ] || configs="$configs expert"
  for mode in $configs; do
    echo "== $name: PyTorch --mode $mode"
    rm -f "$LOG/$name.$mode.json"
    # shellcheck disable=SC2086
    if ! python3 tools/pytorch_layers.py "${common[@]}" $recipe --mode "$mode" --compile-mode "$COMPILE_MODE" \
           --cudnn-benchmark --json "$LOG/$name.$mode.json" > "$LOG/$name.$mode.txt" 2>&1; then
      echo "error: PyTorch --mode $mode failed on $name (its log: $LOG/$name.$mode.txt); its cells stay empty"
      status=1
    fi
    grep "^pytorch\|^network" "$LOG/$name.$mode.txt" || true
  done
  echo "$name|$model|$dataset|$epochs|$recipe|$published|ok" >> "$LOG/rows.txt"
done

GPU=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1 || echo unknown)
python3 - "$LOG" "$GPU" "${COURSE_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}" <<'PY' | tee "$LOG/table.md"
import json, os, statistics, sys
log, gpu, commit = sys.argv[1:4]
def course_epochs(path):  # metrics.csv: epoch,train_loss,train_accuracy,test_loss,test_accuracy,seconds
    lines = open(path).read().split("\n")[1:]
    return [(float(f[5]), float(f[4])) for f in (l.split(",") for l in lines if l)]
def median_later(seconds):  # epochs 2.. when there are any: epoch 1 carries one-time costs
    return statistics.median(seconds[1:] if len(seconds) > 1 else seconds)
rows = [l.rstrip("\n").split("|") for l in open(f"{log}/rows.txt")]
torch_version = ""
print(f"\nGPU: {gpu}; commit {commit}; FP32 (TF32 off), data on the GPU, seed 1; seconds: median training "
      "time of an epoch (epochs 2..)\n")
MODES = [m for m in ("graph", "compile-graph", "expert")
         if m != "expert" or any(f.endswith(".expert.json") for f in os.listdir(log))]
TITLE = {"graph": "graph", "compile-graph": "compile+graph", "expert": "expert"}
print("| network | data set | recipe | epochs | course test acc | course s/epoch | "
      + " | ".join(f"PyTorch {TITLE[m]} acc | PyTorch {TITLE[m]} s/epoch" for m in MODES)
      + " | ratio to the fastest | published result |")
print("|---|---|---|---:|---:|---:|" + "---:|" * (2 * len(MODES) + 1) + "---|")
verdicts = []
for name, model, dataset, epochs, recipe, published, status in rows:
    if status != "ok":
        print(f"| {model} | {dataset} | {recipe} | | no data set here | |" + " |" * (2 * len(MODES) + 1) + f" {published} |")
        continue
    ours = course_epochs(f"{log}/{name}/metrics.csv")
    cells, medians, accs = [], {}, {}
    for mode in MODES:
        path = f"{log}/{name}.{mode}.json"
        if not os.path.exists(path):
            cells += ["", ""]
            continue
        r = json.load(open(path))
        torch_version = r.get("torch", torch_version)
        medians[mode] = median_later(r["epoch_seconds"])
        accs[mode] = r["test_accuracy"][-1]
        cells += [f"{100 * accs[mode]:.2f} %", f"{medians[mode]:.3f}"]
    mine = median_later([s for s, _ in ours])
    if not medians:
        print(f"| {model} | {dataset} | {recipe} | {len(ours)} | {100 * ours[-1][1]:.2f} % | {mine:.3f} | "
              + " | ".join(cells) + f" | - | {published} |")
        verdicts.append(f"{model} on {dataset}: no PyTorch run finished -> NOT MEASURED")
        continue
    fastest = min(medians, key=medians.get)
    ratio = mine / medians[fastest]
    print(f"| {model} | {dataset} | {recipe} | {len(ours)} | {100 * ours[-1][1]:.2f} % | {mine:.3f} | "
          + " | ".join(cells) + f" | {ratio:.2f} | {published} |")
    behind = 100 * (accs[fastest] - ours[-1][1])  # negative: the course's accuracy is the higher
    verdicts.append(f"{model} on {dataset}: time {ratio:.2f}x the fastest PyTorch row ({fastest}) -> "
                    f"{'MET' if ratio <= 1.0 else 'NOT MET'}; accuracy {100 * ours[-1][1]:.2f} % against its "
                    f"{100 * accs[fastest]:.2f} % -> {'MET' if behind <= 0.5 else 'NOT MET'}")
modes = {json.load(open(os.path.join(log, f))).get("compile_mode", "") for f in os.listdir(log) if f.endswith(".compile-graph.json")}
print(f"\ntorch.compile mode: {', '.join(sorted(m for m in modes if m)) or '-'}; PyTorch's set-up (compile, warm-up, capture) is not timed.")
print(f"PyTorch {torch_version}. Bar: every GPU row at most 1.0x PyTorch's time and within 0.5 points of its accuracy.")
for v in verdicts:
    print("- " + v)
PY
exit $status
