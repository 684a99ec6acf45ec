#!/usr/bin/env python3
"""How much a learner reads against how much they write, lesson by lesson.

  given    code lines in lessons/NN_*/ outside exercises/ (.cpp .hpp .cu .cuh .h .py, CMakeLists.txt),
           blank lines and comment-only lines left out
  written  lines of each solutions/NN_*/exercises/ file that its stub in lessons/NN_*/exercises/ does
           not have (a line-by-line difference, blank and comment-only lines left out): what the
           learner writes
  ratio    given / written

usage: tools/given_ratio.py [--root DIR] [--markdown] [--max R --lessons 08-14]
  --max R      exit 1 when a lesson of --lessons has a ratio above R (one line naming each)
  --lessons    NN-MM ranges or NN, separated by commas (08-11,13-14)
"""
import argparse
import difflib
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tool_io  # noqa: E402

CODE = {".cpp", ".hpp", ".cu", ".cuh", ".h", ".py"}


# Every lesson's CMakeLists.txt opens with the same guard: CMake run on the lesson folder alone is
# told where to run it (cmake/RunFromRoot.cmake). It is the build's, the same in every lesson, and
# teaches nothing: it is not counted as the lesson's.
FOLDER_GUARD = "if(CMAKE_SOURCE_DIR STREQUAL CMAKE_CURRENT_SOURCE_DIR)"


def code_lines(path):
    """The file's lines that hold code: not blank, not only a comment."""
    lines = []
    in_block = False
    in_guard = False
    for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
        line = raw.strip()
        if path.name == "CMakeLists.txt" and (in_guard or line.startswith(FOLDER_GUARD)):
            in_guard = line != "endif()"
            continue
        if in_block:
            if "*/" in line:
                in_block = False
                line = line.split("*/", 1)[1].strip()
            else:
                continue
        if line.startswith("/*"):
            in_block = "*/" not in line
            continue
        if not line or line.startswith("//") or line.startswith("#") and path.suffix in (".py", ".txt"):
            continue
        lines.append(line)
    return lines


def lesson_table(root):
    rows = []
    for folder in sorted((root / "lessons").iterdir()):
        m = re.match(r"^(\d\d)_", folder.name)
        if not m or not folder.is_dir():
            continue
        given = 0
        for path in folder.rglob("*"):
            if not path.is_file() or "exercises" in path.relative_to(folder).parts:
                continue
            if path.suffix in CODE or path.name == "CMakeLists.txt":
                given += len(code_lines(path))
        written = 0
        solutions = root / "solutions" / folder.name / "exercises"
        if solutions.is_dir():
            for solution in sorted(solutions.rglob("*")):
                if not solution.is_file() or solution.suffix not in CODE:
                    continue
                stub = folder / "exercises" / solution.relative_to(solutions)
                before = code_lines(stub) if stub.is_file() else []
                after = code_lines(solution)
                for op, _, _, j1, j2 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
                    if op in ("replace", "insert"):
                        written += j2 - j1
        rows.append((m.group(1), folder.name, given, written))
    return rows


def main():
    ap = tool_io.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=pathlib.Path(__file__).resolve().parent.parent, type=pathlib.Path)
    ap.add_argument("--markdown", action="store_true", help="a markdown table")
    ap.add_argument("--max", type=tool_io.number(float, lambda v: v > 0, "a positive number"), help="fail when a lesson of --lessons reads more than this per line written")
    ap.add_argument("--lessons", default="08-14", help="the lessons --max holds to (NN-MM or NN, comma-separated)")
    args = ap.parse_args()
    held = set(tool_io.lesson_numbers(args.lessons))  # the lessons --max holds to
    if not (args.root / "lessons").is_dir():
        tool_io.fail(f"--root {tool_io.shown(args.root)}: has no lessons/ folder", tool_io.EXIT_USAGE)
    rows = lesson_table(args.root)
    if args.markdown:
        print("| lesson | given code lines | lines you write | given / written |")
        print("|---|---:|---:|---:|")
    for number, name, given, written in rows:
        ratio = f"{given / written:.1f}" if written else "-"
        print(f"| {name} | {given} | {written} | {ratio} |" if args.markdown
              else f"{name:22s} given {given:6d}  written {written:5d}  ratio {ratio}")
    if args.max is None:
        return 0
    over = [(name, given / written) for number, name, given, written in rows
            if written and int(number) in held and given / written > args.max]
    for name, ratio in over:
        print(f"{name}: {ratio:.1f} given lines per line written, above {args.max:g}")
    return 1 if over else 0


if __name__ == "__main__":
    tool_io.run_tool(main)
