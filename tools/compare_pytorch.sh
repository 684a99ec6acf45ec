#!/usr/bin/env bash
# Lesson 08's speed bar, in one run: model A on MNIST, batch 128, SGD momentum 0.9, lr 0.05,
# seed 1, FP32 (TF32 off), the data on the GPU, trained
#   1. by train_mnist (lesson 08: the course's own kernels) and train_fast (lesson 09: the fast
#      network, steps replayed from CUDA graphs; skipped when not built), and
#   2. by PyTorch (tools/pytorch_mnist.py) as people run it, from plain to an expert's:
#      eager with cuDNN's default algorithms; eager with torch.backends.cudnn.benchmark = True;
#      the whole training step in one CUDA graph (cudnn.benchmark on); torch.compile's kernels
#      (max-autotune, no graphs of its own) inside that whole-step graph; and the expert's
#      configuration (--mode expert: the model and the loss compiled together, SGD fused, 50 steps
#      per CUDA graph), strict FP32 and with TF32 allowed (--fast-only runs only the graph and
#      later rows; --no-compile leaves every compiled one out),
# then a markdown table of the training seconds of every epoch (each measured the same way:
# synchronise, host clock, the training part of the epoch only), the ratio to each, and the test
# accuracies, with the GPU and the versions. Compiling, autotuning and capturing happen before
# the timed epochs; their seconds are printed. Exit 0 when every run finished.
#
# With --mixed, lesson 10's bar instead: train_mixed --precision bf16 (the convolutions on the Tensor
# Cores) beside train_fast, against PyTorch's whole-step graph, torch.compile in it, and the expert's
# configuration with channels_last and without, all with BF16 autocast; no FP32 PyTorch run.
# The bars compare with the fastest PyTorch row of the same arithmetic, the expert's included (the
# TF32 row is shown beside them, not raced). max-autotune's search
# takes minutes for each compiled row (strict FP32 the longest).
#
# usage: tools/compare_pytorch.sh [--epochs N] [--build DIR] [--data DIR] [--conv auto|im2col|direct]
#                                 [--no-compile] [--fast-only] [--mixed]
#   --build  the build folder holding bin/train_mnist and bin/train_fast (default build/solutions)
# Outputs (logs, JSON, train_mnist's metrics and pictures) go to $OUT or out/compare_pytorch.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
EPOCHS=3
BUILD=$ROOT/build/solutions
DATA=$ROOT/data/mnist
CONV=auto
COMPILE=1
FAST_ONLY=0
MIXED=0
while [ $# -gt 0 ]; do
  case $1 in
    --no-compile) COMPILE=0; shift ;;
    --fast-only) FAST_ONLY=1; shift ;;
    --mixed) MIXED=1; shift ;;
    --epochs) EPOCHS=$2; shift 2 ;;
    --build) BUILD=$2; shift 2 ;;
    --data) DATA=$2; shift 2 ;;
    --conv) CONV=$2; shift 2 ;;
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    *) echo "error: unknown argument '$1' (see $0 --help)" >&2; exit 2 ;;
  esac
done
case $EPOCHS in ''|*[!0-9]*|0) echo "error: --epochs must be a positive integer, got '$EPOCHS'" >&2; exit 2 ;; esac
TRAIN=$BUILD/bin/train_mnist
[ -x "$TRAIN" ] || { echo "error: $TRAIN not found; build first: cmake --preset solutions && cmake --build --preset solutions" >&2; exit 1; }
[ -f "$DATA/train-images-idx3-ubyte" ] || { echo "error: no MNIST in $DATA (run data/fetch_mnist.sh)" >&2; exit 1; }
command -v python3 > /dev/null || { echo "error: python3 not found" >&2; exit 1; }
python3 -c "import torch" 2> /dev/null || { echo "error: PyTorch is not installed for python3" >&2; exit 1; }
LOG=${OUT:-$ROOT/out}/compare_pytorch
mkdir -p "$LOG"

