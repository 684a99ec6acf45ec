#!/usr/bin/env python3
"""Runs CTest in a build folder, then ends with the course's own summary:

    skipped (not run here, never counted as passed):
      05.1-conv_forward: these tests need a CUDA GPU; none is usable (...)
    failed:
      01.2-conv2d_forward: step 01.2 is not right yet: edit lessons/01_host_layers/exercises/conv2d_forward.cpp ...
    84 passed, 1 failed, 30 skipped

The check targets (check, check_NN, check_NN.k) call it after building what the tests
run, so a test never runs a stale binary. Exit status: 0 when nothing failed.

Usage: tools/run_tests.py --build-dir DIR [--lesson NN | --step NN.k] [-- extra ctest args]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tool_io  # noqa: E402
from ctest_results import run_ctest, summary_lines  # noqa: E402


def main():
    ap = tool_io.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", required=True)
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--lesson", help="only this lesson's tests (CTest label NN)")
    group.add_argument("--step", help="only this step's tests (CTest tests NN.k-*)")
    ap.add_argument("ctest_args", nargs="*", help="passed on to ctest (after --)")
    args = ap.parse_args()

    select = []
    if args.lesson:
        select = ["-L", f"^{args.lesson}$"]
    elif args.step:
        select = ["-R", "^" + args.step.replace(".", r"\.") + "-"]
    results = run_ctest(args.build_dir, ["--output-on-failure", *select, *args.ctest_args], quiet=False)
    if not results:
        what = f"lesson {args.lesson}" if args.lesson else f"step {args.step}" if args.step else "this build"
        raise tool_io.ToolError(f"no tests found for {what} in {tool_io.shown(args.build_dir)} "
                                "(is it a configured build folder?)")
    lines, counts = summary_lines(results)
    print("\n" + "\n".join(lines))
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    tool_io.run_tool(main)
