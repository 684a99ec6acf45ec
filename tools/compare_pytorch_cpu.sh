#!/usr/bin/env bash
# Lesson 11's bar, in one run on this machine: the small CNN on MNIST, batch 32, SGD momentum 0.9,
# lr 0.02, seed 1, FP32, trained by the course's `train` program on the CPU (lesson 02's loop on lesson 11's
# layers) and by PyTorch on the CPU (tools/pytorch_cpu_mnist.py) set up as an expert would.
#
# For each thread count (1 and every core; --threads-list changes that):
#   1. the ladder: PyTorch's set-ups on the first --search-images training images, each run
#      --search-runs times, alternated: both pools at t threads (OpenMP and BLAS: what people get
#      when they set OMP_NUM_THREADS and OPENBLAS_NUM_THREADS alike), one pool (PyTorch's OpenMP at
#      t, BLAS at 1) with oneDNN on and off, channels_last, and (t > 1) BLAS's pool alone. The
#      fastest (median) is the EXPERT configuration for t.
#   2. whole epochs, course and expert PyTorch alternated (course, PyTorch, course, ...), --runs
#      times each, with the spread (min, median, max) and the ratio of the medians.
# Then the markdown tables, with the CPU, the PyTorch build and the BLAS library it loaded. Installs
# nothing: it needs a built train (programs/), MNIST in data/mnist and a python3 with PyTorch (Debian 12:
# apt-get install python3-torch libopenblas0-pthread; PYTHON picks the interpreter, else the first
# of python3 and /usr/bin/python3 that has torch).
#
# usage: [PYTHON=...] tools/compare_pytorch_cpu.sh [--epochs N] [--runs N] [--threads-list "1 2"]
#            [--build DIR] [--data DIR] [--model small|a] [--search-images N] [--search-runs N]
# Outputs (logs, JSON, the tables) go to $OUT or out/compare_pytorch_cpu. Exit 0 when every run finished.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
EPOCHS=1
RUNS=5
CORES=$(nproc)
THREADS_LIST="1 $CORES"
[ "$CORES" = 1 ] && THREADS_LIST=1
BUILD=$ROOT/build/solutions
DATA=$ROOT/data/mnist
MODEL=small
SEARCH_IMAGES=19200
SEARCH_RUNS=3
while [ $# -gt 0 ]; do
  case $1 in
    --epochs) EPOCHS=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --threads-list) THREADS_LIST=$2; shift 2 ;;
    --build) BUILD=$2; shift 2 ;;
    --data) DATA=$2; shift 2 ;;
    --model) MODEL=$2; shift 2 ;;
    --search-images) SEARCH_IMAGES=$2; shift 2 ;;
    --search-runs) SEARCH_RUNS=$2; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "error: unknown argument '$1' (see $0 --help)" >&2; exit 2 ;;
  esac
done
for v in "$EPOCHS" "$RUNS" "$SEARCH_IMAGES" "$SEARCH_RUNS" $THREADS_LIST; do
  case $v in ''|*[!0-9]*|0) echo "error: --epochs, --runs, --search-images, --search-runs and --threads-list take positive integers, got '$v'" >&2; exit 2 ;; esac
done
case $MODEL in small|a) ;; *) echo "error: --model must be small or a, got '$MODEL'" >&2; exit 2 ;; esac
TRAIN=$BUILD/bin/train
[ -x "$TRAIN" ] || { echo "error: $TRAIN not found; build first: cmake --preset solutions && cmake --build --preset solutions" >&2; exit 1; }
"$TRAIN" --help | grep -- "--threads" > /dev/null || { echo "error: $TRAIN has no --threads (build lesson 11 too)" >&2; exit 1; }
[ -f "$DATA/train-images-idx3-ubyte" ] || { echo "error: no MNIST in $DATA (run data/fetch_mnist.sh)" >&2; exit 1; }
if [ -z "${PYTHON:-}" ]; then
  for candidate in python3 /usr/bin/python3; do
    if command -v "$candidate" > /dev/null && "$candidate" -c "import torch" 2> /dev/null; then PYTHON=$candidate; break; fi
  done
