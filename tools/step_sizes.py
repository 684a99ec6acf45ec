#!/usr/bin/env python3
"""How much a learner writes in each step: one step, one idea, of a size one sitting can hold.

For every exercise file, the lines of solutions/NN_*/exercises/F that its stub lessons/NN_*/exercises/F
does not have (a line-by-line difference of the code lines: blank and comment-only lines left out,
as tools/given_ratio.py counts them) are the lines the learner writes. Each such line belongs to a
step by where it stands in the solution: inside a function a TODO(NN.k) marker of the stub names
(tools/exercise_steps.py reads which), that step; before it (a helper the solution adds), the step
of the next such function; after the last one, the last one's step. A file whose functions cannot
be found in the solution falls back to the stub's markers: the nearest one above the place.

usage: tools/step_sizes.py [--root DIR] [--markdown] [--lesson NN] [--min N --max N [--lessons 01-15]]
  --min/--max   exit 1 naming each step (of --lessons: NN-MM ranges or NN, comma-separated; default
                every lesson) that writes fewer than --min or more than --max lines
       tools/step_sizes.py --self-test   a small tree whose two steps must be counted apart
"""
import argparse
import difflib
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tool_io  # noqa: E402
from exercise_steps import definition_name, functions_of_file  # noqa: E402

CODE = {".cpp", ".hpp", ".cu", ".cuh", ".h"}
MARKER = re.compile(r"TODO\((\d\d\.\d+)\)")


def numbered_code_lines(text):
    """[(line number, squeezed code line)]: blank lines and comments left out."""
    out = []
    in_block = False
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if in_block:
            if "*/" not in line:
                continue
            in_block, line = False, line.split("*/", 1)[1].strip()
        if line.startswith("/*"):
            in_block = "*/" not in line
            continue
        if not line or line.startswith("//"):
            continue
        out.append((number, re.sub(r"\s+", " ", line)))
    return out


def function_spans(text, names):
    """{name: (first line, last line)} of each named function's definition in `text` (braces counted
    from its first line; the last definition of a name wins: a declaration has no body)."""
    lines = text.splitlines()
    spans = {}
    for start, line in enumerate(lines):
        name = definition_name(line)
        short = name.split("::")[-1] if name else None
        wanted = [n for n in names if n == name or n.split("::")[-1] == short]
        if not wanted:
            continue
        depth, opened = 0, False
        for end in range(start, len(lines)):
            code = lines[end].split("//")[0]
            depth += code.count("{") - code.count("}")
            opened = opened or "{" in code
            if opened and depth <= 0:
                for n in wanted:
                    spans[n] = (start + 1, end + 1)
                break
            if not opened and code.rstrip().endswith(";"):
                break  # a declaration
    return spans


def file_steps(stub_text, solution_text):
    """{step: lines written} for one exercise file."""
    markers = [(number, m.group(1)) for number, line in enumerate(stub_text.splitlines(), 1)
               for m in MARKER.finditer(line)]
    if not markers:
        return {}
    before = numbered_code_lines(stub_text)
    after = numbered_code_lines(solution_text)
    written = []  # (solution line number, stub line where it goes)
    matcher = difflib.SequenceMatcher(None, [t for _, t in before], [t for _, t in after], autojunk=False)
    for op, i1, _, j1, j2 in matcher.get_opcodes():
        if op in ("replace", "insert"):
            where = before[i1][0] if i1 < len(before) else len(stub_text.splitlines()) + 1
            written += [(after[j][0], where) for j in range(j1, j2)]
    functions = functions_of_file(stub_text)
    spans = function_spans(solution_text, [n for names in functions.values() for n in names])
    intervals = sorted((spans[n][0], spans[n][1], step) for step, names in functions.items()
                       for n in names if n in spans)
    counts = {}
    for line, where in written:
        if intervals:
            inside = [step for first, last, step in intervals if first <= line <= last]
            later = [step for first, _, step in intervals if first > line]
            step = inside[0] if inside else later[0] if later else intervals[-1][2]
        else:
            above = [step for number, step in markers if number <= where]
            step = above[-1] if above else markers[0][1]
        counts[step] = counts.get(step, 0) + 1
    return counts


