#!/usr/bin/env python3
"""Which steps of each lesson run without a GPU: the table in lessons/00_setup/README.md.

Made from a configured build's tests (their CTest labels `cpu` and `gpu`), between

    <!-- without a GPU: begin -->
    <!-- without a GPU: end -->

  python3 tools/lesson_guide.py --build-dir build/solutions           write the table
  python3 tools/lesson_guide.py --build-dir build/solutions --check   exit 1 when it differs

A step runs without a GPU when one of its tests is labelled `cpu` (some steps have a CPU test and
a GPU test: the CPU half runs anywhere).
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tool_io  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join("lessons", "00_setup", "README.md")
BEGIN, END = "<!-- without a GPU: begin -->", "<!-- without a GPU: end -->"
STEP_TEST = re.compile(r"Test +#\d+: (\d\d)\.(\d+)-")


def steps_labelled(build_dir, label):
    proc = subprocess.run(["ctest", "--test-dir", build_dir, "-N", "-L", f"^{label}$"], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"error: ctest -N found no tests in {build_dir} (configure it first)")
    return {(m.group(1), int(m.group(2))) for m in STEP_TEST.finditer(proc.stdout)}


def table(build_dir):
    cpu, gpu = steps_labelled(build_dir, "cpu"), steps_labelled(build_dir, "gpu")
    lessons = sorted({lesson for lesson, _ in cpu | gpu})
    rows = ["| lesson | steps | steps that run without a GPU |", "|---|---:|---|"]
    for lesson in lessons:
        steps = sorted(k for n, k in cpu | gpu if n == lesson)
        on_cpu = sorted(k for n, k in cpu if n == lesson)
        half = sorted(k for k in on_cpu if (lesson, k) in gpu)  # a CPU test and a GPU test
        if not on_cpu:
            which = "none"
        elif len(on_cpu) == len(steps):
            which = "all" + (f" (the CPU half of {', '.join(f'{lesson}.{k}' for k in half)})" if half else "")
        else:
            which = ", ".join(f"{lesson}.{k}" + (" (its CPU half)" if k in half else "") for k in on_cpu)
        rows.append(f"| {lesson} | {len(steps)} | {which} |")
    return "\n".join(rows)


def main():
    ap = tool_io.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", required=True, help="a configured build of every lesson")
    ap.add_argument("--check", action="store_true", help="only compare; exit 1 when the README differs")
    ap.add_argument("--root", default=ROOT)
    args = ap.parse_args()

    path = os.path.join(args.root, README)
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    if text.count(BEGIN) != 1 or text.count(END) != 1:
        print(f"error: {README} needs one '{BEGIN}' and one '{END}' line", file=sys.stderr)
        return 1
    head, rest = text.split(BEGIN)
    _, tail = rest.split(END)
    wanted = f"{head}{BEGIN}\n{table(args.build_dir)}\n{END}{tail}"
    if args.check:
        if wanted != text:
            print(f"error: {README}'s table of steps without a GPU differs from the tests' labels; run "
                  f"python3 tools/lesson_guide.py --build-dir {args.build_dir}", file=sys.stderr)
            return 1
        print(f"{README}: the table of steps without a GPU matches the tests' labels")
        return 0
    tool_io.write_atomically(path, wanted.encode("utf-8"))
    print(f"wrote {README}")
    return 0


if __name__ == "__main__":
    tool_io.run_tool(main)
