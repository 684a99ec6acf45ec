#!/usr/bin/env python3
"""Every step's tests are there, on any machine: each step test of a build runs at least one test case.

A step's CTest test (NN.k-name) runs its program's Catch2 tag [NN.k]. This lists, without running
anything (no GPU and no data set needed: listing skips those checks), what each tag holds, and fails
(exit 1, one line per finding) when
  * a step test's tag names no test case of its program (a tag renamed in one place only), or
  * a program holds test cases tagged [NN.k] that no step test runs (a step its CTest list lacks).

usage: tools/step_tags.py --build-dir build/solutions      exit 0: every step runs its cases
       tools/step_tags.py --self-test                      a made-up listing of each kind of finding
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tool_io  # noqa: E402

STEP_NAME = re.compile(r"^(\d\d\.\d+)-")
STEP_TAG = re.compile(r"^\[(\d\d\.\d+)\]$")
TAG_LINE = re.compile(r"^\s*(\d+)\s+(\[[^\]]+\])\s*$")


def step_tests(build_dir):
    """{program: {step: CTest name}} of every step test of the build, and {program: tags} of the tags
    every CTest test runs (a step's GPU half may run as a case test of another program)."""
    out = subprocess.run(["ctest", "--test-dir", build_dir, "--show-only=json-v1"], capture_output=True, text=True)
    if out.returncode != 0:
        raise tool_io.ToolError(f"--build-dir {build_dir}: ctest cannot list its tests (configure it first)")
    steps, runs = collections.defaultdict(dict), collections.defaultdict(set)
    for test in json.loads(out.stdout).get("tests", []):
        name, command = test.get("name", ""), test.get("command") or []
        if len(command) < 2:
            continue
        tag = STEP_TAG.match(command[1])
        if tag:
            runs[command[0]].add(tag.group(1))
        m = STEP_NAME.match(name)
        if m and command[1] == f"[{m.group(1)}]":
            steps[command[0]][m.group(1)] = name
    if not steps:
        raise tool_io.ToolError(f"--build-dir {build_dir}: no step tests in this build")
    return steps, runs


def list_tags(program):
    """The program's --list-tags listing (Catch2 exits with the number of tags it listed)."""
    try:
        out = subprocess.run([program, "--list-tags"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise tool_io.ToolError(f"{program} --list-tags: {e} (is it built?)")
    if out.returncode < 0 or not re.search(r"^\d+ tags?$", out.stdout, re.MULTILINE):
        raise tool_io.ToolError(f"{program} --list-tags: no listing of tags (exit {out.returncode}; is it built?)")
    return out.stdout


def tag_counts(tags_text):
    """{step: test cases} of a --list-tags listing's step tags."""
    counts = {}
    for line in tags_text.splitlines():
        m = TAG_LINE.match(line)
        if m and STEP_TAG.match(m.group(2)):
            counts[STEP_TAG.match(m.group(2)).group(1)] = int(m.group(1))
    return counts


def findings(program, steps, runs, counts):
    """The lines to print for one program: `steps` {step: CTest name}, `runs` the step tags its CTest
    tests run, `counts` {step tag: cases}."""
    found = []
    for step, name in sorted(steps.items()):
        if counts.get(step, 0) == 0:
            found.append(f"{name}: {os.path.basename(program)} has no test case tagged [{step}]")
    for step in sorted(set(counts) - set(steps) - set(runs)):
        found.append(f"{os.path.basename(program)}: {counts[step]} test case(s) tagged [{step}], but no step "
                     f"test runs them (course_add_tests STEPS)")
    return found


def self_test():
    tags = "All available tags:\n   6  [01.1]\n   4  [01.2]\n   1  [shapes]\n3 tags\n"
    counts = tag_counts(tags)
    ok = counts == {"01.1": 6, "01.2": 4}
    ok &= findings("bin/t", {"01.1": "01.1-a", "01.2": "01.2-b"}, set(), counts) == []
    missing = findings("bin/t", {"01.1": "01.1-a", "01.2": "01.2-b", "01.3": "01.3-c"}, set(), counts)
    ok &= missing == ["01.3-c: t has no test case tagged [01.3]"]
    orphan = findings("bin/t", {"01.1": "01.1-a"}, set(), counts)
    ok &= len(orphan) == 1 and orphan[0].startswith("t: 4 test case(s) tagged [01.2]")
    ok &= findings("bin/t", {"01.1": "01.1-a"}, {"01.2"}, counts) == []  # a case test runs [01.2]
    print("step_tags self-test: " + ("ok" if ok else "FAILED"))
    return 0 if ok else 1


def main():
    ap = tool_io.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", help="a configured and built build folder")
    ap.add_argument("--self-test", action="store_true", help="check the checker on a made-up listing")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    if not args.build_dir:
        ap.error("give --build-dir DIR (or --self-test)")
    problems, steps_seen = [], 0
    steps_of, runs = step_tests(args.build_dir)
    for program, steps in sorted(steps_of.items()):
        counts = tag_counts(list_tags(program))
        problems += findings(program, steps, runs[program], counts)
        steps_seen += len(steps)
    for line in problems:
        print(line)
    if problems:
        return 1
    print(f"step tags: each of {steps_seen} step tests runs its test cases, and every step tag has its test")
    return 0


if __name__ == "__main__":
    tool_io.run_tool(main)
