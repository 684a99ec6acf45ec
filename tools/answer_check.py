#!/usr/bin/env python3
"""No answers in given text: a solution's lines must not already stand in the lesson's README (its
hints) or given code.

For each file solutions/NN_*/exercises/F, the lines the learner writes (the solution's code lines
that its stub lessons/NN_*/exercises/F does not have, at least 20 characters once spaces are
squeezed, not comments) are looked up, verbatim after squeezing spaces, in the lesson's README and
in every file of lessons/NN_*/ outside exercises/. A hint never holds a solution's line: one such
line in the README fails, unless the lesson's given code holds it too (a declaration the learner
copies from a header is not an answer). A solution file with more than half of its lines standing
in given code fails too. Each failure lists the lines and where they stand.

usage: tools/answer_check.py [--root DIR] [--lesson NN] [--verbose]
       tools/answer_check.py --self-test     a small tree whose README holds a solution's lines
                                             must fail, and pass once they are gone
Exit 0: no solution file given away; 1: some are (one block each); 2: bad arguments.
"""
import argparse
import difflib
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tool_io  # noqa: E402

CODE = {".cpp", ".hpp", ".cu", ".cuh", ".h", ".py"}
MIN_CHARS = 20


def squeeze(line):
    return re.sub(r"\s+", " ", line.strip())


def code_lines(text):
    out = []
    for raw in text.splitlines():
        line = squeeze(raw)
        if not line or line.startswith("//") or line.startswith("/*") or line.startswith("*"):
            continue
        out.append(line)
    return out


def written_lines(stub, solution):
    before = code_lines(stub.read_text(encoding="utf-8", errors="replace")) if stub.is_file() else []
    after = code_lines(solution.read_text(encoding="utf-8", errors="replace"))
    lines = []
    for op, _, _, j1, j2 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        if op in ("replace", "insert"):
            lines += [line for line in after[j1:j2] if len(line) >= MIN_CHARS]
    return lines


def given_texts(folder):
    """{relative path: squeezed lines} of the README and the lesson's files outside exercises/."""
    texts = {}
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or "exercises" in path.relative_to(folder).parts:
            continue
        if path.suffix in CODE or path.name in ("README.md", "CMakeLists.txt"):
            texts[str(path.relative_to(folder.parent.parent))] = {
                squeeze(line) for line in path.read_text(encoding="utf-8", errors="replace").splitlines()}
    return texts


def check(root, only=None):
    failures = []
    for folder in sorted((root / "lessons").iterdir()):
        m = re.match(r"^(\d\d)_", folder.name)
        if not m or not folder.is_dir() or (only and m.group(1) != only):
            continue
        solutions = root / "solutions" / folder.name / "exercises"
        if not solutions.is_dir():
            continue
        texts = given_texts(folder)
        for solution in sorted(solutions.rglob("*")):
            if not solution.is_file() or solution.suffix not in CODE:
                continue
            lines = written_lines(folder / "exercises" / solution.relative_to(solutions), solution)
            if not lines:
                continue
            found = [(line, [p for p, t in texts.items() if line in t]) for line in lines]
            found = [(line, where) for line, where in found if where]
            failures.append((solution.relative_to(root), len(lines), found))
    return failures


def in_readme_only(where):
    return any(p.endswith("README.md") for p in where) and all(p.endswith("README.md") for p in where)


def given_away(failure):
    """A README (hint) holds one of the written lines, or given code more than half of them."""
    _, written, found = failure
    return any(in_readme_only(where) for _, where in found) or len(found) / written > 0.5


def self_test():
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        answer = ["  const float value = alpha * left[i] + right[i];", "  result[i] = value > 0.0f ? value : 0.0f;"]
        files = {
            "lessons/01_a/exercises/step.cpp": "void step() {\n  // TODO(01.1): the sum, then the ReLU\n}\n",
            "solutions/01_a/exercises/step.cpp": "void step() {\n" + "\n".join(answer) + "\n}\n",
            "lessons/01_a/README.md": "# a\n```\n" + "\n".join(answer) + "\n```\n",
        }
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
        failing = [f for f in check(root) if given_away(f)]
        if len(failing) != 1:
            print("self-test: a README holding a solution's lines was not reported:", check(root))
            return 1
        (root / "lessons/01_a/README.md").write_text("# a\n```\n" + answer[1] + "\n```\n")
        if len([f for f in check(root) if given_away(f)]) != 1:
            print("self-test: a hint holding one of a solution's lines was not reported:", check(root))
            return 1
        (root / "lessons/01_a/README.md").write_text("# a\nAdd the two inputs, scaled, then apply the ReLU.\n")
        if any(found for _, _, found in check(root)):
            print("self-test: a README without the solution's lines was reported:", check(root))
            return 1
    print("self-test: a README holding a solution's lines fails, one holding one of them fails, one without them passes")
    return 0


def main():
    ap = tool_io.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=pathlib.Path(__file__).resolve().parent.parent, type=pathlib.Path)
    ap.add_argument("--lesson", help="only lesson NN")
    ap.add_argument("--verbose", action="store_true", help="also list the files below the line")
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    if args.lesson and not re.fullmatch(r"[0-9][0-9]", args.lesson):
        tool_io.fail(f"--lesson takes two digits, got '{tool_io.shown(args.lesson, 40)}'", tool_io.EXIT_USAGE)
    if not (args.root / "lessons").is_dir() or not (args.root / "solutions").is_dir():
        tool_io.fail(f"--root {tool_io.shown(args.root)}: has no lessons/ and solutions/ folders", tool_io.EXIT_USAGE)
    bad = 0
    for path, written, found in check(args.root, args.lesson):
        share = len(found) / written
        failed = given_away((path, written, found))
        if failed or (args.verbose and found):
            bad += failed
            hint = sum(in_readme_only(where) for _, where in found)
            print(f"{path}: {len(found)} of its {written} written lines stand in given text ({100 * share:.0f} %)"
                  + (f", {hint} of them in the README's hints" if hint else "")
                  + ("" if failed else " (below the line)"))
            for line, where in found[:8]:
                print(f"    {line[:90]}    <- {', '.join(where[:2])}")
    print(f"answer check: {bad} solution file(s) given away" if bad else "answer check: no solution file given away")
    return 1 if bad else 0


if __name__ == "__main__":
    tool_io.run_tool(main)
