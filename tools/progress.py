#!/usr/bin/env python3
"""Your progress through the course: builds your own work (preset 'lessons'), runs
its tests and shows, per lesson and step, pass / fail / not started / skipped.

  not started  the step's TODO(NN.k) marker is still in your exercise file and its tests fail
  fail         you removed the marker (you are working on it) and a test still fails
  pass         every test of the step passes
  skipped      the tests need a GPU (or MNIST) that this machine lacks

Usage: tools/progress.py [--no-build] [--lesson NN]
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tool_io  # noqa: E402
from ctest_results import run_ctest, step_key, step_of, todo_steps  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build", "lessons")
SYMBOL = {"pass": "PASS", "fail": "FAIL", "not started": "....", "skipped": "skip"}


def main():
    ap = tool_io.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--no-build", action="store_true", help="do not rebuild first")
    ap.add_argument("--lesson", help="only this lesson number, e.g. 05")
    args = ap.parse_args()

    lessons = sorted(d for d in os.listdir(os.path.join(ROOT, "lessons")) if d[:2].isdigit())
    if args.lesson is not None:
        number = args.lesson.zfill(2) if args.lesson.isdigit() else args.lesson
        if number not in [d[:2] for d in lessons]:
            raise tool_io.ToolError(f"there is no lesson {tool_io.shown(args.lesson)!r}. Lessons: {', '.join(lessons)}", 2)
        args.lesson = number

    if not args.no_build:
        target = ["--target", f"lesson_{args.lesson}"] if args.lesson else []
        steps = ((["cmake", "--preset", "lessons"], "configuring your build failed: see CMake's messages above"),
                 (["cmake", "--build", "--preset", "lessons", *target], "fix the compile errors above first"))
        for cmd, what in steps:
            proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if proc.returncode != 0:
                print(proc.stdout[-4000:])
                raise tool_io.ToolError(f"'{' '.join(cmd)}' failed: {what}")
    label = ["-L", f"^{args.lesson}$"] if args.lesson else []
    results = run_ctest(BUILD, label)
    open_steps = todo_steps(ROOT)

    steps = {}
    for name, (status, _) in results.items():
        s = step_of(name)
        if s and (not args.lesson or s.startswith(args.lesson + ".")):
            steps.setdefault(s, []).append((name, status))

    current = None
    totals = {k: 0 for k in SYMBOL}
    for step in sorted(steps, key=step_key):
        lesson = step.split(".")[0]
        if lesson != current:
            current = lesson
            print(f"\nLesson {lesson}")
        tests = steps[step]
        statuses = {st for _, st in tests}
        if statuses == {"skip"}:
            state = "skipped"
        elif "fail" in statuses:
            state = "not started" if step in open_steps else "fail"
        elif "skip" in statuses:
            state = "skipped"
        else:
            state = "pass"
        totals[state] += 1
        names = ", ".join(n.split("-", 1)[1] for n, _ in tests)
        print(f"  [{SYMBOL[state]}] {step:6} {names}")
    print("\n" + ", ".join(f"{v} {k}" for k, v in totals.items()))
    if totals["skipped"]:
        print("(skipped steps need a CUDA GPU; they run on a machine that has one)")
    return 0


if __name__ == "__main__":
    tool_io.run_tool(main)
