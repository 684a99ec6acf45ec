#!/usr/bin/env bash
# The GPU machine's whole check, in stages (default: all of them, in this order):
#   build     configure + build the solutions for the visible GPU (Catch2 v3 there)
#   test      every CTest test (GPU tests included), then lesson 00's device report
#   sanitize  every GPU test program under compute-sanitizer memcheck and racecheck
#   stubs     the learner build: the course check with GPU steps (stubs must fail)
#   bench     each lesson's benchmark program (lessons 03-07, 09, 10, 13: on every GPU there is); with ncu, one step of train_fast
#             under Nsight Compute against lesson 09.1's counts (tools/ncu_step.py)
#   train     lesson 08: train_mnist defaults + --save checked in PyTorch, --profile; lesson 09: train_fast
#             the same, --profile --graph off; lesson 10: train_mixed; lesson 13: train_parallel; then
#             compare_pytorch.sh (against PyTorch; run it with --mixed for lesson 10's BF16 bar)
#   beyond    lesson 12: compare_pytorch_beyond.sh, every network on every data set here against PyTorch
#             (not in the default list: about ten minutes; BEYOND_ROWS picks rows, e.g. mlp-mnist)
#   speedrun  lesson 14: speedrun_table.sh, the recipe's ablation over 10 seeds and PyTorch's same recipe
#             (not in the default list: about five minutes)
#   race      the course's fastest trainers against an expert's PyTorch (tools/race_pytorch.py): lessons 09,
#             10, 12 and 14, three alternated runs each (not in the default list: its first compiles take
#             minutes; RACE_LESSONS=09,10 picks lessons, RACE_RUNS=N the rounds, RACE_FORMATS=known
#             only the memory format measured faster on an H100)
#   sine      lesson 16: tools/sine_table.py, an epoch of train_sine on the CPU, with 16.2 and with 16.3,
#             against PyTorch's nn.LSTM from the same weights, at 5, 51, 256 and 1,024 units, then the
#             loss curves (not in the default list: a few minutes; SINE_ARGS adds flags, e.g.
#             SINE_ARGS='--hidden 5,51')
#   two_gpus  lesson 13 on a machine with two GPUs (not in the default list): its tests (the two-rank ones
#             included) and the later lessons' two-GPU runs (15, 16); lesson 13's test programs under
#             memcheck and racecheck; then train_parallel's table: 1 and 2 GPUs, model A and lesson
#             12's mnist_cnn (--network layers)
#   measure   each lesson's measured block from one run of its measuring program (tools/measure.py run; the
#             blocks come back in $LOG/measured, for tools/measure.py write; MEASURE_LESSONS picks lessons,
#             COURSE_COMMIT names the tree's commit where the copy is no clone; not in the default list)
#   ab        tools/ab_runs.sh: the trainers of the tree in $AB_OLD (a folder, or a .tar.gz from git archive)
#             and of this one, the same runs alternated $AB_ROUNDS times (default 2; not in the default list)
#   scaling   lesson 13: lesson13_data_parallel over NVLink and through host memory (NCCL_P2P_DISABLE=1),
#             CSVs and pictures in $LOG/scaling_nvlink and $LOG/scaling_no_p2p (not in the default list;
#             SCALING_LINKS=nvlink runs one link: each study takes a few minutes on two GPUs)
# On machines with several GPUs NVLink multicast stays off (NCCL_NVLS_ENABLE=0), here and in every
# program this script starts.
# Logs go to $OUT (the device tool's output folder) or out/gpu_check.
# usage: tools/gpu_check.sh [stage...]
set -uo pipefail
export NCCL_NVLS_ENABLE=0
cd "$(dirname "$0")/.."
ROOT=$PWD
LOG=${OUT:-$ROOT/out/gpu_check}
mkdir -p "$LOG"
JOBS=$(nproc)
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(build test sanitize stubs bench train)
status=0

