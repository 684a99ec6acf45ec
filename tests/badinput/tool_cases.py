#!/usr/bin/env python3
"""Bad input for the course's Python tools (tools/*.py), table-driven as bad_input_table.py is for the
trainers. Every case runs one tool on generated input and checks it the same way:

  * the exit status is the one expected (1: bad input, 2: a bad command line), not a signal, and
    the tool ends within its time limit (a FIFO must not hang it);
  * stderr holds exactly one line starting with "error:", and it names the file, folder or flag at
    fault; no "Traceback" anywhere in the output;
  * nothing is half-written: the case's folder holds the same files as before the run, each
    unchanged byte for byte (a README, an earlier data set), and no temporary file.

Each tool's good path runs too where it can here (readme_tables.py --check on the course itself, a
README rewritten, a small CIFAR-10-shaped set, the PyTorch scripts on generated data), so a case cannot
pass because the tool fails on everything. The PyTorch scripts check their input before they load
NumPy and PyTorch: where those are missing, their good path counts when it gets past every check to
the one line saying so.

A full disk is a file-size limit (RLIMIT_FSIZE, as `ulimit -f`): no root needed. The tools ignore the
SIGXFSZ such a write raises, so the write fails with "File too large" and is reported.

usage: tool_cases.py [--python PY] [--tools DIR] [--markdown FILE] [--only WORD]
       tool_cases.py --fuzz N [--seed S]    N random mutations of good .npy and IDX files through
                                            tools/tool_io.py's readers: each is refused with one
                                            ToolError or parsed to what it declares, nothing else
Exit status 0 when every case holds.
"""
import argparse
import hashlib
import os
import random
import resource
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TIMEOUT = 60  # seconds a run may take; a tool blocked on a FIFO fails its case
NEEDS_LIBRARIES = ("this tool needs NumPy", "this tool needs PyTorch")


# ---- generated input -----------------------------------------------------------------------------

def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)
    return path


def idx_bytes(dims, data):
    return bytes([0, 0, 0x08, len(dims)]) + b"".join(struct.pack(">I", d) for d in dims) + bytes(data)


def mnist_set(folder, files=None):
    """MNIST-like IDX files (64 training, 32 test images of 28 x 28); `files` replaces any by name
    (bytes, or None: left out, for the case to put something else there)."""
    out = {}
    for split, n in (("train", 64), ("t10k", 32)):
        out[f"{split}-images-idx3-ubyte"] = idx_bytes([n, 28, 28], [(i * 37 + 11) % 256 for i in range(n * 784)])
        out[f"{split}-labels-idx1-ubyte"] = idx_bytes([n], [i % 10 for i in range(n)])
    out.update(files or {})
    for name, data in out.items():
        if data is not None:
            write(os.path.join(folder, name), data)
    return folder


def npy_bytes(descr, shape, payload, header_text=None):
    """A version 1.0 .npy file; header_text replaces the header dictionary as written."""
    header = header_text or ("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "")))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin-1") + payload


def sine_params(hidden):
    return 4 * hidden + 4 * hidden * hidden + 4 * hidden + 4 * hidden + hidden + 1


def sine_run(folder, hidden=5, waves=10, seed=1, manifest=True, files=None):
    """What `train_sine --out DIR --hidden H` leaves: start_params.npy, offsets.npy, metrics.csv and, a
    finished run, run.txt listing them with their sizes (written last). `files` replaces any by name."""
    rng = random.Random(seed)
    count = sine_params(hidden)
    out = {
        "metrics.csv": "epoch,train_loss,test_loss,seconds\n1,0.5,0.5,0.01\n",
        "start_params.npy": npy_bytes("<f4", (count,), struct.pack(f"<{count}f", *[rng.uniform(-0.2, 0.2)
                                                                                   for _ in range(count)])),
        "offsets.npy": npy_bytes("<i4", (waves,), struct.pack(f"<{waves}i", *[rng.randrange(-80, 80)
                                                                              for _ in range(waves)])),
    }
    out.update(files or {})
    for name, data in out.items():
        write(os.path.join(folder, name), data)
    if manifest:
        listed = "".join(f"{name} {os.path.getsize(os.path.join(folder, name))} bytes\n" for name in out)
        write(os.path.join(folder, "run.txt"), "# one finished run\nfinished 2026-11-29T00:00:00Z\n" + listed)
    return folder


def boxes_set(folder, files=None):
    """What `train_boxes --write-canvases DIR` writes: canvases (bytes) and boxes (int32) of two splits."""
    out = {}
    for split, n in (("train", 32), ("test", 16)):
        out[f"{split}_canvases.npy"] = npy_bytes("|u1", (n, 64, 64), bytes((i * 7) % 256 for i in range(n * 4096)))
        out[f"{split}_boxes.npy"] = npy_bytes("<i4", (n, 4), struct.pack(
            f"<{4 * n}i", *[v for i in range(n) for v in (i % 20, i % 20, 30 + i % 20, 40)]))
    out.update(files or {})
    for name, data in out.items():
        if data is not None:
            write(os.path.join(folder, name), data)
    return folder