RECIPE=(--model a --batch 128 --optimizer sgd --lr 0.05 --seed 1 --epochs "$EPOCHS")
echo "== train_mnist ${RECIPE[*]} --conv $CONV"
"$TRAIN" "${RECIPE[@]}" --conv "$CONV" --data "$DATA" --out "$LOG/train_mnist" 2>&1 | tee "$LOG/train_mnist.txt"
FAST=$BUILD/bin/train_fast
if [ -x "$FAST" ]; then
  echo "== train_fast ${RECIPE[*]}"
  "$FAST" "${RECIPE[@]}" --data "$DATA" --out "$LOG/train_fast" 2>&1 | tee "$LOG/train_fast.txt"
else
  rm -f "$LOG/train_fast.txt"
fi
MIXED_EXE=$BUILD/bin/train_mixed
rm -f "$LOG/train_mixed.txt"
if [ $MIXED = 1 ]; then
  [ -x "$MIXED_EXE" ] || { echo "error: $MIXED_EXE not found (built with lessons 09 and 10)" >&2; exit 1; }
  echo "== train_mixed ${RECIPE[*]} --precision bf16"
  "$MIXED_EXE" "${RECIPE[@]}" --precision bf16 --data "$DATA" --out "$LOG/train_mixed" 2>&1 | tee "$LOG/train_mixed.txt"
fi
TORCH=(--model a --batch 128 --lr 0.05 --momentum 0.9 --seed 1 --epochs "$EPOCHS" --data "$DATA")
CONFIGS=()
if [ $MIXED = 1 ]; then
  CONFIGS+=("graph_bf16|whole step in one CUDA graph, BF16 autocast, cudnn.benchmark|--mode graph --cudnn-benchmark --amp bf16")
  [ $COMPILE = 0 ] || CONFIGS+=("compile_graph_bf16|torch.compile (max-autotune-no-cudagraphs) in the whole-step graph, BF16 autocast|--mode compile-graph --cudnn-benchmark --amp bf16"
                                "expert_bf16|expert: model and loss compiled (max-autotune), SGD fused, 50 steps a graph, BF16 autocast, NCHW|--mode expert --cudnn-benchmark --amp bf16"
                                "expert_bf16_cl|expert, BF16 autocast, channels_last|--mode expert --cudnn-benchmark --amp bf16 --channels-last")
else
  [ $FAST_ONLY = 1 ] || CONFIGS+=("eager|eager (cuDNN default algorithms)|--mode eager"
                                  "eager_benchmark|eager, cudnn.benchmark|--mode eager --cudnn-benchmark")
  CONFIGS+=("graph|whole step in one CUDA graph, cudnn.benchmark|--mode graph --cudnn-benchmark")
  [ $COMPILE = 0 ] || CONFIGS+=("compile_graph|torch.compile (max-autotune-no-cudagraphs) in the whole-step graph|--mode compile-graph --cudnn-benchmark"
                                "expert|expert: model and loss compiled (max-autotune), SGD fused, 50 steps a graph, strict FP32|--mode expert --cudnn-benchmark"
                                "expert_tf32|expert, TF32 allowed (PyTorch's cuDNN default)|--mode expert --cudnn-benchmark --tf32")
fi
: > "$LOG/configs.txt"
for config in "${CONFIGS[@]}"; do
  IFS='|' read -r key title flags <<< "$config"
  echo "== PyTorch $title"
  # shellcheck disable=SC2086
  python3 tools/pytorch_mnist.py "${TORCH[@]}" $flags --json "$LOG/pytorch_$key.json" 2>&1 | tee "$LOG/pytorch_$key.txt"
  echo "$key|$title" >> "$LOG/configs.txt"
done

GPU=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1 || echo unknown)
NVCC=$(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p' || true)
python3 - "$LOG" "$EPOCHS" "$GPU" "${NVCC:-unknown}" "$CONV" "$MIXED" <<'PY' | tee "$LOG/table.md"
import json, os, re, statistics, sys
log, epochs, gpu, nvcc, conv, mixed = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6] == "1"
def epochs_of(path):
    rows = []
    for line in open(path):
        m = re.match(r"epoch (\d+)/\d+\s+train loss .*test acc ([0-9.]+) %\s+([0-9.]+) s", line)
        if m:
            rows.append((float(m.group(3)), float(m.group(2)) / 100))
    return rows
ours = {"train_mnist": epochs_of(f"{log}/train_mnist.txt")}
if os.path.exists(f"{log}/train_fast.txt"):
    ours["train_fast"] = epochs_of(f"{log}/train_fast.txt")
