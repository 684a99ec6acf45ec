#!/usr/bin/env python3
"""Lessons in order: no lesson uses a later one.

Fails (exit 1, one line per finding) when a file under lessons/NN_*/ or solutions/NN_*/
  * includes a header that only a later lesson's folder holds (#include "name.hpp", matched by file
    name against every lesson folder's headers), or
  * when lessons/NN_*/CMakeLists.txt names a library target that a later lesson defines
    (course_exercise_library, course_given_library, add_library; with and without _ref), or
  * when any lesson's CMakeLists.txt links a target of an earlier lesson (its library or program)
    to a library of a later one (target_link_libraries(<earlier target> ... <later library>)), or
  * when a code file (sources, CMakeLists.txt, model files) under lessons/NN_*/ or solutions/NN_*/
    names a later lesson ("lesson 12", "lessons 07 and 08", "lesson13_..."): a hook an earlier
    lesson offers is described by what can be plugged in, not by who plugs in. READMEs may point
    ahead (what a lesson's work is for); code may not. KNOWN_CARRIERS lists the files that still
    carry a later lesson's work, each with the reason, until it moves.
A header that the lesson's own folder or an earlier one also holds does not count. Programs that
combine several lessons live above them (programs/) and are not checked.

usage: tools/lesson_order.py [--root DIR]     exit 0: in order; 1: findings; 2: bad arguments
       tools/lesson_order.py --self-test      builds small trees with an include and links against
                                              the order and checks that each is found
"""
import argparse
import os
import pathlib
import re
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tool_io  # noqa: E402

LESSON = re.compile(r"^(\d\d)_")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)
LIBRARY = re.compile(r"\b(?:course_exercise_library|course_given_library|add_library)\(\s*([A-Za-z0-9_]+)")
TARGET = re.compile(r"\b(?:course_exercise_library|course_given_library|add_library|add_executable)\(\s*([A-Za-z0-9_]+)")
LINK = re.compile(r"\btarget_link_libraries\(\s*([A-Za-z0-9_]+)([^)]*)\)")
SOURCES = (".cpp", ".hpp", ".cu", ".cuh", ".h")
CODE = SOURCES + (".txt", ".cmake")  # CMakeLists.txt and the model files too
MENTION = re.compile(r"\b[Ll]essons? (\d\d)((?:(?:, | and | or |-)\d\d)*)|\blesson(\d\d)_")
# Files that still carry a later lesson's work (each named with why), so their mentions are known.
KNOWN_CARRIERS = {}


def lesson_folders(root, top):
    base = root / top
    if not base.is_dir():
        return []
    return sorted((int(m.group(1)), d) for d in base.iterdir() if d.is_dir() and (m := LESSON.match(d.name)))


