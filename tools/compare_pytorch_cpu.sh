#!/usr/bin/env bash
# Lesson 11's bar, in one run on this machine: the small CNN on MNIST, batch 32, SGD momentum 0.9,
# lr 0.02, seed 1, FP32, trained for --epochs epochs
#   1. by train_mnist's CPU trainer (lesson 02's loop on lesson 11's layers), and
#   2. by PyTorch on the CPU (tools/pytorch_cpu_mnist.py),
# each with 1 thread and with every core (--threads-list changes that), the two alternated --runs
# times per thread count; then a markdown table of the training seconds per epoch (min and median
# over the runs), the ratio and the test accuracies, with the CPU, the BLAS PyTorch loaded and the
# versions. Installs nothing: it needs a built train_mnist, MNIST in data/mnist and python3 with
# PyTorch (Debian 12: apt-get install python3-torch libopenblas0-pthread).
#
# usage: [PYTHON=python3] tools/compare_pytorch_cpu.sh [--epochs N] [--runs N] [--threads-list "1 2"] [--build DIR]
#                                     [--data DIR] [--model small|a]
# Outputs (logs, JSON, the table) go to $OUT or out/compare_pytorch_cpu. Exit 0 when every run finished.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
EPOCHS=1
RUNS=2
CORES=$(nproc)
THREADS_LIST="1 $CORES"
[ "$CORES" = 1 ] && THREADS_LIST=1
BUILD=$ROOT/build/solutions
DATA=$ROOT/data/mnist
MODEL=small
while [ $# -gt 0 ]; do
  case $1 in
    --epochs) EPOCHS=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --threads-list) THREADS_LIST=$2; shift 2 ;;
    --build) BUILD=$2; shift 2 ;;
    --data) DATA=$2; shift 2 ;;
    --model) MODEL=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "error: unknown argument '$1' (see $0 --help)" >&2; exit 2 ;;
  esac
done
for v in "$EPOCHS" "$RUNS" $THREADS_LIST; do
  case $v in ''|*[!0-9]*|0) echo "error: --epochs, --runs and --threads-list take positive integers, got '$v'" >&2; exit 2 ;; esac
done
case $MODEL in small|a) ;; *) echo "error: --model must be small or a, got '$MODEL'" >&2; exit 2 ;; esac
TRAIN=$BUILD/bin/train_mnist
[ -x "$TRAIN" ] || { echo "error: $TRAIN not found; build first: cmake --preset solutions && cmake --build --preset solutions" >&2; exit 1; }
"$TRAIN" --help | grep -- "--threads" > /dev/null || { echo "error: $TRAIN has no --threads (build lesson 11 too)" >&2; exit 1; }
[ -f "$DATA/train-images-idx3-ubyte" ] || { echo "error: no MNIST in $DATA (run data/fetch_mnist.sh)" >&2; exit 1; }
PYTHON=${PYTHON:-python3}
command -v "$PYTHON" > /dev/null || { echo "error: $PYTHON not found (set PYTHON to another interpreter)" >&2; exit 1; }
"$PYTHON" -c "import torch" 2> /dev/null || { echo "error: PyTorch is not installed for $PYTHON (Debian 12: apt-get install python3-torch libopenblas0-pthread)" >&2; exit 1; }
LOG=${OUT:-$ROOT/out}/compare_pytorch_cpu
mkdir -p "$LOG"
rm -f "$LOG"/course_t*_r*.txt "$LOG"/pytorch_t*_r*.json

for t in $THREADS_LIST; do
  for r in $(seq 1 "$RUNS"); do
    echo "== threads $t, run $r/$RUNS: train_mnist --device cpu"
    # The course's run and PyTorch's alternate, so that both see the same machine state.
    "$TRAIN" --device cpu --model "$MODEL" --batch 32 --lr 0.02 --seed 1 --epochs "$EPOCHS" --threads "$t" \
      --data "$DATA" --out "$LOG/train_mnist_t$t" 2>&1 | grep -v '\] *[0-9]*% ' | tee "$LOG/course_t${t}_r$r.txt"
    echo "== threads $t, run $r/$RUNS: PyTorch"
    OMP_NUM_THREADS=$t OPENBLAS_NUM_THREADS=$t MKL_NUM_THREADS=$t \
      "$PYTHON" tools/pytorch_cpu_mnist.py --model "$MODEL" --batch 32 --lr 0.02 --seed 1 --epochs "$EPOCHS" \
      --threads "$t" --data "$DATA" --json "$LOG/pytorch_t${t}_r$r.json"
  done
done

CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
"$PYTHON" - "$LOG" "$EPOCHS" "$RUNS" "$CPU" "$CORES" "$MODEL" $THREADS_LIST <<'PY' | tee "$LOG/table.md"
import json, re, statistics, sys
log, epochs, runs, cpu, cores, model = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
threads = [int(t) for t in sys.argv[7:]]
def course(t, r):
    rows = []
    for line in open(f"{log}/course_t{t}_r{r}.txt"):
        m = re.match(r"epoch \d+/\d+\s+train loss .*test acc ([0-9.]+) %\s+([0-9.]+) s", line)
        if m:
            rows.append((float(m.group(2)), float(m.group(1)) / 100))
    if len(rows) != epochs:
        sys.exit(f"error: train_mnist with {t} thread(s), run {r}, reported {len(rows)} of {epochs} epochs")
    return rows
first = json.load(open(f"{log}/pytorch_t{threads[0]}_r1.json"))
print(f"\nCPU: {cpu} ({cores} cores); PyTorch {first['torch']}; BLAS loaded by PyTorch: {', '.join(first['blas'])}")
print(f"model {model}, batch 32, SGD momentum 0.9, lr 0.02, FP32; {epochs} epoch(s) per run, {runs} alternating runs "
      "per thread count; seconds = the training part of an epoch\n")
print("| threads | course s (min / median) | PyTorch s (min / median) | ratio (median) | course test acc | PyTorch test acc |")
print("|---:|---:|---:|---:|---:|---:|")
verdicts = []
for t in threads:
    ours = [row for r in range(1, runs + 1) for row in course(t, r)]
    theirs = [json.load(open(f"{log}/pytorch_t{t}_r{r}.json")) for r in range(1, runs + 1)]
    ps = [s for j in theirs for s in j["epoch_seconds"]]
    pacc = theirs[-1]["test_accuracy"][-1]
    mo, mp = statistics.median([s for s, _ in ours]), statistics.median(ps)
    print(f"| {t} | {min(s for s, _ in ours):.2f} / {mo:.2f} | {min(ps):.2f} / {mp:.2f} | {mo / mp:.2f} | "
          f"{100 * ours[-1][1]:.2f} % | {100 * pacc:.2f} % |")
    verdicts.append((t, mo <= mp, mo / mp))
for t, met, ratio in verdicts:
    print(f"bar of lesson 11 with {t} thread(s) (course <= PyTorch CPU): " + ("MET" if met else f"NOT MET ({ratio:.2f}x)"))
PY
