#!/usr/bin/env python3
"""Where each exercise step is written: cmake/ExerciseSteps.cmake, made from the shipped stubs.

A failing step's test ends with the file and function to edit (course_step_hint in
cmake/CourseLesson.cmake). Those come from this list, made once from the TODO(NN.k) markers of
the shipped stubs, and never from the markers of a learner's copy: a learner removes a marker
when the step is written, and their build must not change with it.

  tools/exercise_steps.py --write   makes cmake/ExerciseSteps.cmake from lessons/*/exercises
  tools/exercise_steps.py --check   fails (naming the step) when the list and the markers differ
                                    (the course check runs it on the shipped tree)

A marker inside a body (indented) belongs to the function around it; one at column 0, in the
comment above a definition, to the next definition.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tool_io  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join("cmake", "ExerciseSteps.cmake")
SOURCE_SUFFIXES = (".cpp", ".cu", ".hpp", ".cuh", ".h")

# Three shapes of a definition's first line, and the two that name what their members belong to.
DEFINITIONS = [
    re.compile(r"^[A-Za-z_][^(]*[ *&]([A-Za-z_][A-Za-z0-9_:]*)\("),
    re.compile(r"^([A-Za-z_][A-Za-z0-9_:]*)\("),
    re.compile(r"^    ([A-Za-z_][A-Za-z0-9_]*_kernel)\("),  # a kernel's name under its attributes
    re.compile(r"^struct ([A-Za-z_][A-Za-z0-9_]*)"),  # markers in its members name the struct
]
MARKER = re.compile(r"TODO\((\d\d\.\d+)\)")


def definition_name(line):
    for i, pattern in enumerate(DEFINITIONS):
        if i == 1 and line.startswith("static_assert"):
            continue
        m = pattern.match(line)
        if m:
            return m.group(1)
    return None


def functions_of_file(text):
    """{step: [function names, in order]} for one exercise file."""
    text = re.sub(r"[][;]", " ", text)
    text = re.sub(r"__launch_bounds__ *\([^)]*\)", "", text)
    found = {}
    function, pending = None, set()
    for line in text.split("\n"):
        steps = MARKER.findall(line)
        if steps:
            for step in steps:
                names = found.setdefault(step, [])
                if line.startswith("//"):
                    pending.add(step)
                elif function and function not in names:
                    names.append(function)
            continue
        name = definition_name(line)
        if not name:
            continue
        function = name
        for step in pending:
            if function not in found[step]:
                found[step].append(function)
        pending = set()
    return found


def exercise_files(root):
    """Every file under lessons/NN_slug/exercises, as 'NN_slug/exercises/...' in a fixed order."""
    files = []
    lessons = os.path.join(root, "lessons")
    for lesson in sorted(os.listdir(lessons)):
        folder = os.path.join(lessons, lesson, "exercises")
        for dirpath, _, names in os.walk(folder):
            for n in sorted(names):
                if n.endswith(SOURCE_SUFFIXES):
                    files.append(os.path.relpath(os.path.join(dirpath, n), lessons))
    return sorted(files)


def step_places(root):
    """{step: ['NN_slug/exercises/f.cpp (fn1, fn2)', ...]} from the markers under lessons/."""
    places = {}
    for rel in exercise_files(root):
        with open(os.path.join(root, "lessons", rel), encoding="utf-8", errors="replace") as fh:
            found = functions_of_file(fh.read())
        for step, names in found.items():
            what = ", ".join(names) if names else f"see its TODO({step}) comment"
            places.setdefault(step, []).append(f"{rel} ({what})")
    return places


def step_key(step):
    major, minor = step.split(".")
    return int(major), int(minor)


def render(places):
    lines = ["# Where each exercise step is written: made by tools/exercise_steps.py --write from the",
             "# TODO(NN.k) markers of the shipped stubs (never from a learner's copy, whose markers go as",
             "# steps are written). cmake/CourseLesson.cmake's course_step_hint reads it.",
             "# Do not edit: run the tool again after changing a stub's markers."]
    for step in sorted(places, key=step_key):
        joined = ";".join(places[step])
        lines.append(f'set(COURSE_STEP_PLACES_{step} "{joined}")')
    return "\n".join(lines) + "\n"


def main():
    ap = tool_io.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help=f"write {OUT}")
    mode.add_argument("--check", action="store_true", help=f"fail when {OUT} and the markers differ")
    ap.add_argument("--root", default=ROOT)
    args = ap.parse_args()

    wanted = render(step_places(args.root))
    path = os.path.join(args.root, OUT)
    if args.write:
        tool_io.write_atomically(path, wanted.encode("utf-8"))
        print(f"wrote {OUT}")
        return 0
    try:
        with open(path, encoding="utf-8") as fh:
            have = fh.read()
    except OSError as e:
        print(f"error: {OUT}: {e.strerror}; run tools/exercise_steps.py --write", file=sys.stderr)
        return 1
    if have == wanted:
        print(f"{OUT}: every step's files and functions match the stubs' markers")
        return 0
    old = set(have.splitlines()) - set(wanted.splitlines())
    new = set(wanted.splitlines()) - set(have.splitlines())
    for line in sorted(old):
        print(f"  listed, no longer so in the stubs: {line}")
    for line in sorted(new):
        print(f"  in the stubs, not listed:          {line}")
    print(f"error: {OUT} differs from the stubs' TODO(NN.k) markers; run tools/exercise_steps.py --write",
          file=sys.stderr)
    return 1


if __name__ == "__main__":
    tool_io.run_tool(main)
