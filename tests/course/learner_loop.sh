#!/usr/bin/env bash
# The learner's loop, checked end to end on a copy of this working tree (no build folders):
#   1. configure the learner build and check lesson 01: its steps fail on the stubs;
#   2. "write" step 01.1 (the solutions' dense.cpp and relu.cpp stand in for the learner's, their TODO markers gone, the
#      build configured again): check_01.1 passes;
#   3. put the stub back: check_01.1 fails again (the check target rebuilt; no stale binary), and
#      so does CTest run directly (it builds first);
#   4. a compile error: check_01.1 stops at the compiler and runs no test;
#   5. CMake from a lesson folder says where to run it and leaves nothing behind.
# Prints how long 1 and 2 took from the start (a newcomer's first red and first green).
# Usage: tests/course/learner_loop.sh [work folder]   (CMAKE_* launchers etc. come from the environment)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-$(mktemp -d)}
mkdir -p "$work"
copy="$work/course"
rm -rf "$copy"
mkdir -p "$copy"
(cd "$repo" && git ls-files -co --exclude-standard -z | xargs -0 tar -cf - --no-recursion) | tar -xf - -C "$copy"
cd "$copy"

say() { printf '\n[learner loop] %s\n' "$*"; }
fail() { printf '\n[learner loop] FAILED: %s\n' "$*"; exit 1; }
summary_ok() { grep -qE '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$1"; }
exercise=lessons/01_host_layers/exercises/dense.cpp
cp "$exercise" "$work/dense_stub.cpp"

start=$(date +%s)
say "1. cmake --preset lessons && cmake --build --preset lessons --target check_01 (stubs: must fail)"
cmake --preset lessons >"$work/configure.log" 2>&1 || { tail -n 20 "$work/configure.log"; fail "configure"; }
if cmake --build --preset lessons --target check_01 >"$work/step1.log" 2>&1; then
  fail "check_01 passed on the stubs"
fi
first_red=$(($(date +%s) - start))
summary_ok "$work/step1.log" || fail "check_01 printed no 'N passed, N failed, N skipped' line"
grep -q 'TODO(01.1): dense_forward is not written yet' "$work/step1.log" || fail "no TODO(01.1) message"
grep -q "step 01.1 is not right yet: edit lessons/01_host_layers/exercises/dense.cpp" "$work/step1.log" ||
  fail "the failure does not name the exercise file"
grep -E '^[0-9]+ passed, [0-9]+ failed' "$work/step1.log"
say "lesson 01's failing steps after ${first_red} s"

say "2a. a wrong dx, the TODO markers deleted and the build configured again: check_01.1 names the output,"
say "    its worst element, the tolerance, and still the file and functions to edit"
sed 's/dy\[b \* out + o\] \* W\[o \* in + i\];/dy[b * out + o] * W[o * in];/' solutions/01_host_layers/exercises/dense.cpp >"$exercise"
cp solutions/01_host_layers/exercises/relu.cpp lessons/01_host_layers/exercises/relu.cpp  # the step's ReLU half, written
grep -q 'W\[o \* in\];' "$exercise" || fail "could not plant the dx bug (the solution's text changed)"
! grep -q 'TODO(01' "$exercise" || fail "the written step still carries a TODO marker"
cmake --preset lessons >"$work/configure2.log" 2>&1 || { tail -n 20 "$work/configure2.log"; fail "configure after deleting the markers"; }
if cmake --build --preset lessons --target check_01.1 >"$work/step2a.log" 2>&1; then
  fail "check_01.1 passed with a wrong dx"
fi
grep -qE '^  dx: [0-9]+ of [0-9]+ elements outside \|got - expected\| <= ' "$work/step2a.log" ||
  fail "the failure does not say that dx was wrong, with its tolerance"
grep -qE 'worst at dx\[b=[0-9]+, i=[0-9]+\]' "$work/step2a.log" || fail "the failure does not name dx's worst element"
grep -q "step 01.1 is not right yet: edit lessons/01_host_layers/exercises/dense.cpp (dense_forward, dense_backward)" \
  "$work/step2a.log" || fail "the failure does not name the file and functions to edit"
grep -E '^  dx: ' "$work/step2a.log" | head -n 1

say "2. write step 01.1, then check_01.1 (must pass)"
cp solutions/01_host_layers/exercises/dense.cpp "$exercise"
cmake --build --preset lessons --target check_01.1 >"$work/step2.log" 2>&1 || { tail -n 30 "$work/step2.log"; fail "check_01.1 failed with the step written"; }
first_green=$(($(date +%s) - start))
grep -qx '[0-9]* passed, 0 failed, 0 skipped' "$work/step2.log" || fail "check_01.1 summary is not all passed"
say "step 01.1 green after ${first_green} s"

say "3. put the stub back: check_01.1 must fail again (rebuilt, not a stale binary)"
cp "$work/dense_stub.cpp" "$exercise"
if cmake --build --preset lessons --target check_01.1 >"$work/step3.log" 2>&1; then
  fail "check_01.1 still passes after the exercise was reverted: a stale binary ran"
fi
grep -q 'TODO(01.1)' "$work/step3.log" || fail "the reverted stub's TODO(01.1) message is missing"

say "3b. CTest run directly builds first: ctest --preset lessons -R '^01.1' after an edit runs the new code"
cp solutions/01_host_layers/exercises/dense.cpp "$exercise"
ctest --preset lessons -R '^01\.1-' >"$work/step3b.log" 2>&1 || { tail -n 30 "$work/step3b.log"; fail "ctest -R 01.1 failed with the step written"; }
cp "$work/dense_stub.cpp" "$exercise"
if ctest --preset lessons -R '^01\.1-' >"$work/step3c.log" 2>&1; then
  fail "ctest -R 01.1 passed after the exercise was reverted: it ran an old binary"
fi
grep -q 'TODO(01.1)' "$work/step3c.log" || fail "ctest after the revert does not show the stub's TODO(01.1) message"

say "4. a compile error: check_01.1 must stop before any test runs"
printf '\nthis line does not compile\n' >>"$exercise"
if cmake --build --preset lessons --target check_01.1 >"$work/step4.log" 2>&1; then
  fail "check_01.1 passed with a compile error"
fi
grep -q 'dense.cpp' "$work/step4.log" || fail "the compile error does not name dense.cpp"
if grep -qE 'Test #|tests passed|TODO\(01.1\)' "$work/step4.log"; then
  fail "tests ran after a compile error (they ran an old binary)"
fi
cp "$work/dense_stub.cpp" "$exercise"

say "5. the wrong folder, an unknown lesson: each says where to go"
if (cd lessons/01_host_layers && cmake --preset lessons) >"$work/step5.log" 2>&1; then
  fail "configuring from a lesson folder succeeded"
fi
grep -q "run CMake from the repository root" "$work/step5.log" || fail "configure from a lesson folder does not say where to run it"
if grep -qE "CMAKE_MAKE_PROGRAM|COMPILER not set" "$work/step5.log"; then
  fail "configure from a lesson folder buries its hint under CMake's own errors"
fi
[[ ! -e build/configured-from-a-lesson-folder ]] || fail "configure from a lesson folder left a build folder in the tree"
if (cd lessons/01_host_layers && cmake .) >"$work/step5a.log" 2>&1; then
  fail "cmake . in a lesson folder succeeded"
fi
grep -q "run CMake from the repository root" "$work/step5a.log" || fail "cmake . in a lesson folder does not say where to run it"
if grep -qE "No project|cmake_minimum_required|compiler identification" "$work/step5a.log"; then
  fail "cmake . in a lesson folder prints CMake's own complaints"
fi
sleep 2  # the folder's leftovers go once CMake has exited
left=$(cd lessons/01_host_layers && ls -A | grep -E '^(CMakeCache.txt|CMakeFiles|cmake_install.cmake|Makefile|build.ninja)$' || true)
[[ -z "$left" ]] || fail "cmake . in a lesson folder left $left behind"
[[ ! -e "/tmp/cnn-course-configured-from-a-lesson-folder$copy" ]] || fail "configure from a lesson folder left a folder under /tmp"
if cmake --build --preset lessons --target check_42 >"$work/step5b.log" 2>&1; then fail "check_42 succeeded"; fi
grep -q "there is no lesson 42 in this build. Lessons: 00_setup, 01_host_layers" "$work/step5b.log" ||
  fail "check_42 does not list the lessons"
if python3 tools/progress.py --lesson 42 --no-build >"$work/step5c.log" 2>&1; then fail "progress.py --lesson 42 succeeded"; fi
grep -q "there is no lesson '42'. Lessons: 00_setup" "$work/step5c.log" || fail "progress.py does not list the lessons"

say "6. your build writes to out/lessons, never over the solutions' out/solutions"
build/lessons/bin/lesson01_host_layers --help >"$work/step6.log" 2>&1 || fail "lesson01_host_layers --help failed"
grep -q "$copy/out/lessons/lesson01" "$work/step6.log" || fail "the learner build's default --out is not out/lessons/lesson01"

say "OK: first red after ${first_red} s, first green after ${first_green} s"