if os.path.exists(f"{log}/train_mixed.txt"):
    ours["train_mixed"] = epochs_of(f"{log}/train_mixed.txt")
configs = [line.rstrip("\n").split("|", 1) for line in open(f"{log}/configs.txt")]
runs = {key: json.load(open(f"{log}/pytorch_{key}.json")) for key, _ in configs}
if any(len(r) != epochs for r in ours.values()) or any(len(r["epoch_seconds"]) != epochs for r in runs.values()):
    sys.exit("error: a run did not report every epoch")
torch_version = next(iter(runs.values()))["torch"]
precision = ("PyTorch with BF16 autocast, train_mixed with BF16 convolutions, train_mnist and train_fast FP32"
             if mixed else "FP32 (TF32 off)")
print(f"\nGPU: {gpu}; PyTorch {torch_version}; nvcc {nvcc}; model A, batch 128, SGD momentum 0.9, lr 0.05, "
      f"{precision}, data on the GPU; train_mnist conv {conv}\n")
for i, (key, title) in enumerate(configs):
    setup = runs[key].get("setup_seconds", 0.0)
    print(f"PyTorch {i + 1}: {title}" + (f" (set-up before timing: {setup:.1f} s)" if setup else ""))
print()
names = list(ours)
print("| epoch | " + " | ".join(f"{n} s" for n in names) + " | " + " | ".join(f"PyTorch {i + 1} s" for i in range(len(configs))) +
      " | " + " | ".join(f"{n} test acc" for n in names) + " | " +
      " | ".join(f"PyTorch {i + 1} test acc" for i in range(len(configs))) + " |")
print("|---:|" + "---:|" * (2 * (len(names) + len(configs))))
for e in range(epochs):
    cells = [f"{ours[n][e][0]:.3f}" for n in names] + [f"{runs[k]['epoch_seconds'][e]:.3f}" for k, _ in configs]
    accs = [f"{100 * ours[n][e][1]:.2f} %" for n in names] + [f"{100 * runs[k]['test_accuracy'][e]:.2f} %" for k, _ in configs]
    print(f"| {e + 1} | " + " | ".join(cells) + " | " + " | ".join(accs) + " |")
# Epoch 1 carries one-time costs on both sides (set-up, first launches): the verdicts use the
# median of the later epochs when there are any.
later = slice(1, None) if epochs > 1 else slice(0, None)
mine = {n: statistics.median([t for t, _ in ours[n]][later]) for n in names}
medians = {k: statistics.median(runs[k]["epoch_seconds"][later]) for k, _ in configs}
print(f"\nmedian epoch{' (2..)' if epochs > 1 else ''}: " + "; ".join(f"{n} {mine[n]:.3f} s" for n in names) + "; " +
      "; ".join(f"PyTorch {i + 1} {medians[k]:.3f} s" for i, (k, _) in enumerate(configs)))
print("ratios (course trainer's median epoch / PyTorch's; below 1: the course is faster):")
for n in names:
    print(f"  {n}: " + "; ".join(f"PyTorch {i + 1} {mine[n] / medians[k]:.2f}" for i, (k, _) in enumerate(configs)))
if "eager" in medians:
    print("bar of lesson 08 (train_mnist epoch time <= PyTorch eager's): " +
          ("MET" if mine["train_mnist"] <= medians["eager"] else "NOT MET"))
# The bars hold the course's strict-FP32 (or BF16) trainers against rows of the same arithmetic: the
# TF32 row is shown beside them, not raced.
fastest = min((k for k in medians if not k.endswith("tf32")), key=medians.get)
title = dict(configs)[fastest]
if mixed:
    best = "train_mixed"
    print(f"bar of lesson 10 ({best} <= the fastest mixed-precision PyTorch row, {title}: "
          f"{medians[fastest]:.3f} s): " +
          ("MET" if mine[best] <= medians[fastest] else f"NOT MET ({mine[best] / medians[fastest]:.2f}x its time)"))
else:
    best = "train_fast" if "train_fast" in mine else "train_mnist"
    print(f"bar of lesson 09 ({best} <= the fastest strict-FP32 PyTorch row, {title}: {medians[fastest]:.3f} s): " +
          ("MET" if mine[best] <= medians[fastest] else f"NOT MET ({mine[best] / medians[fastest]:.2f}x its time)"))
PY
