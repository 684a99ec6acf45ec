#!/usr/bin/env python3
"""Copy each lesson's measured numbers from docs/results.md into its README.

docs/results.md is the one place measured numbers are written. A lesson's part of it is marked

    <!-- measured NN: begin -->
    ...
    <!-- measured NN: end -->

(a lesson may have several such blocks; they are joined in order). The lesson's README holds a
copy between

    <!-- measured: begin -->
    <!-- measured: end -->

  python3 tools/readme_tables.py           write the copies
  python3 tools/readme_tables.py --check   exit 1, naming each lesson whose copy differs

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


def results_blocks(results_text):
    """{lesson number: the text of its blocks, joined by a blank line}."""
    blocks = {}
    for number, body in RESULTS_BLOCK.findall(results_text):
        blocks.setdefault(number, []).append(body.strip("\n"))
    return {number: "\n\n".join(parts) for number, parts in blocks.items()}


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
    args = parser.parse_args()

    results_path = args.root / "docs" / "results.md"
    blocks = results_blocks(tool_io.read_text(results_path, "a markdown file"))

    problems = []
    readmes = sorted((args.root / "lessons").glob("[0-9][0-9]_*/README.md"))
    known = {path.parent.name[:2] for path in readmes}
    for number in sorted(set(blocks) - known):
        problems.append(f"docs/results.md has a block for lesson {number}, which has no README")
    for path in readmes:
        number, name = path.parent.name[:2], path.parent.name
        text = tool_io.read_text(path, "a README (markdown)")
        has_markers = README_BEGIN in text or README_END in text
        if number not in blocks:
            if has_markers:
                problems.append(f"lesson {name}: README has measured markers but docs/results.md has no "
                                f"'<!-- measured {number}: begin -->' block")
            continue
        updated = readme_with_block(text, blocks[number])
        if updated is None:
            problems.append(f"lesson {name}: README needs exactly one '{README_BEGIN}' and one "
                            f"'{README_END}' line")
        elif updated != text:
            if args.check:
                problems.append(f"lesson {name}: README's measured block differs from docs/results.md "
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
        print(f"all {len(blocks)} measured blocks match docs/results.md")
    return 0


if __name__ == "__main__":
    tool_io.run_tool(main)