def saved_mnist(folder, manifest=True):
    """What `train_mnist --model small --save DIR` writes for 32 test images."""
    shapes = {"conv1.weight": (10, 1, 3, 3), "conv1.bias": (10,), "fc1.weight": (100, 1960), "fc1.bias": (100,),
              "fc2.weight": (10, 100), "fc2.bias": (10,), "test_logits": (32, 10)}
    names = []
    for name, shape in shapes.items():
        count = 1
        for d in shape:
            count *= d
        write(os.path.join(folder, name + ".npy"), npy_bytes("<f4", shape, bytes(4 * count)))
        names.append(name + ".npy")
    if manifest:
        write(os.path.join(folder, "run.txt"), "finished 2026-11-29T00:00:00Z\n" + "".join(
            f"{n} {os.path.getsize(os.path.join(folder, n))} bytes\n" for n in names))
    return folder


def mini_course(folder, readme_bytes=None, results_bytes=None):
    """A course tree for readme_tables.py: lesson 01's record docs/results/01_first.md with its measured
    block, and lesson 01's README (about 30 KB) whose copy of it is out of date."""
    results = ("# Lesson 01 -- measured\n\n<!-- measured 01: begin -->\n"
               "**A CPU, 2026-11-29, commit 0a1b2c3**: `lesson01_first`\n\n| size | ms |\n|---:|---:|\n"
               + "".join(f"| {i} | {i * 0.25:.2f} |\n" for i in range(1, 400)) + "<!-- measured 01: end -->\n")
    readme = ("# Lesson 01\n\n" + "Some words about the lesson.\n" * 1000 +
              "\n<!-- measured: begin -->\nold numbers\n<!-- measured: end -->\n\nThe end.\n")
    write(os.path.join(folder, "docs", "results", "01_first.md"),
          results_bytes if results_bytes is not None else results)
    if readme_bytes is not False:
        write(os.path.join(folder, "lessons", "01_first", "README.md"),
              readme_bytes if readme_bytes is not None else readme)
    return folder


def fake_build(folder, exit_code=1):
    """A build folder whose bin/train_fast is a script that stops at once (exit_code)."""
    path = write(os.path.join(folder, "bin", "train_fast"), f"#!/bin/sh\necho 'no GPU here' >&2\nexit {exit_code}\n")
    os.chmod(path, 0o755)
    return folder


# ---- one case ------------------------------------------------------------------------------------

class Case:
    """One run of a tool. `make(folder)` prepares the case's folder and returns the tool's arguments
    (a list). `code`: the expected exit status; 0 for a good path. `words`: what the error line must
    hold. `good(folder, output)`: for a good path, the problems of what it wrote (a list)."""

    def __init__(self, tool, name, make, code, words=(), limit_kib=None, good=None, env=None, user=None,
                 torch=False, outputs=None):
        self.tool, self.name, self.make, self.code, self.words = tool, name, make, code, list(words)
        self.limit_kib, self.good, self.env, self.user, self.torch = limit_kib, good, env, user, torch
        self.outputs = outputs  # a folder (relative) where a failing run may still leave whole outputs
        self.python = None  # another interpreter for this case (one that user can run)


def snapshot(folder):
    """{relative path: what is there}: a regular file's SHA-256 (its size and mtime past 64 MiB, a
    sparse file is never read), another entry's type."""
    seen = {}
    for dirpath, dirnames, names in os.walk(folder):
        for name in names + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            rel = os.path.relpath(path, folder)
            if stat.S_ISREG(st.st_mode):
                if st.st_size > 64 << 20:
                    seen[rel] = ("big", st.st_size, st.st_mtime_ns)
                else:
                    with open(path, "rb") as f:
                        seen[rel] = ("file", hashlib.sha256(f.read()).hexdigest())
            else:
                seen[rel] = ("other", stat.S_IFMT(st.st_mode))
    return seen


def preexec(limit_kib, user):
    def apply():
        if limit_kib is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit_kib * 1024, limit_kib * 1024))
        if user is not None:
            os.setgroups([])
            os.setgid(user)
            os.setuid(user)
    return apply