def step_table(root, only=None):
    """{step: lines written}, every step of every lesson's stubs (0 for a step with no line)."""
    steps = {}
    for folder in sorted((root / "lessons").iterdir()):
        m = re.match(r"^(\d\d)_", folder.name)
        if not m or not folder.is_dir() or (only and m.group(1) != only):
            continue
        stubs = folder / "exercises"
        if not stubs.is_dir():
            continue
        for stub in sorted(stubs.rglob("*")):
            if not stub.is_file() or stub.suffix not in CODE:
                continue
            stub_text = tool_io.read_text(stub, "an exercise file")
            for step in MARKER.findall(stub_text):
                steps.setdefault(step, 0)
            solution = root / "solutions" / folder.name / "exercises" / stub.relative_to(stubs)
            if not solution.is_file():
                continue
            for step, count in file_steps(stub_text, tool_io.read_text(solution, "a solution file")).items():
                steps[step] = steps.get(step, 0) + count
    return dict(sorted(steps.items(), key=lambda kv: tuple(int(p) for p in kv[0].split("."))))


def self_test():
    stub = ("#include <x>\n// TODO(01.1): the sum\nint sum(int a, int b) {\n  todo(\"01.1\");\n}\n\n"
            "// TODO(01.2): the product\nint product(int a, int b) {\n  todo(\"01.2\");\n}\n")
    solution = ("#include <x>\nstatic int twice(int a) { return a + a; }\nint sum(int a, int b) {\n"
                "  int s = a;\n  s += b;\n  return s;\n}\n\nint product(int a, int b) {\n  return a * b;\n}\n")
    counts = file_steps(stub, solution)
    if counts != {"01.1": 4, "01.2": 1}:
        print(f"self-test: expected 01.1: 4 lines (a helper above it and 3 in it), 01.2: 1; got {counts}")
        return 1
    print("self-test: two steps of one file counted apart, a helper above the first counted with it")
    return 0


def main():
    ap = tool_io.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=pathlib.Path(__file__).resolve().parent.parent, type=pathlib.Path)
    ap.add_argument("--markdown", action="store_true", help="a markdown table")
    ap.add_argument("--lesson", help="only lesson NN")
    positive = tool_io.number(int, lambda v: v >= 0, "a whole number >= 0")
    ap.add_argument("--min", type=positive, help="fail for a step that writes fewer lines")
    ap.add_argument("--max", type=positive, help="fail for a step that writes more lines")
    ap.add_argument("--lessons", help="the lessons --min and --max hold to (default: every lesson)")
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    if args.lesson and not re.fullmatch(r"\d\d", args.lesson):
        tool_io.fail(f"--lesson takes two digits, got '{tool_io.shown(args.lesson, 40)}'", tool_io.EXIT_USAGE)
    if not (args.root / "lessons").is_dir() or not (args.root / "solutions").is_dir():
        tool_io.fail(f"--root {tool_io.shown(args.root)}: has no lessons/ and solutions/ folders", tool_io.EXIT_USAGE)
    held = set(tool_io.lesson_numbers(args.lessons)) if args.lessons else None
    steps = step_table(args.root, args.lesson)
    if args.markdown:
        print("| step | lines you write |\n|---|---:|")
    for step, count in steps.items():
        print(f"| {step} | {count} |" if args.markdown else f"{step:6s} {count:5d}")
    if steps:
        sizes = sorted(steps.values())
        print(f"{len(steps)} steps: {sizes[0]} to {sizes[-1]} lines written, median {sizes[len(sizes) // 2]}")
    outside = [(s, c) for s, c in steps.items() if (held is None or int(s.split(".")[0]) in held)
               and ((args.min is not None and c < args.min) or (args.max is not None and c > args.max))]
    for step, count in outside:
        print(f"step {step}: {count} lines written, outside {args.min or 0} to {args.max or 'any'}")
    return 1 if outside else 0


if __name__ == "__main__":
    tool_io.run_tool(main)