# Carried helpers (see docs/gpu_machine.md): stb headers and gzipped data sets.
EXTRA=()
[ -f .stb/usr/include/stb/stb_image_write.h ] && EXTRA+=("-DSTB_INCLUDE_DIR=$ROOT/.stb/usr/include/stb")
# More configure arguments, e.g. COURSE_CMAKE_ARGS='-DCOURSE_LESSONS=00;01'
[ -n "${COURSE_CMAKE_ARGS:-}" ] && EXTRA+=("$COURSE_CMAKE_ARGS")
# Carried gzipped IDX files: MNIST, and Fashion-MNIST (from Debian's dataset-fashion-mnist).
for set in mnist fashion-mnist; do
  if [ -d ".gpu_data/$set" ] && [ ! -f "data/$set/train-images-idx3-ubyte" ]; then
    mkdir -p "data/$set"
    for f in ".gpu_data/$set"/*.gz; do gunzip -c "$f" > "data/$set/$(basename "$f" .gz)"; done
  fi
done

note() { printf '\n### %s\n' "$*" | tee -a "$LOG/summary.txt"; }

for stage in "${stages[@]}"; do
  case $stage in
  build)
    note "build (solutions) $(date -u +%FT%TZ)"
    { nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv
      nvcc --version | tail -2; cmake --version | head -1; } 2>&1 | tee -a "$LOG/summary.txt"
    cmake --preset solutions "${EXTRA[@]}" > "$LOG/build.log" 2>&1 &&
      cmake --build --preset solutions -j "$JOBS" >> "$LOG/build.log" 2>&1 ||
      { status=1; tail -40 "$LOG/build.log" | tee -a "$LOG/summary.txt"; }
    ;;
  test)
    note "ctest (solutions)"
    # run_tests.py: CTest, then the course's "N passed, N failed, N skipped" with each skip's reason.
    CTEST_PARALLEL_LEVEL=8 python3 tools/run_tests.py --build-dir build/solutions > "$LOG/ctest.log" 2>&1 || status=1
    grep -E "tests passed|tests failed|\*\*\*|Failed" "$LOG/ctest.log" | tee -a "$LOG/summary.txt"
    awk 'BEGIN {RS = ""} END {print}' "$LOG/ctest.log" | tail -n 40 | tee -a "$LOG/summary.txt"  # the summary block
    build/solutions/bin/lesson00_setup > "$LOG/lesson00.txt" 2>&1 || status=1
    head -30 "$LOG/lesson00.txt" | tee -a "$LOG/summary.txt"
    ;;
  sanitize)
    for tool in memcheck racecheck; do
      note "compute-sanitizer $tool over the GPU test programs"
      for exe in build/solutions/bin/test_*; do
        # Only programs that hold GPU tests (their CTest entries carry the gpu label).
        name=$(basename "$exe")
        grep -q "$name" <(ctest --test-dir build/solutions -L gpu -N -V 2>/dev/null) || continue
        # Two GPUs: in the two_gpus stage, alone on them (its _one_gpu twin runs the same layer here).
        [ "$name" = test_15_synced_batch_norm ] && continue
        echo "$exe"
      done | xargs -P 4 -I{} sh -c \
        "compute-sanitizer --tool $tool --report-api-errors no --error-exitcode 99 --print-limit 20 {} --order decl > '$LOG'/san_${tool}_\$(basename {}).log 2>&1; echo \"\$? \$(basename {})\"" \
        | tee "$LOG/sanitize_$tool.txt"
      # 77: the program skipped its tests (more GPUs needed than this machine has).
      awk '$1 == 77 {print "  skipped: " $2} $1 != 0 && $1 != 77 {bad=1; print "  FAILED: " $2 " (exit " $1 ")"} END {exit bad}' \
        "$LOG/sanitize_$tool.txt" \
        | tee -a "$LOG/summary.txt" || status=1
      grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$LOG"/san_${tool}_*.log | sort | uniq -c | tee -a "$LOG/summary.txt"
    done
    ;;
  beyond)
    note "lesson 12: train_beyond against PyTorch, network by network"
    tools/compare_pytorch_beyond.sh ${BEYOND_ROWS:+--rows "$BEYOND_ROWS"} > "$LOG/beyond.txt" 2>&1 || status=1
    grep -v '\] *[0-9]*% ' "$LOG/beyond.txt" | grep -v "^pytorch epoch\|^epoch " | tail -40 | tee -a "$LOG/summary.txt"
    ;;
  speedrun)
    note "lesson 14: the speedrun's ablation and PyTorch's same recipe"
    tools/speedrun_table.sh > "$LOG/speedrun.txt" 2>&1 || status=1
    tail -30 "$LOG/speedrun.txt" | tee -a "$LOG/summary.txt"
    ;;
  stubs)
    note "course check (learner build must fail every step, GPU steps included)"
    python3 tools/course_check.py --lessons-build build/lessons -- "${EXTRA[@]}" > "$LOG/course_check.log" 2>&1 || status=1
    tail -25 "$LOG/course_check.log" | tee -a "$LOG/summary.txt"
    # Each trainer of the learner build stops at the first unwritten step of its lesson, in one line.
    for check in "08 train_mnist --epochs 1" "12 train_beyond --epochs 1" "14 train_speedrun --seeds 1"; do
      read -r lesson program args <<< "$check"
      note "learner build's $program on the GPU: stops at the first unwritten step of lesson $lesson"
      # shellcheck disable=SC2086
      "build/lessons/bin/$program" $args > "$LOG/${program}_learner.txt" 2>&1
      rc=$?
      tail -n 3 "$LOG/${program}_learner.txt" | tee -a "$LOG/summary.txt"
      if [ $rc -eq 0 ] || ! grep -q "TODO($lesson\." "$LOG/${program}_learner.txt"; then
        echo "  FAILED: the stubs' $program did not stop at a TODO($lesson.k) (exit $rc)" | tee -a "$LOG/summary.txt"; status=1
      fi
    done
    ;;
  bench)
    for exe in lesson03_first_kernels lesson04_gemm_dense lesson05_conv_direct lesson06_pooling lesson07_im2col lesson09_fast_training \
               lesson10_tensor_cores lesson13_data_parallel; do
      [ -x "build/solutions/bin/$exe" ] || continue
      note "benchmark $exe"
      timeout 300 "build/solutions/bin/$exe" > "$LOG/bench_$exe.txt" 2>&1 || { echo "  exit $?"; status=1; }
      tail -40 "$LOG/bench_$exe.txt" | tee -a "$LOG/summary.txt"
    done
    if command -v ncu > /dev/null && [ -x build/solutions/bin/train_fast ]; then
      note "lesson 09: one step of train_fast under Nsight Compute (executed flops and bytes against 09.1's counts)"
      python3 tools/ncu_step.py > "$LOG/ncu_step.txt" 2>&1 || status=1
      cat "$LOG/ncu_step.txt" | tee -a "$LOG/summary.txt"
    fi
    ;;
  train)
    TRAIN=build/solutions/bin/train_mnist
    note "lesson 08: train_mnist with its defaults (model A, 5 epochs), --save, then the .npy files in PyTorch"
    "$TRAIN" --save "$LOG/model_a_npy" --out "$LOG/model_a" > "$LOG/train_default.txt" 2>&1 || status=1
    grep -v '\] *[0-9]*% ' "$LOG/train_default.txt" | tee -a "$LOG/summary.txt"
    python3 tools/pytorch_mnist.py --check-npy "$LOG/model_a_npy" 2>&1 | tee -a "$LOG/summary.txt"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    ls -l "$LOG/model_a_npy" >> "$LOG/train_default.txt" && rm -rf "$LOG/model_a_npy"  # 6.7 MB: keep the listing only
    for conv in auto im2col direct; do
      note "lesson 08: --profile --conv $conv"
      "$TRAIN" --profile --epochs 1 --conv "$conv" --out "$LOG/profile_$conv" > "$LOG/profile_$conv.txt" 2>&1 || status=1
      grep -v '\] *[0-9]*% ' "$LOG/profile_$conv.txt" | tee -a "$LOG/summary.txt"
    done
    FAST=build/solutions/bin/train_fast
    if [ -x "$FAST" ]; then
      note "lesson 09: train_fast with its defaults (CUDA graphs), --save, then the .npy files in PyTorch"
      "$FAST" --save "$LOG/fast_npy" --out "$LOG/fast" > "$LOG/train_fast.txt" 2>&1 || status=1
      grep -v '\] *[0-9]*% ' "$LOG/train_fast.txt" | tee -a "$LOG/summary.txt"
      python3 tools/pytorch_mnist.py --check-npy "$LOG/fast_npy" 2>&1 | tee -a "$LOG/summary.txt"
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
      rm -rf "$LOG/fast_npy"
      note "lesson 09: train_fast --profile --graph off, one epoch"
      "$FAST" --profile --graph off --epochs 1 --out "$LOG/fast_profile" > "$LOG/train_fast_profile.txt" 2>&1 || status=1
      grep -v '\] *[0-9]*% ' "$LOG/train_fast_profile.txt" | tee -a "$LOG/summary.txt"
    fi
    MIXED=build/solutions/bin/train_mixed
    if [ -x "$MIXED" ]; then
      for precision in bf16 tf32; do
        note "lesson 10: train_mixed --precision $precision (its products on the Tensor Cores)"
        "$MIXED" --precision $precision --out "$LOG/mixed_$precision" > "$LOG/train_mixed_$precision.txt" 2>&1 || status=1
        grep -v '\] *[0-9]*% ' "$LOG/train_mixed_$precision.txt" | tee -a "$LOG/summary.txt"
      done
    fi
    PARALLEL=build/solutions/bin/train_parallel
    if [ -x "$PARALLEL" ]; then
      note "lesson 13: train_parallel on every GPU, with and without overlap (one GPU: one rank)"
      for overlap in on off; do
        "$PARALLEL" --overlap $overlap --out "$LOG/parallel_$overlap" > "$LOG/train_parallel_$overlap.txt" 2>&1 || status=1
        grep -v '\] *[0-9]*% ' "$LOG/train_parallel_$overlap.txt" | tee -a "$LOG/summary.txt"
      done
    fi
    if [ -x tools/compare_pytorch.sh ]; then
      note "lesson 08: trainer vs PyTorch"
      tools/compare_pytorch.sh > "$LOG/train.txt" 2>&1 || status=1
      tail -40 "$LOG/train.txt" | tee -a "$LOG/summary.txt"
    fi
    ;;
  race)
    note "the course against an expert's PyTorch, alternated runs (lessons ${RACE_LESSONS:-09,10,12,14})"
    python3 tools/race_pytorch.py --lessons "${RACE_LESSONS:-09,10,12,14}" --runs "${RACE_RUNS:-3}" \
      --formats "${RACE_FORMATS:-both}" --out "$LOG/race" > "$LOG/race.txt" 2>&1 || status=1
    tail -n 40 "$LOG/race.txt" | tee -a "$LOG/summary.txt"  # every run's line, then the table
    cp "$LOG/race/race.md" "$LOG/race.md" 2>/dev/null || true  # comes back beside the logs
    ;;
  sine)
    note "lesson 16: tools/sine_table.py (CPU, 16.2, 16.3, PyTorch's nn.LSTM)"
    # shellcheck disable=SC2086  # SINE_ARGS is a list of flags
    python3 tools/sine_table.py --build build/solutions --out "$LOG/sine" ${SINE_ARGS:-} > "$LOG/sine.txt" 2>&1 ||
      status=1
    tail -n 12 "$LOG/sine.txt" | tee -a "$LOG/summary.txt"
    cp "$LOG/sine/sine_table.md" "$LOG/sine/sine_table.png" "$LOG/" 2>/dev/null || true  # beside the logs
    ;;
  two_gpus)
    note "lesson 13: the tests with every GPU here ($(nvidia-smi -L | wc -l) GPUs; two-rank tests need two)"
    # Lesson 13's tests, and the later lessons' runs on two GPUs (15's batch norm synchronized over
    # them, ResNets and train_sine on two GPUs).
    ctest --test-dir build/solutions -R "^13|15-synced|15-train_deeper_two|15-train_deeper_synced|16-train_sine_two" \
      --output-on-failure > "$LOG/ctest_13.txt" 2>&1 || status=1
    grep -E "tests passed|Failed|Skipped" "$LOG/ctest_13.txt" | tee -a "$LOG/summary.txt"
    # One program at a time: nothing else shares the GPUs while the sanitizers or the timings run.
    for tool in memcheck racecheck; do
      # test_15_synced_batch_norm under racecheck did not finish in 120 s on two H100s (its first
      # collective); its kernels get racecheck through its _one_gpu twin in the sanitize stage.
      for exe in test_13_two_gpus test_13_data_parallel $([ $tool = memcheck ] && echo test_15_synced_batch_norm); do
        timeout 300 compute-sanitizer --tool $tool --report-api-errors no --error-exitcode 99 --print-limit 20 \
          "build/solutions/bin/$exe" > "$LOG/san_${tool}_$exe.txt" 2>&1
        code=$?
        [ $code -eq 0 ] || status=1
        [ $code -eq 124 ] && echo "$tool $exe: did not finish in 300 s" >> "$LOG/san_${tool}_$exe.txt"
        echo "$tool $exe: $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY|did not finish' "$LOG/san_${tool}_$exe.txt" | head -1)" |
          tee -a "$LOG/summary.txt"
      done
    done
    PARALLEL=build/solutions/bin/train_parallel
    for args in "--gpus 1" "--gpus 2" "--gpus 2 --overlap off" "--gpus 2 --graph off" "--gpus 2 --batch 64" \
                "--gpus 1 --batch 256" "--gpus 1 --network layers --model mnist_cnn" \
                "--gpus 2 --network layers --model mnist_cnn"; do
      note "lesson 13: train_parallel $args"
      # shellcheck disable=SC2086
      "$PARALLEL" $args --out "$LOG/parallel" > "$LOG/train_parallel.txt" 2>&1 || status=1
      grep -v '\] *[0-9]*% ' "$LOG/train_parallel.txt" | grep -E "^model|^epoch 5|^summary|error" | tee -a "$LOG/summary.txt"
    done
    ;;
  scaling)
    for link in ${SCALING_LINKS:-nvlink no_p2p}; do
      note "lesson 13: the scaling study, $link"
      p2p=0; [ $link = no_p2p ] && p2p=1
      NCCL_P2P_DISABLE=$p2p timeout 580 build/solutions/bin/lesson13_data_parallel --out "$LOG/scaling_$link" \
        > "$LOG/scaling_$link.txt" 2>&1 || status=1
      # Every table from the all-reduce on (13.4's fit and predictions included), without the progress lines.
      sed -n '/^## NCCL all-reduce/,$p' "$LOG/scaling_$link.txt" | grep -v '^  [a-z_0-9]* *batch' | tee -a "$LOG/summary.txt"
      cp "$LOG/scaling_$link/scaling.png" "$LOG/scaling_$link.png" 2>/dev/null || true  # comes back beside the logs
    done
    ;;
  ab)
    note "A/B: the tree in \$AB_OLD (a folder or a .tar.gz) against this one, runs alternated (tools/ab_runs.sh)"
    tools/ab_runs.sh "${AB_OLD:-}" "${AB_ROUNDS:-2}" 2>&1 | tee "$LOG/ab.txt" | tee -a "$LOG/summary.txt" > /dev/null
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    ;;
  measure)
    note "each lesson's measured block: one run of its measuring program (tools/measure.py)"
    python3 tools/measure.py run --out "$LOG/measured" --lessons "${MEASURE_LESSONS:-03-10}" \
      ${COURSE_COMMIT:+--commit "$COURSE_COMMIT"} 2>&1 | tee -a "$LOG/summary.txt"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    ;;
  *) echo "unknown stage '$stage' (build test sanitize stubs bench train beyond speedrun race sine two_gpus scaling measure ab)"; exit 2 ;;
  esac
done
note "gpu_check finished, status $status"
# The device tool brings back few files: pack the detailed logs into one.
( cd "$LOG" && tar czf logs.tgz --exclude=summary.txt --exclude=logs.tgz -- * 2>/dev/null &&
  find . -mindepth 1 -maxdepth 1 ! -name summary.txt ! -name logs.tgz ! -name '*.md' ! -name 'scaling_*.png' ! -name sine_table.png -exec rm -rf {} + )
exit $status