def run_case(case, python, tools, folder):
    """Runs a case; returns (exit status, the error line, problems)."""
    os.makedirs(folder, exist_ok=True)
    argv = case.make(folder)
    before = snapshot(folder)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.update(case.env or {})
    cmd = [case.python or python, os.path.join(tools, case.tool), *argv]
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=folder,
                             preexec_fn=preexec(case.limit_kib, case.user), start_new_session=True)
    except OSError as e:
        return "-", "", [f"cannot run {cmd[0]}: {e}"]
    try:
        out, err = p.communicate(timeout=TIMEOUT)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        rc = "timeout"
    out, err = out.decode(errors="replace"), err.decode(errors="replace")
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    line = errors[0] if len(errors) == 1 else ""
    problems = []
    if rc == "timeout":
        problems.append(f"still running after {TIMEOUT} s (blocked?)")
    elif rc < 0:
        problems.append(f"killed by signal {-rc}")
    if "Traceback" in out + err:
        problems.append("a Python traceback")
    past_checks = case.torch and rc == 1 and any(w in line for w in NEEDS_LIBRARIES + ("PyTorch sees no CUDA GPU",))
    if case.code == 0:
        if rc != 0 and not past_checks:
            problems.append(f"exit status {rc}, expected 0")
        if errors and not past_checks:
            problems.append(f"{len(errors)} error line(s) on the good path")
        if not problems and case.good and not past_checks:
            problems += case.good(folder, out)
        if past_checks:
            line = "(past every check) " + line
        else:
            line = (out.strip().splitlines() or [""])[-1]
        return rc, line, problems
    if rc != case.code and rc != "timeout":
        problems.append(f"exit status {rc}, expected {case.code}")
    if len(errors) != 1:
        problems.append(f"{len(errors)} lines on stderr start with 'error:', expected exactly one")
    for word in case.words:
        if word not in line:
            problems.append(f"the error line does not name {word!r}")
    after = snapshot(folder)
    for rel in sorted(set(before) | set(after)):
        if case.outputs and rel.startswith(case.outputs + os.sep) and rel not in before and not rel.endswith(".tmp"):
            continue
        if rel not in after:
            problems.append(f"{rel} is gone")
        elif rel not in before:
            problems.append(f"{rel} was left behind")
        elif before[rel] != after[rel]:
            problems.append(f"{rel} was changed")
    if problems:
        problems.append(f"stdout: {out[-300:]!r}; stderr: {err[-600:]!r}")
    return rc, line, problems


# ---- the cases -----------------------------------------------------------------------------------

