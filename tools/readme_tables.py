#!/usr/bin/env python3
"""Copy each lesson's measured block from its record in docs/results/ into its README.

docs/results/NN_slug.md (the lesson folder's name) is lesson NN's record: the one place its measured
numbers are written. It holds exactly one generated block, one run's tables:

    <!-- measured NN: begin -->
    **NVIDIA H100 80GB HBM3, 2026-11-26, commit a2a6e19**: `lesson09_fast_training` ...
    ...
    <!-- measured NN: end -->

whose first line names the machine, the date and the commit. The lesson's README holds a copy
between

    <!-- measured: begin -->
    <!-- measured: end -->

Every lesson from 01 on has a record and a copy.

  python3 tools/readme_tables.py                write the copies
  python3 tools/readme_tables.py --check        exit 1, naming each lesson whose copy differs
  python3 tools/readme_tables.py --lesson 09    only lesson 09

A README is replaced all or nothing (a full disk leaves it as it was); a file that cannot be read
(not UTF-8, not a regular file) stops the tool with one "error:" line.
"""
import argparse
import os
import pathlib
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tool_io  # noqa: E402

README_BEGIN = "<!-- measured: begin -->"
README_END = "<!-- measured: end -->"
RESULTS_BLOCK = re.compile(
    r"^<!-- measured (\d\d): begin -->\n(.*?)^<!-- measured \1: end -->$", re.MULTILINE | re.DOTALL)
RUN_LINE = re.compile(r"^\*\*[^*\n]+, \d{4}-\d\d-\d\d, commit [0-9a-f]{7,40}\*\*")


def record_block(path, number):
    """(the lesson's one measured block, None) or (None, what is wrong with its record)."""
    shown = f"docs/results/{path.name}"
    if not path.exists():
        return None, f"{shown} is missing: every lesson from 01 on has a record with its measured block"
    blocks = RESULTS_BLOCK.findall(tool_io.read_text(path, "a markdown file"))
    if len(blocks) != 1 or blocks[0][0] != number:
        return None, (f"{shown} needs exactly one '<!-- measured {number}: begin -->' ... "
                      f"'<!-- measured {number}: end -->' block, has {len(blocks)} "
                      f"(of lessons {', '.join(b[0] for b in blocks) or 'none'})")
    body = blocks[0][1].strip("\n")
    first = body.splitlines()[0] if body else ""
    if not RUN_LINE.match(first):
        return None, (f"{shown}: the measured block's first line must name the run: "
                      f"'**<machine>, <YYYY-MM-DD>, commit <hash>**: <command>', not '{tool_io.shown(first, 80)}'")
    return body, None


def readme_with_block(readme_text, block):
    """The README with `block` between its markers, or None when it has no (single) marker pair."""
    if readme_text.count(README_BEGIN) != 1 or readme_text.count(README_END) != 1:
        return None
    head, rest = readme_text.split(README_BEGIN)
    _, tail = rest.split(README_END)
    return f"{head}{README_BEGIN}\n{block}\n{README_END}{tail}"


def main():
    parser = tool_io.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 when a README differs")
    parser.add_argument("--root", default=pathlib.Path(__file__).resolve().parent.parent, type=pathlib.Path,
                        help="repository root (default: this script's parent folder)")
    parser.add_argument("--lesson", help="only lesson NN")
    args = parser.parse_args()

    if args.lesson and not re.fullmatch(r"\d\d", args.lesson):
        tool_io.fail(f"--lesson takes two digits, got '{tool_io.shown(args.lesson, 40)}'", tool_io.EXIT_USAGE)
    if not (args.root / "lessons").is_dir():
        tool_io.fail(f"--root {tool_io.shown(args.root)}: has no lessons/ folder (give the course's root)")
    problems = []
    readmes = sorted((args.root / "lessons").glob("[0-9][0-9]_*/README.md"))
    records = args.root / "docs" / "results"
    known = {path.parent.name for path in readmes}
    for stray in sorted(records.glob("*.md")) if records.is_dir() else []:
        if stray.stem not in known and stray.name != "README.md":
            problems.append(f"docs/results/{stray.name} names no lesson folder (its name must be a lesson's)")
    checked = 0
    for path in readmes:
        number, name = path.parent.name[:2], path.parent.name
        if number == "00" or (args.lesson and number != args.lesson):
            continue
        checked += 1
        block, problem = record_block(records / f"{name}.md", number)
        if problem:
            problems.append(f"lesson {name}: {problem}")
            continue
        text = tool_io.read_text(path, "a README (markdown)")
        updated = readme_with_block(text, block)
        if updated is None:
            problems.append(f"lesson {name}: README needs exactly one '{README_BEGIN}' and one "
                            f"'{README_END}' line")
        elif updated != text:
            if args.check:
                problems.append(f"lesson {name}: README's measured block differs from docs/results/{name}.md "
                                "(run python3 tools/readme_tables.py)")
            else:
                tool_io.write_atomically(path, updated)
                print(f"updated {tool_io.shown(path.relative_to(args.root))}")

    if len(problems) > 1:  # the list first, then the one error line
        for p in problems:
            print(f"  {tool_io.shown(p, 400)}", file=sys.stderr)
        tool_io.fail(f"{len(problems)} problems, listed above; the first: {problems[0]}")
    if problems:
        tool_io.fail(problems[0])
    if args.check:
        print(f"all {checked} measured blocks match their records in docs/results/")
    return 0


if __name__ == "__main__":
    tool_io.run_tool(main)