fi
[ -n "${PYTHON:-}" ] && "$PYTHON" -c "import torch" 2> /dev/null ||
  { echo "error: no python3 with PyTorch (Debian 12: apt-get install python3-torch libopenblas0-pthread; or set PYTHON)" >&2; exit 1; }
LOG=${OUT:-$ROOT/out}/compare_pytorch_cpu
mkdir -p "$LOG"
rm -f "$LOG"/course_t*_r*.txt "$LOG"/pytorch_t*_r*.json "$LOG"/search_t*.json "$LOG"/ladder_t*.txt

RECIPE=(--model "$MODEL" --batch 32 --lr 0.02 --seed 1)
torch_run() {  # torch_run <json> <flags...>
  local json=$1; shift
  "$PYTHON" tools/pytorch_cpu_mnist.py "${RECIPE[@]}" --data "$DATA" --json "$json" "$@"
}

for t in $THREADS_LIST; do
  # 1. The ladder on part of an epoch: name|flags, every configuration --search-runs times, alternated.
  ladder=("both pools at $t (OpenMP $t, BLAS $t), oneDNN on|--threads $t --blas-threads $t --mkldnn on"
          "one pool (OpenMP $t, BLAS 1), oneDNN on|--threads $t --blas-threads 1 --mkldnn on"
          "one pool (OpenMP $t, BLAS 1), oneDNN off|--threads $t --blas-threads 1 --mkldnn off"
          "one pool, oneDNN on, channels_last|--threads $t --blas-threads 1 --mkldnn on --channels-last"
          "one pool, oneDNN on, SGD for-loop|--threads $t --blas-threads 1 --mkldnn on --optimizer-impl for-loop")
  [ "$t" -gt 1 ] && ladder+=("BLAS pool alone (OpenMP 1, BLAS $t), oneDNN off|--threads 1 --blas-threads $t --mkldnn off")
  printf '%s\n' "${ladder[@]}" > "$LOG/ladder_t$t.txt"
  for r in $(seq 1 "$SEARCH_RUNS"); do
    for i in "${!ladder[@]}"; do
      flags=${ladder[$i]#*|}
      echo "== threads $t, PyTorch set-up $((i + 1))/${#ladder[@]}, run $r/$SEARCH_RUNS on $SEARCH_IMAGES images: ${ladder[$i]%%|*}"
      # shellcheck disable=SC2086
      torch_run "$LOG/search_t${t}_c${i}_r$r.json" $flags --epochs 1 --train-limit "$SEARCH_IMAGES" | tail -n 1
    done
  done
  best=$("$PYTHON" - "$LOG" "$t" "${#ladder[@]}" "$SEARCH_RUNS" <<'PY'
import json, statistics, sys
log, t, configs, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
med = [statistics.median(json.load(open(f"{log}/search_t{t}_c{c}_r{r}.json"))["epoch_seconds"][0] for r in range(1, runs + 1))
       for c in range(configs)]
print(min(range(configs), key=lambda c: med[c]))
PY
)
  expert=${ladder[$best]#*|}
  echo "$best" > "$LOG/expert_t$t.txt"
  echo "== threads $t: the expert configuration is set-up $((best + 1)): ${ladder[$best]%%|*}"
  # 2. Whole epochs, alternated.
  for r in $(seq 1 "$RUNS"); do
    echo "== threads $t, run $r/$RUNS: train --device cpu"
    "$TRAIN" --device cpu "${RECIPE[@]}" --epochs "$EPOCHS" --threads "$t" --data "$DATA" --out "$LOG/train_t$t" 2>&1 |
      grep -v '\] *[0-9]*% ' | tee "$LOG/course_t${t}_r$r.txt" | grep -E "^epoch|^summary"
    echo "== threads $t, run $r/$RUNS: PyTorch, expert configuration"
    # shellcheck disable=SC2086
    torch_run "$LOG/pytorch_t${t}_r$r.json" $expert --epochs "$EPOCHS" | tail -n 1
  done
done

CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
FLAGS=$(grep -o -w 'avx512f\|avx2\|fma' /proc/cpuinfo | sort -u | tr '\n' ' ')
NATIVE=$(grep -s '^COURSE_NATIVE:' "$BUILD/CMakeCache.txt" | cut -d= -f2 || true)  # a copied binary has no cache: '?'
"$PYTHON" - "$LOG" "$EPOCHS" "$RUNS" "$CPU" "$CORES" "$MODEL" "$SEARCH_IMAGES" "$SEARCH_RUNS" "${FLAGS% }" "${NATIVE:-?}" \
  $THREADS_LIST <<'PY' | tee "$LOG/table.md"
import json, re, statistics, sys
log, epochs, runs, cpu, cores, model = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
search_images, search_runs, flags, native = sys.argv[7], int(sys.argv[8]), sys.argv[9], sys.argv[10]
threads = [int(t) for t in sys.argv[11:]]
def course(t, r):
    rows = []
    for line in open(f"{log}/course_t{t}_r{r}.txt"):
        m = re.match(r"epoch \d+/\d+\s+train loss .*test acc ([0-9.]+) %\s+([0-9.]+) s", line)
        if m:
            rows.append((float(m.group(2)), float(m.group(1)) / 100))
    if len(rows) != epochs:
        sys.exit(f"error: train with {t} thread(s), run {r}, reported {len(rows)} of {epochs} epochs")
    return rows
first = json.load(open(f"{log}/pytorch_t{threads[0]}_r1.json"))
print(f"\nCPU: {cpu} ({cores} cores; {flags}); course built with COURSE_NATIVE={native}; PyTorch {first['torch']} "
      f"(the distribution's build); BLAS loaded: {', '.join(first['blas'])}")
print(f"model {model}, batch 32, SGD momentum 0.9, lr 0.02, FP32; seconds = the training part of an epoch\n")
print(f"PyTorch's set-ups on the first {search_images} training images, {search_runs} alternated runs each "
      "(seconds: min / median / max); the fastest median is the expert configuration:\n")
print("| threads | PyTorch set-up | seconds | |\n|---:|---|---:|---|")
for t in threads:
    ladder = [line.rstrip("\n").split("|", 1)[0] for line in open(f"{log}/ladder_t{t}.txt")]
    best = int(open(f"{log}/expert_t{t}.txt").read())
    for c, name in enumerate(ladder):
        s = [json.load(open(f"{log}/search_t{t}_c{c}_r{r}.json"))["epoch_seconds"][0] for r in range(1, search_runs + 1)]
        print(f"| {t} | {name} | {min(s):.2f} / {statistics.median(s):.2f} / {max(s):.2f} | {'**expert**' if c == best else ''} |")
print(f"\nWhole epochs, course and expert PyTorch alternated, {runs} runs each (seconds: min / median / max):\n")
print("| threads | course | expert PyTorch | course / PyTorch (median) | pairwise ratios (min - max) | course test acc | PyTorch test acc |")
print("|---:|---:|---:|---:|---:|---:|---:|")
verdicts = []
for t in threads:
    ours = [[s for s, _ in course(t, r)] for r in range(1, runs + 1)]
    theirs = [json.load(open(f"{log}/pytorch_t{t}_r{r}.json")) for r in range(1, runs + 1)]
    o = [statistics.median(x) for x in ours]
    p = [statistics.median(j["epoch_seconds"]) for j in theirs]
    pairs = [a / b for a, b in zip(o, p)]
    mo, mp = statistics.median(o), statistics.median(p)
    print(f"| {t} | {min(o):.2f} / {mo:.2f} / {max(o):.2f} | {min(p):.2f} / {mp:.2f} / {max(p):.2f} | **{mo / mp:.2f}** | "
          f"{min(pairs):.2f} - {max(pairs):.2f} | {100 * course(t, runs)[-1][1]:.2f} % | {100 * theirs[-1]['test_accuracy'][-1]:.2f} % |")
    verdicts.append((t, mo <= mp, mo / mp, theirs[0]["setup"]))
for t, met, ratio, setup in verdicts:
    print(f"bar of lesson 11 with {t} thread(s) (course <= expert PyTorch: {setup}): " +
          (f"MET ({ratio:.2f}x)" if met else f"NOT MET ({ratio:.2f}x)"))
PY