def findings(root):
    lessons = lesson_folders(root, "lessons")
    headers = {}  # file name -> the lessons whose folder holds one
    libraries = {}  # library target -> the lesson that defines it
    targets = {}  # every library and program target -> the lesson that defines it
    for number, folder in lessons:
        for path in folder.rglob("*"):
            if path.suffix in (".hpp", ".cuh", ".h"):
                headers.setdefault(path.name, set()).add(number)
        cmake = folder / "CMakeLists.txt"
        if cmake.is_file():
            text = cmake.read_text(encoding="utf-8", errors="replace")
            for name in LIBRARY.findall(text):
                libraries[name] = libraries[name + "_ref"] = number
            for name in TARGET.findall(text):
                targets[name] = targets[name + "_ref"] = number
    found = []
    for top in ("lessons", "solutions"):
        for number, folder in lesson_folders(root, top):
            for path in sorted(folder.rglob("*")):
                if path.suffix not in SOURCES or not path.is_file():
                    continue
                for included in INCLUDE.findall(path.read_text(encoding="utf-8", errors="replace")):
                    owners = headers.get(os.path.basename(included))
                    if owners and min(owners) > number:
                        found.append(f"{path.relative_to(root)}: includes {included}, which is lesson "
                                     f"{min(owners):02d}'s (a later lesson)")
            for path in sorted(folder.rglob("*")):
                rel = path.relative_to(root).as_posix()
                if path.suffix not in CODE or not path.is_file() or rel in KNOWN_CARRIERS:
                    continue
                for line_number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                    for mention in MENTION.finditer(line):
                        later = [int(n) for n in re.findall(r"\d\d", mention.group(0)) if int(n) > number]
                        if later:
                            found.append(f"{rel}:{line_number}: names lesson {later[0]:02d} (a later lesson): "
                                         f"'{mention.group(0)}'")
    for number, folder in lessons:
        cmake = folder / "CMakeLists.txt"
        if not cmake.is_file():
            continue
        text = re.sub(r"#.*", "", cmake.read_text(encoding="utf-8", errors="replace"))  # not the comments
        for name, owner in sorted(libraries.items()):
            if owner > number and re.search(r"(?<![A-Za-z0-9_])" + re.escape(name) + r"(?![A-Za-z0-9_])", text):
                found.append(f"{cmake.relative_to(root)}: names {name}, lesson {owner:02d}'s library (a later lesson)")
        for target, args in LINK.findall(text):
            for name in re.findall(r"[A-Za-z0-9_]+", args):
                if target in targets and name in libraries and libraries[name] > targets[target]:
                    found.append(f"{cmake.relative_to(root)}: links {target} (lesson {targets[target]:02d}) to {name}, "
                                 f"lesson {libraries[name]:02d}'s library (a later lesson)")
    return sorted(set(found))


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        files = {
            "lessons/01_a/CMakeLists.txt": "course_exercise_library(alpha LESSON 01_a)\n",
            "lessons/01_a/alpha.hpp": "#pragma once\n",
            "lessons/02_b/CMakeLists.txt": "add_library(beta STATIC b.cpp)\ntarget_link_libraries(beta PRIVATE alpha_ref)\n",
            "lessons/02_b/beta.hpp": "#pragma once\n#include \"alpha.hpp\"\n",
            "lessons/01_a/uses_later.cpp": "#include \"beta.hpp\"\n",
            "lessons/01_a/CMakeLists.txt.extra": "",
        }
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
        if findings(root) != ["lessons/01_a/uses_later.cpp: includes beta.hpp, which is lesson 02's (a later lesson)"]:
            print("self-test: the include against the order was not found as expected:", findings(root))
            return 1
        (root / "lessons/01_a/uses_later.cpp").write_text("#include \"alpha.hpp\"\n// lessons 01 and 02 call this\n")
        if findings(root) != ["lessons/01_a/uses_later.cpp:2: names lesson 02 (a later lesson): 'lessons 01 and 02'"]:
            print("self-test: a comment naming a later lesson was not found as expected:", findings(root))
            return 1
        (root / "lessons/01_a/uses_later.cpp").write_text("#include \"alpha.hpp\"\n// lesson 01's own; the GPU trainer calls it\n")
        (root / "lessons/01_a/CMakeLists.txt").write_text(
            "course_exercise_library(alpha LESSON 01_a)\ntarget_link_libraries(alpha PRIVATE beta)  # beta_ref\n")
        if findings(root) != ["lessons/01_a/CMakeLists.txt: links alpha (lesson 01) to beta, lesson 02's library "
                              "(a later lesson)",
                              "lessons/01_a/CMakeLists.txt: names beta, lesson 02's library (a later lesson)"]:
            print("self-test: the link against the order was not found as expected:", findings(root))
            return 1
        (root / "lessons/01_a/CMakeLists.txt").write_text("course_exercise_library(alpha LESSON 01_a)\n"
                                                          "add_executable(early early.cpp)  # not beta\n")
        (root / "lessons/02_b/CMakeLists.txt").write_text(
            "add_library(beta STATIC b.cpp)\ntarget_link_libraries(early PRIVATE beta)\n")
        if findings(root) != ["lessons/02_b/CMakeLists.txt: links early (lesson 01) to beta, lesson 02's library "
                              "(a later lesson)"]:
            print("self-test: a later lesson linking an earlier program was not found as expected:", findings(root))
            return 1
        (root / "lessons/02_b/CMakeLists.txt").write_text("add_library(beta STATIC b.cpp)\n")
        if findings(root):
            print("self-test: a tree in order was reported:", findings(root))
            return 1
    print("self-test: an include, a name and two links against the order found, a tree in order passes")
    return 0


def main():
    ap = tool_io.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=pathlib.Path(__file__).resolve().parent.parent, type=pathlib.Path)
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    if not (args.root / "lessons").is_dir():
        tool_io.fail(f"--root {tool_io.shown(args.root)}: has no lessons/ folder", tool_io.EXIT_USAGE)
    found = findings(args.root)
    for line in found:
        print(line)
    lessons = len(lesson_folders(args.root, "lessons"))
    print(f"lesson order: {len(found)} use(s) of a later lesson in {lessons} lessons" if found
          else f"lesson order: no lesson of {lessons} uses a later one")
    return 1 if found else 0


if __name__ == "__main__":
    tool_io.run_tool(main)
