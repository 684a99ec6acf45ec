#!/usr/bin/env bash
# Lesson 08's speed bar, in one run: model A on MNIST, batch 128, SGD momentum 0.9, lr 0.05,
# seed 1, FP32 (TF32 off), the data on the GPU, trained
#   1. by train_mnist (the course's own kernels), and
#   2. by PyTorch eager (tools/pytorch_mnist.py), with cuDNN's default algorithms and with
#      torch.backends.cudnn.benchmark = True,
# then a markdown table of the training seconds of every epoch (each measured the same way:
# synchronise, host clock, the training part of the epoch only), their ratio and the test
# accuracies, with the GPU and the versions. Exit 0 when all three runs finished.
#
# usage: tools/compare_pytorch.sh [--epochs N] [--build DIR] [--data DIR] [--conv auto|im2col|direct]
#   --build  the build folder holding bin/train_mnist (default build/solutions)
# Outputs (logs, JSON, train_mnist's metrics and pictures) go to $OUT or out/compare_pytorch.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
EPOCHS=3
BUILD=$ROOT/build/solutions
DATA=$ROOT/data/mnist
CONV=auto
while [ $# -gt 0 ]; do
  case $1 in
    --epochs) EPOCHS=$2; shift 2 ;;
    --build) BUILD=$2; shift 2 ;;
    --data) DATA=$2; shift 2 ;;
    --conv) CONV=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
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
"$TRAIN" "${RECIPE[@]}" --conv "$CONV" --device gpu --data "$DATA" --out "$LOG/train_mnist" 2>&1 | tee "$LOG/train_mnist.txt"
echo "== PyTorch eager (cuDNN default algorithms)"
python3 tools/pytorch_mnist.py --model a --batch 128 --lr 0.05 --momentum 0.9 --seed 1 --epochs "$EPOCHS" \
    --data "$DATA" --json "$LOG/pytorch.json" 2>&1 | tee "$LOG/pytorch.txt"
echo "== PyTorch eager (cudnn.benchmark = True)"
python3 tools/pytorch_mnist.py --model a --batch 128 --lr 0.05 --momentum 0.9 --seed 1 --epochs "$EPOCHS" \
    --data "$DATA" --cudnn-benchmark --json "$LOG/pytorch_benchmark.json" 2>&1 | tee "$LOG/pytorch_benchmark.txt"

GPU=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1 || echo unknown)
NVCC=$(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p' || true)
python3 - "$LOG" "$EPOCHS" "$GPU" "${NVCC:-unknown}" "$CONV" <<'PY' | tee "$LOG/table.md"
import json, re, statistics, sys
log, epochs, gpu, nvcc, conv = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
ours = []
for line in open(f"{log}/train_mnist.txt"):
    m = re.match(r"epoch (\d+)/\d+\s+train loss .*test acc ([0-9.]+) %\s+([0-9.]+) s", line)
    if m:
        ours.append((float(m.group(3)), float(m.group(2)) / 100))
eager = json.load(open(f"{log}/pytorch.json"))
bench = json.load(open(f"{log}/pytorch_benchmark.json"))
if len(ours) != epochs or len(eager["epoch_seconds"]) != epochs or len(bench["epoch_seconds"]) != epochs:
    sys.exit("error: a run did not report every epoch")
print(f"\nGPU: {gpu}; PyTorch {eager['torch']}; nvcc {nvcc}; model A, batch 128, SGD momentum 0.9, lr 0.05, "
      f"FP32 (TF32 off), data on the GPU; train_mnist conv {conv}\n")
print("| epoch | train_mnist s | PyTorch eager s | ratio | PyTorch cudnn.benchmark s | ratio | "
      "train_mnist test acc | PyTorch eager test acc |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|")
for e in range(epochs):
    t, acc = ours[e]
    pe, pb = eager["epoch_seconds"][e], bench["epoch_seconds"][e]
    print(f"| {e + 1} | {t:.3f} | {pe:.3f} | {t / pe:.2f} | {pb:.3f} | {t / pb:.2f} | "
          f"{100 * acc:.2f} % | {100 * eager['test_accuracy'][e]:.2f} % |")
# Epoch 1 carries one-time costs on both sides (cuDNN/cuBLAS set-up, first launches): the
# verdict uses the median of the later epochs when there are any.
later = slice(1, None) if epochs > 1 else slice(0, None)
mo = statistics.median([t for t, _ in ours][later])
me = statistics.median(eager["epoch_seconds"][later])
mb = statistics.median(bench["epoch_seconds"][later])
print(f"\nmedian epoch{' (2..)' if epochs > 1 else ''}: train_mnist {mo:.3f} s, PyTorch eager {me:.3f} s "
      f"(ratio {mo / me:.2f}), cudnn.benchmark {mb:.3f} s (ratio {mo / mb:.2f})")
print("bar (train_mnist epoch time <= PyTorch eager's): " + ("MET" if mo <= me else "NOT MET"))
PY
