#!/usr/bin/env python3
"""The course speaks to its learner: every lesson README teaches in at most 500 lines, and no file
says how the course was produced.

Three rules, over every file git tracks (binary files left out):
  budget     lessons/NN_*/README.md has at most 500 lines
  wording    no file speaks of how the course was made: whose run, which numbered copy of a GPU
             model, a day's story, the time allowed for the work, its reviews, the history of a
             race; the patterns are listed in PROCESS below, each with what to write instead (they
             are written with a bracket inside each word, so that this file does not say them)
  hashes     a lesson README names no commit outside its generated measured block (the history of
             a number lives in git, not in the lesson)

usage: tools/course_wording.py [--root DIR] [PATH ...]   only the files named (default: every file)
       tools/course_wording.py --self-test                each rule must catch its example
Exit 0: the course speaks to its learner; 1: one line per finding, then a count; 2: bad arguments.
"""
import argparse
import pathlib
import re
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tool_io  # noqa: E402

README_LINES = 500

_ORDINAL = r"(second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|another|other|a different)"
# (pattern, why it is not the learner's business / what to write instead)
PROCESS = [
    (r"\bissue #?\d+", "names a tracker issue; say what the code does"),
    (r"\b(this|that|the|a|one|each|every|next|last|earlier|later|same|whole) (work )?s[e]ssions?\b",
     "speaks of a working period"),
    (r"\bdevic[e] time\b|\btime budg[e]t\b|\bdevic[e] budg[e]t\b", "speaks of the time allowed for the work"),
    (rf"\b{_ORDINAL} (H100|H200)s?\b", "tells which copy of a GPU model; name the model only"),
    (r"\b(l[e]nt|b[o]rrowed)\b( a| an| the| two| one)? (machine|GPU|H100|H200)s?", "speaks of whose machine"),
    (r"\bmachine was l[e]nt\b|\bwas not l[e]nt\b|\bno machine .* was l[e]nt\b", "speaks of whose machine"),
    (r"\bof the day\b|\bthe day's\b|\bthat day('s)?\b", "tells a day's story; give the date of the measurement"),
    (r"\bdevelopment machine\b", "whose machine; name the machine (cores, CPU, GPU)"),
    (r"\b(the|a) review\b|\bread-through\b", "speaks of a review of the work"),
    (r"\b(earlier|previous|first|last|second|later) races?\b", "race history; keep only the measurement"),
    (r"\b(one|same|this|next|the) call of the device\b|\b(in|within) (the same|this|the next) call\b", "speaks of a call to the GPU machine; say 'in one run'"),
    (r"\b(o[u]r|m[y]) (run|runs|machine|s[e]ssion|budg[e]t)\b|\bw[e] (ran|measured|b[o]rrowed)\b", "whose run"),
    (r"\bthe authors?'?s? (run|runs|machine)\b", "whose run"),
]
PROCESS_RE = [(re.compile(p, re.IGNORECASE), why) for p, why in PROCESS]
# A commit: 7 to 40 hex digits holding at least one digit and one of a-f (so no word, no number).
COMMIT = re.compile(r"(?<![0-9A-Za-z_./#-])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![0-9A-Za-z_])")
MEASURED = re.compile(r"^<!-- measured: begin -->$.*?^<!-- measured: end -->$", re.MULTILINE | re.DOTALL)
SELF = "tools/course_wording.py"


def tracked_files(root):
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        tool_io.fail(f"--root {tool_io.shown(root)}: git ls-files failed ({e}); run it in a clone of the course")
    return [name for name in out.decode("utf-8", "replace").split("\0") if name]


def read_text(path):
    """The file's text, or None for a binary file (a NUL byte or no UTF-8)."""
    data = path.read_bytes()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def is_lesson_readme(name):
    return re.fullmatch(r"lessons/\d\d_[^/]+/README\.md", name) is not None


def findings(name, text):
    """[(line number, rule, what)] for one file."""
    out = []
    lines = text.splitlines()
    if is_lesson_readme(name) and len(lines) > README_LINES:
        out.append((len(lines), "budget", f"{len(lines)} lines, more than {README_LINES}: a README teaches; "
                                          "the story of a number belongs in git history"))
    if name != SELF:
        for number, line in enumerate(lines, 1):
            for pattern, why in PROCESS_RE:
                m = pattern.search(line)
                if m:
                    out.append((number, "wording", f"'{m.group(0)}': {why}"))
    if is_lesson_readme(name):
        outside = MEASURED.sub(lambda m: "\n" * m.group(0).count("\n"), text)
        for number, line in enumerate(outside.splitlines(), 1):
            for m in COMMIT.finditer(line):
                out.append((number, "hashes", f"names commit '{m.group(0)}' outside the measured block"))
    return out


def check(root, names):
    found = []
    for name in names:
        path = root / name
        if not path.is_file():
            continue
        text = read_text(path)
        if text is None:
            continue
        found += [(name, number, rule, what) for number, rule, what in findings(name, text)]
    return found


def self_test():
    cases = [
        ("lessons/09_x/README.md", "line\n" * (README_LINES + 1), "budget"),
        ("docs/results.md", "PyTorch took 0.718 s on another H100.\n", "wording"),
        ("docs/results.md", "the " + "device" + " time of the " + "sess" + "ion ended there\n", "wording"),
        ("lessons/15_x/README.md", "1.72x in an earlier race\n", "wording"),
        ("docs/results.md", "after a read-through of the day's change\n", "wording"),
        ("common/src/x.cpp", "// measured in one call of the device\n", "wording"),
        ("lessons/09_x/README.md", "since commit 3c6d324 the kernel\n", "hashes"),
    ]
    clean = [
        ("lessons/09_x/README.md", "line\n" * README_LINES, None),
        ("lessons/09_x/README.md", "<!-- measured: begin -->\nat 3c6d324\n<!-- measured: end -->\n", None),
        ("lessons/03_x/README.md", "the next call that waits for the GPU; 0xdeadbeef; 1234567; facade\n", None),
        ("tests/x.cpp", "Catch::" + "Sess" + "ion s; a second GPU; one call per layer\n", None),
    ]
    bad = 0
    for name, text, rule in cases + clean:
        rules = {r for _, r, _ in findings(name, text)}
        if (rule is None and rules) or (rule is not None and rule not in rules):
            print(f"self-test: {name} {text[:50]!r}: expected {rule or 'nothing'}, found {sorted(rules) or 'nothing'}")
            bad += 1
    if bad:
        return 1
    print(f"self-test: {len(cases)} examples caught, {len(clean)} clean texts passed")
    return 0


def main():
    ap = tool_io.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=pathlib.Path(__file__).resolve().parent.parent, type=pathlib.Path)
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("paths", nargs="*", help="files relative to the root (default: every tracked file)")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    names = args.paths or tracked_files(args.root)
    found = check(args.root, names)
    for name, number, rule, what in found:
        print(f"{name}:{number}: {rule}: {tool_io.shown(what, 300)}")
    if found:
        print(f"course wording: {len(found)} finding(s) in {len({f[0] for f in found})} file(s)")
        return 1
    print(f"course wording: {len(names)} files speak to the learner; every lesson README within {README_LINES} lines")
    return 0


if __name__ == "__main__":
    tool_io.run_tool(main)
