#!/usr/bin/env python3
"""Course check: proves both halves of every exercise.

  * built from solutions/ (COURSE_IMPL=solutions) every test passes (GPU tests may
    be SKIPPED where there is no GPU: they are counted and named, never called passed);
  * built from lessons/ (COURSE_IMPL=lessons, the shipped stubs) every exercise step
    NN.k that lessons/ marks with TODO(NN.k) has at least one CTest test NN.k-* and
    every such test FAILS (a skipped one is reported as unchecked here);
  * cmake/ExerciseSteps.cmake (where each step is written) matches the stubs' markers.

Usage: tools/course_check.py [--solutions-build DIR] [--lessons-build DIR] [--no-build]
Exit 0 when both halves hold, 1 otherwise.
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tool_io  # noqa: E402
from ctest_results import run_ctest, step_key, step_of, todo_steps  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build(preset, build_dir, extra):
    print(f"== configure + build preset '{preset}' in {build_dir}", flush=True)
    cfg = ["cmake", "--preset", preset, "-B", build_dir, *extra]
    for cmd in (cfg, ["cmake", "--build", build_dir, "-j", str(os.cpu_count() or 2)]):
        proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              errors="replace")
        if proc.returncode != 0:
            print(proc.stdout[-6000:])
            tool_io.fail(f"course check: '{' '.join(cmd)}' failed (its output above)")


def main():
    ap = tool_io.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--solutions-build", default=os.path.join(ROOT, "build", "solutions"))
    ap.add_argument("--lessons-build", default=os.path.join(ROOT, "build", "lessons"))
    ap.add_argument("--no-build", action="store_true", help="use the build folders as they are")
    ap.add_argument("cmake_args", nargs="*", help="extra -D arguments for both configures")
    args = ap.parse_args()

    if not args.no_build:
        build("solutions", args.solutions_build, args.cmake_args)
        build("lessons", args.lessons_build, args.cmake_args)

    problems, unchecked = [], []

    # Where each step is written (the failing tests' hints) must match the shipped stubs' markers.
    steps_list = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "exercise_steps.py"), "--check"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(steps_list.stdout, end="", flush=True)
    if steps_list.returncode != 0:
        problems.append("cmake/ExerciseSteps.cmake does not match the stubs' TODO markers")

    print("== solutions: every test must pass", flush=True)
    sol = run_ctest(args.solutions_build)
    counts = {"pass": 0, "fail": 0, "skip": 0}
    for name, (status, output) in sorted(sol.items()):
        counts[status] += 1
        if status == "fail":
            problems.append(f"solutions: {name} FAILED\n{output[-1500:]}")
        elif status == "skip":
            unchecked.append(f"solutions: {name} skipped")
    print(f"   {counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped")

    print("== lessons (stubs): every step's tests must fail", flush=True)
    stubs = run_ctest(args.lessons_build)
    steps = todo_steps(ROOT)
    tests_of_step = {}
    for name in stubs:
        s = step_of(name)
        if s:
            tests_of_step.setdefault(s, []).append(name)
    failed_steps = 0
    for step in sorted(set(steps) | set(tests_of_step), key=step_key):
        names = sorted(tests_of_step.get(step, []))
        if step not in steps:
            problems.append(f"step {step}: has tests {names} but no TODO({step}) marker in lessons/")
            continue
        if not names:
            problems.append(f"step {step}: TODO({step}) in {steps[step]} but no CTest test named {step}-*")
            continue
        for name in names:
            status, output = stubs[name]
            if status == "pass":
                problems.append(f"step {step}: {name} PASSES on the stub (it must fail)")
            elif status == "skip":
                unchecked.append(f"lessons: {name} skipped (stub not checked here)")
            else:
                failed_steps += 1
    print(f"   {len(steps)} steps with TODO markers; {failed_steps} step tests failed on the stubs as they must")
    # The programs above the lessons are built from the solutions in the learner's build too: they work.
    for name, (status, output) in sorted(stubs.items()):
        if name.startswith(("train-", "chart_csv-")) and status == "fail":
            problems.append(f"lessons: {name} FAILED (the programs above the lessons must work in a learner's build)"
                            f"\n{output[-1500:]}")

    for u in unchecked:
        print(f"   note: {u}")
    if problems:
        print("\nCOURSE CHECK FAILED:")
        for p in problems:
            print(f" - {p}")
        return 1
    print(f"\ncourse check: OK ({counts['pass']} solution tests passed, {counts['skip']} skipped; "
          f"{failed_steps} stub step tests failed; {len(unchecked)} unchecked)")
    return 0


if __name__ == "__main__":
    tool_io.run_tool(main)
