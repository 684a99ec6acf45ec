"""Run CTest in a build folder and read back each test's outcome (pass / fail / skipped).

Shared by course_check.py and progress.py.
"""
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

STEP_TEST = re.compile(r"^(\d\d)\.(\d+)-")
TODO_MARK = re.compile(r"TODO\((\d\d)\.(\d+)\)")


# The build folder's own tests that build before CTest runs the rest (course_finish_targets in
# cmake/CourseLesson.cmake). Whoever calls run_ctest has just built: they are left out.
SKIP_BUILD_TESTS = ["-LE", "^build$", "-FS", "^course_build_"]


def run_ctest(build_dir, extra_args=(), jobs=None, quiet=True):
    """Returns {test name: (status, output)} with status 'pass', 'fail' or 'skip'.

    quiet=False lets CTest print to the terminal as it runs (nothing is captured)."""
    if not os.path.isfile(os.path.join(build_dir, "CTestTestfile.cmake")):  # ctest would write Testing/ there
        raise SystemExit(f"{build_dir}: not a configured build folder (no CTestTestfile.cmake); configure it "
                         "first, e.g. cmake --preset lessons")
    jobs = jobs or int(os.environ.get("CTEST_PARALLEL_LEVEL", 0)) or os.cpu_count() or 2
    with tempfile.TemporaryDirectory() as tmp:
        junit = os.path.join(tmp, "results.xml")
        cmd = ["ctest", "--test-dir", build_dir, "-j", str(jobs), "--output-junit", junit, *SKIP_BUILD_TESTS,
               *extra_args]
        if quiet:
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            log = proc.stdout
        else:
            sys.stdout.flush()
            subprocess.run(cmd)
            log = ""
        if not os.path.exists(junit):
            print(log[-2000:], end="")
            raise SystemExit(f"ctest wrote no results in {build_dir} (is it a configured build folder?)")
        results = {}
        for case in ET.parse(junit).getroot().iter("testcase"):
            name = case.get("name")
            output = "".join(e.text or "" for e in case.iter("system-out"))
            results[name] = outcome(case, output)
        return results


# The only ways a test of this course is skipped: it exited with its SKIP_RETURN_CODE (no GPU, no
# MNIST) or it is disabled. CTest also reports as "not run" a test whose program was never built
# ("Unable to find executable") or whose fixture failed: those are failures, never skips.
DELIBERATE_SKIPS = ("SKIP_RETURN_CODE", "SKIP_REGULAR_EXPRESSION")


def outcome(case, output):
    """(status, output) of one JUnit testcase element."""
    skipped = case.find("skipped")
    if case.get("status") == "disabled":
        return "skip", output
    if skipped is not None or case.get("status") == "notrun":
        why = skipped.get("message", "") if skipped is not None else ""
        if why.startswith(DELIBERATE_SKIPS):
            return "skip", output
        detail = output.strip().splitlines()[0] if output.strip() else why or "not run"
        if why == "Unable to find executable":
            detail += " (its program was not built: build before testing)"
        return "fail", f"NOT RUN: {detail}\n"
    if case.find("failure") is not None or case.find("error") is not None or case.get("status") == "fail":
        return "fail", output
    return "pass", output


def todo_steps(root):
    """{step id 'NN.k': [files under lessons/ that still carry TODO(NN.k)]}."""
    steps = {}
    for dirpath, _, files in os.walk(os.path.join(root, "lessons")):
        for f in files:
            path = os.path.join(dirpath, f)
            if not f.endswith((".cpp", ".cu", ".hpp", ".cuh", ".h")):
                continue
            with open(path, encoding="utf-8", errors="replace") as fh:
                for m in TODO_MARK.finditer(fh.read()):
                    steps.setdefault(f"{m.group(1)}.{m.group(2)}", set()).add(os.path.relpath(path, root))
    return {k: sorted(v) for k, v in steps.items()}


def step_of(test_name):
    m = STEP_TEST.match(test_name)
    return f"{m.group(1)}.{m.group(2)}" if m else None


def step_key(step):
    major, minor = step.split(".")
    return int(major), int(minor)


SKIP_REASON = re.compile(r"^SKIPPED: (.*)$", re.M)
EDIT_HINT = re.compile(r"^(step \d\d\.\d+ is not right yet: .*)$", re.M)
NOT_RUN = re.compile(r"^NOT RUN: (.*)$", re.M)


def summary_lines(results):
    """The lines that end every test run: each skipped test and why, what to edit for each
    failed step, then 'N passed, N failed, N skipped'. CTest's own 'tests passed' percentage
    counts a skipped test as not failed; this line keeps the three apart."""
    counts = {"pass": 0, "fail": 0, "skip": 0}
    skipped, failed = [], []
    for name, (status, output) in sorted(results.items()):
        counts[status] += 1
        if status == "skip":
            m = SKIP_REASON.search(output)
            if m:
                reason = m.group(1)
            elif "no usable CUDA GPU" in output or "needs a CUDA GPU" in output:
                reason = "this program needs a CUDA GPU; none is usable here"
            else:
                reason = "skipped (see its output: ctest --output-on-failure -R '^" + name + "$' -V)"
            skipped.append(f"  {name}: {reason}")
        elif status == "fail":
            m = EDIT_HINT.search(output) or NOT_RUN.search(output)
            failed.append(f"  {name}" + (f": {m.group(1)}" if m else ""))
    lines = []
    if skipped:
        lines += ["skipped (not run here, never counted as passed):", *skipped]
    if failed:
        lines += ["failed:", *failed]
    lines.append(f"{counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped")
    return lines, counts