def runs_as(uid, python):
    """Whether `python` starts as user `uid` (root's own interpreter may sit in a folder others cannot
    enter)."""
    try:
        return subprocess.run([python, "-c", "pass"], preexec_fn=preexec(None, uid), timeout=60,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def make_fifo(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.mkfifo(path)
    return path


def sparse_idx(path, count):
    """An IDX header declaring count x 28 x 28 images, the rest of the file a hole (no disk used)."""
    write(path, bytes([0, 0, 0x08, 3]) + struct.pack(">3I", count, 28, 28))
    with open(path, "r+b") as f:
        f.truncate(16 + count * 28 * 28)
    return path


def cases(python):
    """Every case, tool by tool."""
    c = []

    def add(*args, **kwargs):
        c.append(Case(*args, **kwargs))

    # -- readme_tables.py ----------------------------------------------------------------------------
    t = "readme_tables.py"
    add(t, "good path: --check on the course itself", lambda d: ["--check", "--root", ROOT], 0)

    def readme_rewritten(d, out):
        text = open(os.path.join(d, "course", "lessons", "01_first", "README.md"), encoding="utf-8").read()
        return [] if "| 399 | 99.75 |" in text and text.endswith("The end.\n") else ["README.md was not rewritten whole"]
    add(t, "good path: a README's measured block rewritten", lambda d: ["--root", mini_course(os.path.join(d, "course"))],
        0, good=readme_rewritten)
    add(t, "full disk (file size limit 24 KiB): the 30 KB README stays whole",
        lambda d: ["--root", mini_course(os.path.join(d, "course"))], 1, ["README.md", "File too large"], limit_kib=24)

    def readme_fifo(d):
        mini_course(os.path.join(d, "course"), readme_bytes=False)
        make_fifo(os.path.join(d, "course", "lessons", "01_first", "README.md"))
        return ["--check", "--root", os.path.join(d, "course")]
    add(t, "a README that is a named pipe (FIFO)", readme_fifo, 1, ["README.md", "named pipe"])
    add(t, "a README that is not UTF-8",
        lambda d: ["--root", mini_course(os.path.join(d, "course"), readme_bytes=b"# Lesson\n\xff\xfe caf\xe9\n")],
        1, ["README.md", "not UTF-8", "line 2"])
    add(t, "a lesson's record that is not UTF-8",
        lambda d: ["--check", "--root", mini_course(os.path.join(d, "course"), results_bytes=b"\x80 results\n")],
        1, ["01_first.md", "not UTF-8"])
    add(t, "a record with two measured blocks",
        lambda d: ["--check", "--root", mini_course(os.path.join(d, "course"), results_bytes=(
            "<!-- measured 01: begin -->\n**A CPU, 2026-11-29, commit 0a1b2c3**: x\n<!-- measured 01: end -->\n" * 2
        ).encode())], 1, ["01_first.md", "exactly one", "has 2"])
    add(t, "a measured block whose first line does not name its run",
        lambda d: ["--check", "--root", mini_course(os.path.join(d, "course"), results_bytes=(
            b"<!-- measured 01: begin -->\n| size | ms |\n<!-- measured 01: end -->\n"))],
        1, ["01_first.md", "first line must name the run"])

    def record_missing(d):
        os.remove(os.path.join(mini_course(os.path.join(d, "course")), "docs", "results", "01_first.md"))
        return ["--check", "--root", os.path.join(d, "course")]
    add(t, "a lesson without its record", record_missing, 1, ["01_first.md is missing"])
    add(t, "--lesson 1 (not two digits)", lambda d: ["--check", "--lesson", "1"], 2, ["--lesson takes two digits"])
    add(t, "--chek (misspelt): one line, not argparse's usage block", lambda d: ["--chek"], 2, ["--chek"])
    add(t, "--root with a line break and 'error:' in it", lambda d: ["--root", os.path.join(d, "x\nerror: fake")],
        1, ["x\\nerror: fake"])

    # -- cifar_shaped.py -----------------------------------------------------------------------------
    t = "cifar_shaped.py"

    def six_files(d, out):
        problems = []
        for name in [f"data_batch_{i}.bin" for i in range(1, 6)] + ["test_batch.bin"]:
            path = os.path.join(d, "set", name)
            if not os.path.isfile(path) or os.path.getsize(path) != 2 * 3073:
                problems.append(f"{name} is not 2 whole records")
        left = [n for n in os.listdir(os.path.join(d, "set")) if n.endswith(".tmp")]
        return problems + [f"temporary file left: {n}" for n in left]
    add(t, "good path: a small set (--records 2)", lambda d: [os.path.join(d, "set"), "--records", "2"], 0,
        good=six_files)
    add(t, "DIR is a regular file", lambda d: [write(os.path.join(d, "a_file"), "x")], 1, ["a_file", "regular file"])
    add(t, "DIR is a named pipe (FIFO)", lambda d: [make_fifo(os.path.join(d, "fifo"))], 1, ["fifo", "named pipe"])

    def dangling(d):
        os.symlink(os.path.join(d, "nowhere"), os.path.join(d, "link"))
        return [os.path.join(d, "link")]
    add(t, "DIR is a dangling symbolic link", dangling, 1, ["link", "symbolic link"])
    add(t, "DIR is /dev/full", lambda d: ["/dev/full"], 1, ["/dev/full", "character device"])
    add(t, "full disk (file size limit 8 KiB, --records 3): no file left, so a rerun can start",
        lambda d: [os.path.join(d, "set"), "--records", "3"], 1, ["data_batch_1.bin", "File too large"], limit_kib=8)
    add(t, "a rerun into a folder that holds the set", lambda d: [
        os.path.dirname(write(os.path.join(d, "set", "data_batch_1.bin"), b"\x01" * 3073))], 2,
        ["data_batch_1.bin", "already holds"])
    add(t, "--seed x", lambda d: [os.path.join(d, "set"), "--seed", "x"], 2, ["--seed", "'x'"])
    nobody_python = next((p for p in (python, "/usr/bin/python3") if os.geteuid() == 0 and runs_as(65534, p)), None)
    if nobody_python:
        def read_only(d):
            os.chmod(d, 0o755)
            folder = os.path.join(d, "ro")
            os.makedirs(folder)
            os.chmod(folder, 0o555)
            return [folder, "--records", "2"]
        add(t, "DIR is a read-only folder (run as nobody)", read_only, 1, ["ro", "not writable"], user=65534)
        c[-1].python = nobody_python
    elif os.geteuid() != 0:
        def read_only(d):
            folder = os.path.join(d, "ro")
            os.makedirs(folder)
            os.chmod(folder, 0o555)
            return [folder, "--records", "2"]
        add(t, "DIR is a read-only folder", read_only, 1, ["ro", "not writable"])

    # -- pytorch_layers.py ---------------------------------------------------------------------------
    t = "pytorch_layers.py"
    quick = ["--device", "cpu", "--epochs", "1", "--batch", "16"]

    def layers_case(name, files, words, extra=(), model="small", code=1):
        add(t, name, lambda d: ["--model", model, "--data", mnist_set(os.path.join(d, "data"), files(d)), *quick,
                                *extra], code, words, torch=True)

    layers_case("good path: a generated MNIST-like set on the CPU", lambda d: {}, [], code=0)

    def fifo_images(d):
        make_fifo(os.path.join(d, "data", "train-images-idx3-ubyte"))
        return {"train-images-idx3-ubyte": None}
    layers_case("train images are a named pipe (FIFO)", fifo_images, ["train-images-idx3-ubyte", "named pipe"])

    def zero_images(d):
        os.makedirs(os.path.join(d, "data"))
        os.symlink("/dev/zero", os.path.join(d, "data", "train-images-idx3-ubyte"))
        return {"train-images-idx3-ubyte": None}
    layers_case("train images are a link to /dev/zero", zero_images, ["train-images-idx3-ubyte", "character device"])

    def sparse_images(d):
        sparse_idx(os.path.join(d, "data", "train-images-idx3-ubyte"), 120000000)  # 94 GB declared, a hole
        return {"train-images-idx3-ubyte": None}
    layers_case("a sparse train images file declaring 94 GB", sparse_images,
                ["train-images-idx3-ubyte", "GiB", "free"])
    layers_case("train images cut short", lambda d: {"train-images-idx3-ubyte": idx_bytes(
        [64, 28, 28], bytes(5000))}, ["train-images-idx3-ubyte", "truncated"])
    layers_case("train labels with trailing bytes", lambda d: {"train-labels-idx1-ubyte": idx_bytes(
        [64], [i % 10 for i in range(64)]) + b"xx"}, ["train-labels-idx1-ubyte", "too long"])
    layers_case("a label of 10", lambda d: {"train-labels-idx1-ubyte": idx_bytes(
        [64], [i % 10 for i in range(63)] + [10])}, ["train-labels-idx1-ubyte", "label 10"])
    layers_case("--model conv3x3x65536,conv3x3x65536,dense10 (more than the memory)", lambda d: {},
                ["conv3x3x65536", "GiB", "smaller --batch"], model="conv3x3x65536,conv3x3x65536,dense10")
    layers_case("--lr-drops ² (a digit int() refuses)", lambda d: {}, ["--lr-drops", "²"], extra=["--epochs", "3",
                                                                                                   "--lr-drops", "²"],
                code=2)
    layers_case("--model with a line break and a terminal escape", lambda d: {}, ["relu\\ndense10\\x1b[31m"],
                model="relu\ndense10\x1b[31m", code=2)
    add(t, "--model @FILE that is a named pipe (FIFO)", lambda d: [
        "--model", "@" + make_fifo(os.path.join(d, "model.txt")), "--data", mnist_set(os.path.join(d, "data")),
        *quick], 1, ["model.txt", "named pipe"], torch=True)
    add(t, "--json names a folder", lambda d: [
        "--model", "small", "--data", mnist_set(os.path.join(d, "data")), *quick, "--json", d], 1,
        ["--json", "is a folder"], torch=True)
    add(t, "--epoch 2 (misspelt)", lambda d: ["--model", "small", "--epoch", "2"], 2, ["--epoch"], torch=True)

    # -- pytorch_sine.py ------------------------------------------------------------------------------
    t = "pytorch_sine.py"
    sine = ["--hidden", "5", "--device", "cpu", "--epochs", "3", "--length", "40"]

    def sine_case(name, make_run, code, words, extra=()):
        add(t, name, lambda d: ["--start", make_run(os.path.join(d, "s")), *sine, *extra], code, words, torch=True)

    sine_case("good path: --start a finished run", lambda f: sine_run(f), 0, [])

    def half_written(f):
        sine_run(f, seed=1)  # the finished run of seed 1, then a rerun of seed 2 cut after start_params.npy
        sine_run(f, seed=2, manifest=False, files={"offsets.npy": open(os.path.join(f, "offsets.npy"), "rb").read()})
        os.remove(os.path.join(f, "run.txt"))
        return f
    sine_case("--start a half-written folder (no run.txt)", half_written, 1, ["run.txt", "no finished run"])

    def resized(f):
        sine_run(f)
        with open(os.path.join(f, "start_params.npy"), "ab") as out:
            out.write(b"\0" * 4)
        return f
    sine_case("--start: start_params.npy not the size run.txt lists", resized, 1, ["start_params.npy", "run.txt lists"])
    sine_case("--start: offsets.npy of strings ('<U3')", lambda f: sine_run(f, files={
        "offsets.npy": npy_bytes("<U3", (10,), bytes(120))}), 1, ["offsets.npy", "data type"])
    sine_case("--start: start_params.npy declaring a shape of 1e12", lambda f: sine_run(f, files={
        "start_params.npy": npy_bytes("<f4", (10 ** 12,), bytes(64))}), 1, ["start_params.npy", "truncated"])
    sine_case("--start: offsets.npy with trailing bytes", lambda f: sine_run(f, files={
        "offsets.npy": npy_bytes("<i4", (10,), bytes(40) + b"junk")}), 1, ["offsets.npy", "after the data"])
    sine_case("--start: offsets.npy of shape (-1,)", lambda f: sine_run(f, files={
        "offsets.npy": npy_bytes("<i4", (-1,), bytes(40))}), 1, ["offsets.npy", "shape"])
    sine_case("--start: offsets.npy with a header that is code, not a literal", lambda f: sine_run(f, files={
        "offsets.npy": npy_bytes("<i4", (10,), bytes(40), header_text="__import__('os').system('true')")}), 1,
        ["offsets.npy", "not a dictionary"])
    sine_case("--csv names a device", lambda f: sine_run(f), 1, ["--csv", "character device"],
              extra=["--csv", "/dev/null"])

    # -- pytorch_boxes.py, pytorch_mnist.py, pytorch_speedrun.py, pytorch_cpu_mnist.py ---------------
    t = "pytorch_boxes.py"
    boxes = ["--device", "cpu", "--epochs", "1", "--batch", "8"]
    add(t, "good path: generated canvases", lambda d: ["--data", boxes_set(os.path.join(d, "b")), *boxes], 0,
        torch=True)

    def boxes_fifo(d):
        make_fifo(os.path.join(d, "b", "train_canvases.npy"))
        return ["--data", boxes_set(os.path.join(d, "b"), {"train_canvases.npy": None}), *boxes]
    add(t, "train_canvases.npy is a named pipe (FIFO)", boxes_fifo, 1, ["train_canvases.npy", "named pipe"],
        torch=True)
    add(t, "train_boxes.npy of float32", lambda d: ["--data", boxes_set(os.path.join(d, "b"), {
        "train_boxes.npy": npy_bytes("<f4", (32, 4), bytes(512))}), *boxes], 1, ["train_boxes.npy", "data type"],
        torch=True)
    t = "pytorch_mnist.py"
    add(t, "--check-npy a folder without run.txt", lambda d: [
        "--model", "small", "--data", mnist_set(os.path.join(d, "data")),
        "--check-npy", saved_mnist(os.path.join(d, "npy"), manifest=False)], 1, ["run.txt"], torch=True)
    add(t, "good path: --check-npy a finished run", lambda d: [
        "--model", "small", "--data", mnist_set(os.path.join(d, "data")),
        "--check-npy", saved_mnist(os.path.join(d, "npy"))], 0, torch=True)
    add(t, "--batch 0", lambda d: ["--batch", "0"], 2, ["--batch"], torch=True)
    t = "pytorch_speedrun.py"
    def images_folder(d):
        os.makedirs(os.path.join(d, "data", "t10k-images-idx3-ubyte"))
        return ["--device", "cpu", "--mode", "eager", "--data", mnist_set(os.path.join(d, "data"), {
            "t10k-images-idx3-ubyte": None}), "--seeds", "1", "--epochs", "1"]
    add(t, "test images are a folder", images_folder, 1, ["t10k-images-idx3-ubyte", "folder"], torch=True)
    add(t, "good path: a generated MNIST-like set on the CPU", lambda d: [
        "--device", "cpu", "--mode", "eager", "--data", mnist_set(os.path.join(d, "data")), "--seeds", "1",
        "--epochs", "1", "--batch", "16"], 0, torch=True)
    t = "pytorch_cpu_mnist.py"
    add(t, "--threads 0", lambda d: ["--threads", "0"], 2, ["--threads"], torch=True)
    add(t, "no MNIST in --data", lambda d: ["--data", os.path.join(d, "none")], 1, ["train-images-idx3-ubyte",
                                                                                     "fetch_mnist"], torch=True)

    # -- race_pytorch.py, sine_table.py, ncu_step.py and the docs checkers ----------------------------
    t = "race_pytorch.py"
    add(t, "--lessons 09,09", lambda d: ["--lessons", "09,09", "--out", os.path.join(d, "race")], 2,
        ["--lessons", "twice"])
    add(t, "--out /dev/null", lambda d: ["--lessons", "09", "--out", "/dev/null", "--build", fake_build(
        os.path.join(d, "build"))], 1, ["--out", "/dev/null", "character device"])
    empty_path = tempfile.mkdtemp(prefix="no_tools_")  # PATH without nvidia-smi (or git)

    def no_smi(d):
        return ["--lessons", "09", "--runs", "1", "--epochs", "2", "--out", os.path.join(d, "race"),
                "--build", fake_build(os.path.join(d, "build"))]
    add(t, "no nvidia-smi on PATH, the course's trainer failing", no_smi, 1, ["lesson(s) 09 failed"],
        env={"PATH": empty_path}, outputs="race")
    add(t, "--runs 0", lambda d: ["--runs", "0"], 2, ["--runs"])
    t = "sine_table.py"
    add(t, "--hidden 5,x", lambda d: ["--build", d, "--out", d, "--hidden", "5,x"], 2, ["--hidden"])
    add(t, "--out is a regular file", lambda d: ["--build", fake_sine_build(d), "--out", write(
        os.path.join(d, "a_file"), "x")], 1, ["--out", "a_file"])
    t = "ncu_step.py"
    add(t, "--csv is a named pipe (FIFO)", lambda d: ["--csv", make_fifo(os.path.join(d, "ncu.csv"))], 1,
        ["ncu.csv", "named pipe"])
    add(t, "--csv that is not ncu's", lambda d: ["--csv", write(os.path.join(d, "ncu.csv"),
                                                                '"ID","x"\n"","u"\n"1","2"\n')], 1,
        ["ncu.csv", "not ncu's raw CSV"])
    add(t, "--csv that is not UTF-8", lambda d: ["--csv", write(os.path.join(d, "ncu.csv"), b"\xff\xfe")], 1,
        ["ncu.csv", "not UTF-8"])
    add("answer_check.py", "--lesson 1x", lambda d: ["--lesson", "1x"], 2, ["--lesson"])
    add("given_ratio.py", "--lessons x", lambda d: ["--lessons", "x"], 2, ["--lessons"])
    add("lesson_order.py", "--root with no lessons/", lambda d: ["--root", d], 2, ["--root", "lessons/"])
    add("course_check.py", "--bogus", lambda d: ["--bogus"], 2, ["--bogus"])
    add("progress.py", "--lesson 42 (no such lesson)", lambda d: ["--lesson", "42", "--no-build"], 2,
        ["there is no lesson '42'", "00_setup"])
    add("progress.py", "--bogus", lambda d: ["--bogus"], 2, ["--bogus"])
    add("run_tests.py", "--build-dir that is no build folder", lambda d: ["--build-dir", d], 1,
        ["not a configured build folder", "cmake --preset"])
    add("run_tests.py", "--lesson and --step together", lambda d: ["--build-dir", d, "--lesson", "01", "--step", "01.1"],
        2, ["--step", "--lesson"])
    add("answer_check.py", "good path: the course itself", lambda d: ["--root", ROOT], 0)
    add("course_wording.py", "good path: the course itself", lambda d: ["--root", ROOT], 0)
    add("course_wording.py", "--root that is no git clone", lambda d: ["--root", d], 1, ["git ls-files failed"])
    add("course_wording.py", "--bogus", lambda d: ["--bogus"], 2, ["--bogus"])
    add("measure.py", "run --lessons 1x", lambda d: ["run", "--out", d, "--lessons", "1x"], 2, ["--lessons"])
    add("measure.py", "run --build-dir with no bin/", lambda d: ["run", "--out", d, "--build-dir", d], 1,
        ["--build-dir", "no bin/"])
    add("measure.py", "run --commit that is no hash", lambda d: ["run", "--out", os.path.join(d, "o"), "--build-dir",
                                                                 os.path.dirname(os.path.dirname(
                                                                     write(os.path.join(d, "bin", "x"), "x"))),
                                                                 "--commit", "main"], 2, ["--commit"])
    add("measure.py", "write a folder that is not there", lambda d: ["write", os.path.join(d, "none")], 1,
        ["no such folder"])
    add("step_sizes.py", "--max -1", lambda d: ["--max", "-1"], 2, ["--max"])
    add("step_sizes.py", "--root with no lessons/", lambda d: ["--root", d], 2, ["--root", "lessons/"])
    return c, empty_path


def fake_sine_build(d):
    path = write(os.path.join(d, "build", "bin", "train_sine"), "#!/bin/sh\nexit 1\n")
    os.chmod(path, 0o755)
    return os.path.join(d, "build")


# ---- fuzzing the readers -------------------------------------------------------------------------

def mutate(rng, data):
    data = bytearray(data)
    if rng.random() < 0.2 and len(data) > 80:  # a new value in the data: still a good file
        data[rng.randrange(64, len(data))] = rng.randrange(256)
        return bytes(data)
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(6)
        if kind == 0 and data:  # flip a byte
            data[rng.randrange(len(data))] = rng.randrange(256)
        elif kind == 1 and data:  # cut
            del data[rng.randrange(len(data)):]
        elif kind == 2:  # append
            data += bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
        elif kind == 3 and data:  # a byte of the header or length
            data[rng.randrange(min(len(data), 24))] = rng.choice([0, 1, 2, 3, 8, 0x7f, 0x80, 0xff, ord("("),
                                                                  ord(")"), ord(","), ord("'"), ord("-")])
        elif kind == 4 and len(data) > 10:  # a word into the header
            at = rng.randrange(10, min(len(data), 90))
            word = rng.choice([b"-1", b"1e12", b"(", b")", b"'<U3'", b"True", b"{", b"}", b"'shape'", b"99999999999",
                               b"(1,2,3,4,5)", b"\n", b"\\", b"0x10"])
            data[at:at] = word
        elif kind == 5 and data:  # delete a range
            at = rng.randrange(len(data))
            del data[at:at + rng.randint(1, 8)]
    return bytes(data)


def fuzz(runs, seed):
    """Random mutations of good files through tool_io's .npy and IDX readers (the same code read_npy and
    read_idx run on a file): each is refused with one ToolError naming the input, or parsed to exactly
    what it declares. Anything else (another exception, a message on two lines, a wrong size) fails."""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import tool_io
    rng = random.Random(seed)
    seeds_npy = [npy_bytes("<f4", (3, 4), bytes(48)), npy_bytes("<i4", (5,), bytes(20)),
                 npy_bytes("|u1", (2, 3, 4), bytes(24)), npy_bytes("<f4", (), bytes(4)),
                 npy_bytes("<f4", (0, 7), b"")]
    seeds_idx = [idx_bytes([4, 3, 2], bytes(24)), idx_bytes([7], bytes(7)), idx_bytes([2, 2, 2, 2], bytes(16))]
    found = []
    counts = {"npy accepted": 0, "npy refused": 0, "idx accepted": 0, "idx refused": 0}
    for i in range(runs):
        for kind, pool in (("npy", seeds_npy), ("idx", seeds_idx)):
            data = mutate(rng, rng.choice(pool))
            try:
                if kind == "npy":
                    array = tool_io.parse_npy_bytes("input.npy", data, ("<f4", "<i4", "|u1"))
                    want = tool_io.NPY_ITEM_BYTES[array.descr] * array.size
                    if len(array.data) != want or any(type(d) is not int or d < 0 for d in array.shape):
                        found.append((kind, data, f"accepted, but {len(array.data)} bytes for shape {array.shape}"))
                else:
                    array = tool_io.parse_idx_bytes("input.idx", data)
                    size = 1
                    for d in array.dims:
                        size *= d
                    if len(array.data) != size or not 1 <= len(array.dims) <= 4:
                        found.append((kind, data, f"accepted, but {len(array.data)} bytes for {array.dims}"))
                counts[f"{kind} accepted"] += 1
            except tool_io.ToolError as e:
                message = str(e)
                line = tool_io.error_line(message)
                if "\n" in line or not message.startswith(f"input.{kind}: "):
                    found.append((kind, data, f"refused, but the message is {message!r}"))
                counts[f"{kind} refused"] += 1
            except Exception as e:  # anything else is a finding
                found.append((kind, data, f"{type(e).__name__}: {e}"))
    for kind, data, what in found[:10]:
        print(f"FINDING ({kind}): {what}; input {data[:120]!r}")
    print(f"fuzz_tool_io: {runs} mutations each of .npy and IDX files (seed {seed}): "
          + ", ".join(f"{v} {k}" for k, v in counts.items()) + f"; {len(found)} finding(s)")
    return 1 if found else 0


# ---- main ----------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", default=sys.executable, help="the interpreter that runs the tools")
    ap.add_argument("--tools", default=os.path.join(ROOT, "tools"), help="the tools' folder (default: the course's)")
    ap.add_argument("--markdown", help="write the table here")
    ap.add_argument("--only", help="only the cases whose tool or name holds this")
    ap.add_argument("--fuzz", type=int, help="fuzz the .npy and IDX readers with this many mutations instead")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.fuzz is not None:
        return fuzz(args.fuzz, args.seed)
    # The interpreter itself, not a wrapper (pyenv's shim is a bash script: a case with an empty PATH
    # could not start it).
    args.python = subprocess.run([args.python, "-c", "import sys; print(sys.executable)"], stdout=subprocess.PIPE,
                                 text=True, check=True).stdout.strip() or args.python
    root = tempfile.mkdtemp(prefix="course_tool_cases_")
    os.chmod(root, 0o755)  # a case run as another user (nobody) reaches its own folder
    all_cases, empty_path = cases(args.python)
    rows, failures = [], 0
    try:
        for number, case in enumerate(all_cases):
            if args.only and args.only not in case.tool + " " + case.name:
                continue
            folder = os.path.join(root, f"case{number:02d}")
            rc, line, problems = run_case(case, args.python, args.tools, folder)
            status = "ok" if not problems else "FAILED: " + "; ".join(problems)
            failures += bool(problems)
            rows.append((case.tool, case.name, rc, line.replace(root, "$TMP"), status))
            print(f"[{'ok' if not problems else 'FAILED'}] {case.tool}: {case.name}: exit {rc}: {line}"
                  + ("" if not problems else "\n        " + "\n        ".join(problems)), flush=True)
            if not problems:  # a FIFO or a read-only folder would stop rmtree of the next run
                shutil.rmtree(folder, ignore_errors=True)
        fuzz_rc = fuzz(500, args.seed) if not args.only else 0
        failures += fuzz_rc
        if args.markdown:
            lines = ["| tool | case | exit | the one `error:` line (or the good path's last line) | result |",
                     "|---|---|---:|---|---|"]
            for tool, name, rc, line, status in rows:
                lines.append(f"| {tool} | {name} | {rc} | `{line.replace('|', chr(92) + '|')}` | {status} |")
            with open(args.markdown, "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
        held = len(rows) - sum(1 for r in rows if r[4] != "ok")
        print(f"\n{held} of {len(rows)} tool cases hold" + ("" if not fuzz_rc else "; the fuzz loop found problems"))
        return 1 if failures else 0
    finally:
        for dirpath, dirnames, _ in os.walk(root):
            for name in dirnames:
                try:
                    os.chmod(os.path.join(dirpath, name), 0o755)
                except OSError:
                    pass
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(empty_path, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
