#!/usr/bin/env bash
# Fuzzes every parser of outside input with libFuzzer under ASan + UBSan (docs/fuzzing.md):
# IDX files (fuzz_idx), .npy files (fuzz_npy), the command line (fuzz_cli), lesson 11's
# scaling-study CSV (fuzz_scaling_csv), CIFAR-10's batch files (fuzz_cifar) and lesson 13's
# all-reduce sweep (fuzz_allreduce_csv) and scaling study (fuzz_parallel_scaling_csv), and the
# layer-list parser: --model text, @file and model names (fuzz_model_text). Then the Python tools'
# .npy and IDX readers (tools/tool_io.py) on random mutations of good files, in a Python loop
# (tests/badinput/tool_cases.py --fuzz).
#
#   tools/fuzz.sh quick            configure + build the "fuzz" presets, then run each target for
#                                  20000 executions over its generated seed corpus (what CI runs)
#   tools/fuzz.sh campaign [runs]  the same, each target for `runs` executions (default 1000000),
#                                  continuing from the corpus earlier campaigns found
#
# Prints one line per target (executions, coverage, crashes, leaks, timeouts) and exits 1 when
# any target found something; the input that did it is in build/fuzz/artifacts/.
set -euo pipefail

usage() { echo "usage: tools/fuzz.sh quick | campaign [runs]" >&2; exit 2; }
mode=${1:-}
case "$mode" in
  quick) runs=20000; [[ $# -le 1 ]] || usage ;;
  campaign) runs=${2:-1000000}; [[ $# -le 2 && "$runs" =~ ^[1-9][0-9]*$ ]] || usage ;;
  *) usage ;;
esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=build/fuzz
mkdir -p "$build/logs"

# Build: one line on success, the tool's own output when something fails.
if ! cmake --preset fuzz >"$build/logs/configure.log" 2>&1; then
  cat "$build/logs/configure.log"
  echo "error: configuring the fuzz preset failed (clang++ and libFuzzer: apt-get install clang)" >&2
  exit 1
fi
if ! nice cmake --build --preset fuzz >"$build/logs/build.log" 2>&1; then
  cat "$build/logs/build.log"
  if grep -q "unknown target 'fuzz_" "$build/logs/build.log"; then
    echo "error: the fuzz targets are not in the build: the top-level CMakeLists.txt needs" \
         "'if(COURSE_FUZZ) add_subdirectory(tests/fuzz) endif()'" >&2
  fi
  exit 1
fi
echo "built $build/bin/fuzz_{idx,npy,cli,scaling_csv,cifar,allreduce_csv,parallel_scaling_csv,model_text}; seed corpus in $build/fuzz_corpus"

# A finding stops a target at once (every sanitizer report aborts): counts are 0 or 1 each.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
artifacts=$build/artifacts
mkdir -p "$artifacts"
failed=0
printf '%-26s %11s %6s %6s %8s %6s %9s %8s %8s\n' target executions cov ft crashes leaks timeouts exec/s seconds
for target in idx npy cli scaling_csv cifar allreduce_csv parallel_scaling_csv model_text; do
  corpus=$build/fuzz_corpus/$target
  if [[ $mode == quick ]]; then
    work=$build/work-quick/$target
    rm -rf "$work"
    seed_flag=-seed=1  # the same executions on every CI run
  else
    work=$build/work/$target  # kept: the next campaign starts from what this one found
    seed_flag=
  fi
  mkdir -p "$work"
  dict=()
  [[ -f tests/fuzz/$target.dict ]] && dict=(-dict="tests/fuzz/$target.dict")
  # A CIFAR-10 record alone is 3073 bytes: room for four of them and a limit byte.
  max_len=4096
  [[ $target == cifar ]] && max_len=12300
  log=$build/logs/fuzz_$target-$mode.log
  start=$SECONDS
  rc=0
  "$build/bin/fuzz_$target" -runs="$runs" $seed_flag "${dict[@]}" -timeout=10 -malloc_limit_mb=256 \
      -rss_limit_mb=2048 -max_len="$max_len" -close_fd_mask=1 -print_final_stats=1 \
      -artifact_prefix="$artifacts/fuzz_$target-" "$work" "$corpus" >"$log" 2>&1 || rc=$?
  seconds=$((SECONDS - start))
  # The figures from libFuzzer's log (-print_final_stats=1 and its last status line).
  last() { { grep -o "$1" "$log" || true; } | tail -1 | grep -o '[0-9]*$' || true; }
  execs=$(last 'stat::number_of_executed_units: *[0-9]*')
  [[ -n $execs ]] || execs=$(last '^#[0-9]*')
  rate=$(last 'stat::average_exec_per_sec: *[0-9]*')
  cov=$(last 'cov: [0-9]*')
  ft=$(last 'ft: [0-9]*')
  leaks=0 timeouts=0 crashes=0
  if grep -q 'ERROR: LeakSanitizer' "$log"; then leaks=1
  elif grep -q 'ERROR: libFuzzer: timeout' "$log"; then timeouts=1
  elif [[ $rc -ne 0 ]]; then crashes=1  # a sanitizer report, a failed check, an uncaught exception, out of memory
  fi
  printf '%-26s %11s %6s %6s %8s %6s %9s %8s %8s\n' "fuzz_$target" "${execs:-?}" "${cov:-?}" "${ft:-?}" \
      "$crashes" "$leaks" "$timeouts" "${rate:-?}" "$seconds"
  if [[ $rc -ne 0 ]]; then
    failed=1
    { grep -E 'ERROR:|SUMMARY:|fuzz check failed|runtime error|Test unit written to' "$log" || true; } |
        head -8 | sed 's/^/    /'
    echo "    full log: $log"
  fi
done
# The Python tools' readers: each mutation refused in one line or read as it declares (quick: 5000 of
# each kind, the same ones every run; campaign: a tenth of the runs, a new seed each time).
py_runs=5000 py_seed=1
[[ $mode == campaign ]] && py_runs=$((runs / 10)) py_seed=$RANDOM
start=$SECONDS
log=$build/logs/fuzz_tool_io-$mode.log
if python3 tests/badinput/tool_cases.py --fuzz "$py_runs" --seed "$py_seed" >"$log" 2>&1; then
  echo "$(tail -1 "$log") ($((SECONDS - start)) s)"
else
  failed=1
  head -12 "$log" | sed 's/^/    /'
  echo "    full log: $log (rerun: python3 tests/badinput/tool_cases.py --fuzz $py_runs --seed $py_seed)"
fi
if [[ $failed -ne 0 ]]; then
  echo "error: fuzzing found a problem; reproduce it with build/fuzz/bin/fuzz_<target> <file in $artifacts>" \
       "(a Python finding: its log above)" >&2
  exit 1
fi
echo "fuzz $mode: $runs executions per target, no crash, leak or timeout"
