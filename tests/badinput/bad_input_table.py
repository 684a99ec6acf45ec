#!/usr/bin/env python3
"""Bad input, table-driven: runs the trainers on generated bad data folders, bad flags and
unwritable or full outputs, and checks every case the same way:

  * the exit status is non-zero (and not a signal: no crash);
  * exactly one line starts with "error:", and it names the file, folder or flag at fault;
  * no stack trace or sanitizer report;
  * nothing is left half-written: no output file, and no temporary file, in the output folder.

Each program first runs once on a good generated data set, MNIST-like and CIFAR-10-like where it
reads CIFAR-10 (it must succeed), so a case cannot pass because the program fails on everything.

Usage: bad_input_table.py --lesson02 PROG --train PROG --train-mnist PROG [--train-beyond PROG] [--train-speedrun PROG]
                          [--train-deeper PROG] [--train-boxes PROG]
                          [--markdown FILE]
  --markdown writes the table (program, case, exit status, message) for docs/.
Exit status 0 when every case holds.
"""
import argparse
import os
import resource
import shutil
import signal
import socket
import stat
import struct
import subprocess
import sys
import tempfile

TIMEOUT = 120  # seconds per run: a program that blocks (e.g. reading a FIFO) fails the case
CRASH_WORDS = ("terminate called", "Aborted", "Segmentation fault", "core dumped", "AddressSanitizer",
               "runtime error:", "Traceback", "what():")


# ---- generated data sets ------------------------------------------------------------------------
def idx_bytes(dims, data):
    head = bytes([0, 0, 0x08, len(dims)]) + b"".join(struct.pack(">I", d) for d in dims)
    return head + bytes(data)


def write_set(folder, train=(64, 28, 28), test=(32, 28, 28), labels=None, files=None):
    """Four IDX files of random-looking pixels; `files` overrides any of them by name (bytes)."""
    os.makedirs(folder, exist_ok=True)
    out = {}
    for split, (n, h, w) in (("train", train), ("t10k", test)):
        pixels = [(i * 37 + 11) % 256 for i in range(n * h * w)]
        out[f"{split}-images-idx3-ubyte"] = idx_bytes([n, h, w], pixels)
        lab = labels if labels is not None and split == "train" else [i % 10 for i in range(n)]
        out[f"{split}-labels-idx1-ubyte"] = idx_bytes([len(lab)], lab)
    out.update(files or {})
    for name, content in out.items():
        path = os.path.join(folder, name)
        if content is None:
            continue
        with open(path, "wb") as f:
            f.write(content)
    return folder


def make_folder(folder):
    os.makedirs(folder, exist_ok=True)
    return folder


def good_set(root):
    return write_set(os.path.join(root, "good"))


def data_cases(root):
    """(name, folder, words the error line must contain)."""
    def d(name):
        return os.path.join(root, name)

    good = idx_bytes([64, 28, 28], [(i * 37 + 11) % 256 for i in range(64 * 28 * 28)])
    cases = [
        ("data folder missing", d("missing"), ["no mnist data set in", d("missing")]),
        ("data folder empty", make_folder(d("empty")), ["no mnist data set in", d("empty")]),
        ("train images cut short", write_set(d("cut"), files={"train-images-idx3-ubyte": good[:5000]}),
         ["train-images-idx3-ubyte"]),
        ("train labels: wrong magic", write_set(d("magic"), files={"train-labels-idx1-ubyte": b"\x01\x02\x03\x04" + b"\x00" * 68}),
         ["train-labels-idx1-ubyte"]),
        ("63 labels for 64 images", write_set(d("count"), labels=[i % 10 for i in range(63)]),
         ["train-labels-idx1-ubyte"]),
        ("a label of 10", write_set(d("label10"), labels=[i % 10 for i in range(63)] + [10]),
         ["train-labels-idx1-ubyte", "10"]),
        ("test images 14x14, train 28x28", write_set(d("test14"), test=(32, 14, 14)),
         ["t10k-images-idx3-ubyte", "14x14"]),
        ("test images 28x27, train 28x28", write_set(d("test2827"), test=(32, 28, 27)),
         ["t10k-images-idx3-ubyte", "28x27"]),
        ("1x1 images", write_set(d("one"), train=(64, 1, 1), test=(32, 1, 1)), ["1x1", d("one")]),
        ("no training images", write_set(d("zero"), train=(0, 28, 28)), ["train-images-idx3-ubyte"]),
    ]
    folder = write_set(d("dir"), files={"train-images-idx3-ubyte": None})
    os.makedirs(os.path.join(folder, "train-images-idx3-ubyte"))
    cases.append(("train images file is a folder", folder, ["train-images-idx3-ubyte"]))
    folder = write_set(d("fifo"), files={"train-images-idx3-ubyte": None})
    os.mkfifo(os.path.join(folder, "train-images-idx3-ubyte"))
    cases.append(("train images file is a FIFO", folder, ["train-images-idx3-ubyte"]))
    return cases


# ---- generated CIFAR-10 sets (--dataset cifar10) ---------------------------------------------------
CIFAR_RECORD = 3073  # 1 label byte, then 32 x 32 red, green and blue


def cifar_batch(records, bad_label_at=None):
    out = bytearray()
    for r in range(records):
        out.append(10 if r == bad_label_at else r % 10)
        out += bytes((i * 37 + r * 11) % 256 for i in range(CIFAR_RECORD - 1))
    return bytes(out)


def write_cifar_set(folder, files=None):
    """The six batch files (16 records each); `files` overrides any of them by name (bytes)."""
    os.makedirs(folder, exist_ok=True)
    out = {f"data_batch_{i}.bin": cifar_batch(16) for i in range(1, 6)}
    out["test_batch.bin"] = cifar_batch(16)
    out.update(files or {})
    for name, content in out.items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(content)
    return folder


def cifar_cases(root):
    """(name, folder, words the error line must contain), read with --dataset cifar10."""
    def d(name):
        return os.path.join(root, name)

    return [
        ("cifar10: data folder missing", d("cifar_missing"), ["no cifar10 data set in", d("cifar_missing")]),
        ("cifar10: a training batch cut short", write_cifar_set(d("cifar_cut"), files={
            "data_batch_3.bin": cifar_batch(16)[:-100]}), ["data_batch_3.bin", "left over"]),
        ("cifar10: an empty test batch", write_cifar_set(d("cifar_empty"), files={"test_batch.bin": b""}),
         ["test_batch.bin", "empty file"]),
        ("cifar10: a label of 10", write_cifar_set(d("cifar_label10"), files={
            "data_batch_2.bin": cifar_batch(16, bad_label_at=5)}), ["data_batch_2.bin", "label 10 in record 5"]),
    ]


FLAG_CASES = [  # (name, arguments, words the error line must contain)
    ("--epochs 0", ["--epochs", "0"], ["--epochs"]),
    ("--epoch 2 (misspelt)", ["--epoch", "2"], ["--epoch", "did you mean --epochs"]),
    ("--lr abc", ["--lr", "abc"], ["--lr"]),
    ("--lr 0", ["--lr", "0"], ["--lr"]),
    ("--batch -1", ["--batch", "-1"], ["--batch"]),
    ("--seed above its maximum", ["--seed", "4611686018427387905"], ["--seed"]),
    ("--seed 12abc", ["--seed", "12abc"], ["--seed"]),
    ("--model z", ["--model", "z"], ["--model"]),
    ("--epochs without a value", ["--epochs"], ["--epochs"]),
    ("a stray argument", ["stray"], ["stray"]),
    # Echoed text stays on one line, its control characters escaped.
    ("--model with a line break and a terminal escape", ["--model", "relu\ndense10\x1b[31m"],
     ["--model", "relu\\ndense10\\x1b[31m"]),
]
# Only for the trainers of lessons 02-11: a layer they do not run is refused at the flag.
LESSON02_FLAG_CASES = [
    ("--model with a sigmoid layer", ["--model", "dense100,sigmoid,dense10"], ["--model", "'sigmoid'", "conv, relu, pool and dense"]),
    # Six layers of 8192 x 412 x 412 values an example at batch 16: about 1,500 GiB of buffers, far more
    # than any machine the course runs on holds (one such layer, about 250 GiB, is about what a machine
    # of 256 GiB has free: there the case would not be bad input).
    ("--model too large for the memory",
     ["--model", "conv1x1x1p64,conv1x1x1p64,conv1x1x8192p64," + "conv1x1x8192," * 5 + "pool64,dense10"],
     ["GiB", "has free", "smaller --batch"]),
    ("--model with a tensor past an int", ["--model", "conv1x1x1p64,conv1x1x65536p50,dense10"],
     ["layer 2", "4294967296 values"]),
]
# Only for lesson 12's train_beyond: its own flags.
BEYOND_FLAG_CASES = [
    # 64 threads of lesson 11's layers in 600 MB of address space: the pool cannot start them all.
    ("a thread limit (ulimit -v 600 MB, --threads 64)", ["--threads", "64", "--batch", "64"],
     ["cannot start thread", "fewer --threads"], ("address space", 600000)),
    ("--rho 1.5", ["--rho", "1.5"], ["--rho"]),
    ("--model with dropout1", ["--model", "dense100,dropout1,dense10"], ["--model", "dropout1", "0 <= rate < 1"]),
]
# Only for lesson 15's train_deeper: its layers and its own flags.
DEEPER_FLAG_CASES = [
    ("--model with a res( never closed", ["--model", "conv3x3x8p1,res(conv3x3x8p1,bn,globalavg,dense10"],
     ["--model", "without its ')'"]),
    ("--model with a block no shortcut matches", ["--model", "res(conv3x3x8),globalavg,dense10"],
     ["no strided 1x1 projection"]),
    ("--threads 2000", ["--threads", "2000"], ["--threads"]),
    ("--lr-drops past the last epoch", ["--lr-drops", "2,5", "--epochs", "3"], ["--lr-drops", "outside [2, 3]"]),
    ("--lr-drops not increasing", ["--lr-drops", "3,2", "--epochs", "3"], ["--lr-drops", "must increase"]),
    ("--branches maybe", ["--branches", "maybe"], ["--branches", "on|off"]),
]
# Only for lesson 15's train_boxes: its own flags.
BOXES_FLAG_CASES = [
    ("--model not ending in dense4", ["--model", "conv3x3x8p1,relu,pool2,dense10"], ["--model", "dense4"]),
    ("--beta 0", ["--beta", "0"], ["--beta"]),
    ("--loss huber", ["--loss", "huber"], ["--loss"]),
    ("--write-canvases over earlier canvases", ["--write-canvases", "@OUT@"], ["train_canvases.npy", "there already"],
     None, lambda d: open(os.path.join(d, "train_canvases.npy"), "w").close()),
]
# Only for lesson 14's train_speedrun: its own flags.
SPEEDRUN_FLAG_CASES = [
    ("--shift 9", ["--shift", "9"], ["--shift"]),
    ("--val as large as the training set", ["--val", "64"], ["--val 64"]),
    ("--model with a pool after tanh", ["--model", "conv3x3x8,tanh,pool2,dense10"], ["--model", "pool2"]),
]


# ---- memory and layer lists: rows of their own ---------------------------------------------------
def free_memory_bytes():
    """MemAvailable of /proc/meminfo, 0 when it cannot be read."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def past_memory_model():
    """A network that needs twice this machine's free memory or more, but only once the im2col
    workspace is counted (at the training batch alone; the evaluation's batch adds more): conv1x1x<C>
    then a 64 x 64 convolution padded by 64 (C x 4096 taps, 93 x 93 outputs: C x 142 MB of workspace
    an image, C x 2.3 GB at a batch of 16). Its activations and weights are a few MB, so an estimate of
    those alone lets it through, and then it grows until the kernel kills it. None where the free
    memory cannot be read."""
    free = free_memory_bytes()
    if free == 0:
        return None
    channels = 2 * free // (16 * 4096 * 93 * 93 * 4) + 1
    return f"conv1x1x{channels},conv64x64x1p64,dense10"


def model_rows(program, good, root):
    """Rows (case, rc, line, problems) for the memory check and the layer lists: a model past the
    memory (the CPU trainers on lesson 11's layers: their workspaces), an @file larger than any
    network description, and a layer list with line breaks, which trains and is echoed on one line."""
    if program.name != "lesson02_host_training" and "--device cpu" not in program.name:
        return []  # the CPU trainers (the GPU's memory check is another one)
    out_dir = os.path.join(root, "out_model_rows")
    rows = []
    model = past_memory_model()
    if model and program.name != "lesson02_host_training":  # lesson 01's loops take no workspace
        shutil.rmtree(out_dir, ignore_errors=True)
        rc, out = run([*program.cmd, "--data", good, "--model", model, "--out", out_dir])
        problems, line = check(rc, out, ["GiB", "has free", model], out_dir)
        if "epoch 1/" in out:
            problems.append("it trained before it refused")
        rows.append(("a model past the free memory once its im2col workspace is counted (2x or more)", rc, line,
                     problems))
    big = os.path.join(root, "relu_2MB.txt")
    if not os.path.exists(big):
        with open(big, "w") as f:
            f.write("relu," * 400000 + "dense10\n")
    shutil.rmtree(out_dir, ignore_errors=True)
    rc, out = run([*program.cmd, "--data", good, "--model", "@" + big, "--out", out_dir])
    problems, line = check(rc, out, ["--model", big, "bytes, more than the 1048576"], out_dir)
    rows.append(("--model @file of 2 MB of 'relu,'", rc, line, problems))
    # Not bad input: line breaks between layers are whitespace; what the run prints is one line.
    shutil.rmtree(out_dir, ignore_errors=True)
    text = "conv3x3x8p1,relu,pool2\n,dense10\n"
    rc, out = run([*program.cmd, "--data", good, "--model", text, "--out", out_dir])
    problems = [] if rc == 0 else [f"exit {rc}: {out[-400:]!r}"]
    canonical = "conv3x3x8p1,relu,pool2,dense10"
    if not any(line.startswith("model " + canonical) for line in out.splitlines()):
        problems.append(f"no line 'model {canonical} ...' in the output")
    if any(line.startswith(",dense10") or line.startswith("dense10") for line in out.splitlines()):
        problems.append("the model is echoed across two lines")
    rows.append(("--model with a line break before a comma: trains, echoed on one line", rc,
                 f"(no error: model {canonical})", problems))
    shutil.rmtree(out_dir, ignore_errors=True)
    return rows


class Program:
    """A trainer under test and what it takes: CIFAR-10, --save, the file its run writes, its own flags."""

    # skip: the names of cases that are not bad input for this program (its network takes 1x1 images).
    # picture: a picture it draws after training.
    def __init__(self, name, cmd, own_flags, cifar=True, save=True, writes="metrics.csv", skip=(),
                 picture="confusion.png"):
        self.name, self.cmd, self.own_flags = name, cmd, own_flags
        self.cifar, self.save, self.writes, self.skip, self.picture = cifar, save, writes, set(skip), picture


# ---- running one case ---------------------------------------------------------------------------
def limit_file_size(kib):
    def apply():
        # SIGXFSZ keeps its default action (subprocess restores it): the program must ignore it itself,
        # so that a write past the limit fails with EFBIG and is reported instead of killing it.
        resource.setrlimit(resource.RLIMIT_FSIZE, (kib * 1024, kib * 1024))
    return apply


def limit_address_space(kib):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (kib * 1024, kib * 1024))
    return apply


def run(cmd, file_limit_kib=None, address_space_kib=None):
    preexec = None
    if file_limit_kib is not None:
        preexec = limit_file_size(file_limit_kib)
    elif address_space_kib is not None:
        preexec = limit_address_space(address_space_kib)
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=TIMEOUT,
                           preexec_fn=preexec)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return "timeout", out


def files_in(folder):
    found = []
    for dirpath, _, names in os.walk(folder):
        found += [os.path.relpath(os.path.join(dirpath, n), folder) for n in names]
    return sorted(found)


def interrupted_rerun(prog, good, root):
    """A finished run, then a longer rerun into the same folders stopped by Ctrl-C after its first
    epoch: the rerun's files stand beside the earlier run's, so neither folder may keep a run.txt
    (the manifest of a finished run), and every file there must be whole. Returns (rc, line, problems)."""
    out_dir = os.path.join(root, "out_rerun")
    shutil.rmtree(out_dir, ignore_errors=True)
    save_dir = os.path.join(out_dir, "npy")
    rc, out = run([*prog, "--data", good, "--out", out_dir, "--save", save_dir])
    problems = []
    if rc != 0 or not os.path.isfile(os.path.join(out_dir, "run.txt")) or \
            not os.path.isfile(os.path.join(save_dir, "run.txt")):
        return rc, "", [f"the first run did not finish with a run.txt in both folders (exit {rc})"]
    longer = list(prog)
    longer[longer.index("--epochs") + 1] = "500"
    p = subprocess.Popen([*longer, "--data", good, "--out", out_dir, "--save", save_dir],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seen = ""
    for line in p.stdout:
        seen += line
        if line.startswith("epoch 1/500 "):  # metrics.csv now holds the rerun's first epoch
            p.send_signal(signal.SIGINT)
            break
    p.stdout.close()
    rc = p.wait(timeout=TIMEOUT)
    if rc != -2:
        problems.append(f"the rerun did not end by Ctrl-C (exit {rc}): {seen[-300:]!r}")
    for folder in (out_dir, save_dir):
        if os.path.exists(os.path.join(folder, "run.txt")):
            problems.append(f"{os.path.relpath(folder, root)}/run.txt is still there: the mixed set looks finished")
    problems += partial_files(out_dir)
    return rc, "(stopped by Ctrl-C: no error line) no run.txt left; every file whole", problems


def can_make_device_node(root):
    """Whether this process may create a device node (root, and a container that allows mknod)."""
    probe = os.path.join(root, "device_probe")
    try:
        os.mknod(probe, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except OSError:
        return False
    os.remove(probe)
    return True


def make_socket(folder):
    """A Unix socket file at folder/run.txt (no root needed, unlike a device node)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.bind(os.path.join(folder, "run.txt"))


# ---- outputs checked before any is touched; data folders; a large file --------------------------
def as_nobody_prefix():
    """The command prefix that runs a program as the user nobody, when this process is root and
    setpriv is there (permission cases: root reads and replaces anything); None otherwise."""
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or not setpriv:
        return None
    probe = subprocess.run([setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "true"])
    return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"] if probe.returncode == 0 else None


LOCKED = []  # folders a case made unreadable: opened again before the temporary folder is removed


def folder_cases(prog_root, root, good, writes):
    """Cases in the table's form: a --data that is no readable folder, and an output that this user
    may not replace (another user's file in a sticky folder, like /tmp). The permission cases run
    as the user nobody when this is root (root passes every permission check)."""
    nobody = as_nobody_prefix()
    if nobody:
        os.chmod(root, 0o711)  # nobody may pass through to the data and the output folder
    a_file = os.path.join(prog_root, "data_is_a_file")
    with open(a_file, "wb") as f:
        f.write(b"not a folder\n")
    dangling = os.path.join(prog_root, "data_dangling")
    os.symlink(os.path.join(prog_root, "no_such_folder"), dangling)
    cases = [
        ("--data is a regular file", ["--data", a_file], ["no mnist data set in", a_file, "regular file, not a folder"],
         None, None),
        ("--data is a dangling symbolic link", ["--data", dangling],
         ["no mnist data set in", dangling, "symbolic link", "does not exist"], None, None),
    ]
    locked = write_set(os.path.join(prog_root, "data_locked"))
    os.chmod(locked, 0)
    LOCKED.append(locked)
    words = ["no mnist data set in", locked, "cannot be read", "Permission denied"]
    if os.geteuid() != 0:
        cases.append(("--data folder without permission (chmod 000)", ["--data", locked], words, None, None))
    elif nobody:
        cases.append(("--data folder without permission (chmod 000; run as nobody)", ["--data", locked], words,
                      ("user", nobody), None))

        def sticky(folder, w=writes):
            os.chmod(folder, 0o1777)
            with open(os.path.join(folder, w), "w") as f:  # root's, from an earlier run
                f.write("an earlier run's file\n")

        cases.append((f"another user's {writes} in a sticky --out folder (mode 1777; run as nobody)", ["--data", good],
                      [writes, "cannot be replaced", "sticky"], ("user", nobody), sticky))
    return cases


def snapshot(folder):
    """Every file under folder with its bytes."""
    return {rel: open(os.path.join(folder, rel), "rb").read() for rel in files_in(folder)}


def refused_reruns(prog, good, root, blocker):
    """A finished run (--out OUT --save OUT/npy), then runs into the same folders that are refused:
    every output is checked before any is touched, so the earlier run's files, run.txt too, stay
    byte for byte. An output that is a file of the other folder (OUT/run.txt, SAVE/test_logits.npy)
    is refused before training. Returns rows (case, rc, line, problems)."""
    out_dir = os.path.join(root, "out_refused")
    shutil.rmtree(out_dir, ignore_errors=True)
    save_dir = os.path.join(out_dir, "npy")
    rc, out = run([*prog, "--data", good, "--out", out_dir, "--save", save_dir])
    if rc != 0 or not os.path.isfile(os.path.join(out_dir, "run.txt")) or \
            not os.path.isfile(os.path.join(save_dir, "run.txt")):
        return [("a finished run, then refused ones", rc, "",
                 [f"the first run did not finish with a run.txt in both folders (exit {rc})"])]
    before = snapshot(out_dir)
    refusals = [
        ("--save names a regular file", ["--out", out_dir, "--save", blocker], ["--save", blocker]),
        ("--save OUT/run.txt", ["--out", out_dir, "--save", os.path.join(out_dir, "run.txt")],
         ["--save", "is where --out writes run.txt"]),
        ("--save inside OUT/metrics.csv", ["--out", out_dir, "--save", os.path.join(out_dir, "metrics.csv", "npy")],
         ["--save", "is inside", "metrics.csv, a file --out writes"]),
        ("--out SAVE/run.txt", ["--out", os.path.join(save_dir, "run.txt"), "--save", save_dir],
         ["--out", "is where --save writes run.txt"]),
        ("--out SAVE/test_logits.npy", ["--out", os.path.join(save_dir, "test_logits.npy"), "--save", save_dir],
         ["--out", "is where --save writes test_logits.npy"]),
    ]
    rows = []
    for name, extra, words in refusals:
        rc, out = run([*prog, "--data", good, *extra])
        problems, line = check(rc, out, words, os.path.join(root, "nothing_here"))
        after = snapshot(out_dir)
        changed = sorted(set(before) ^ set(after) | {f for f in before if f in after and before[f] != after[f]})
        if changed:
            problems.append(f"the finished run's files changed: {', '.join(changed[:5])}")
        if "epoch 1/" in out:
            problems.append("it trained before it refused")
        rows.append((f"after a finished run: {name}", rc, line, problems))
    return rows


def big_file_runs(prog, root, limit_kib=600000):
    """A training-image file of 3.8 million images (3 GB, a sparse file: no disk taken) in 600 MB of
    address space: --train-limit 64 reads only those 64 images and trains; without a limit the
    images are refused before they are allocated, naming the file and --train-limit. Rows as above."""
    folder = os.path.join(root, "big")
    if not os.path.isdir(folder):
        count, side, kept = 3800000, 28, 64
        write_set(folder, files={"train-labels-idx1-ubyte": idx_bytes([count], bytes(i % 10 for i in range(count)))})
        images = os.path.join(folder, "train-images-idx3-ubyte")
        with open(images, "wb") as f:
            f.write(idx_bytes([count, side, side], [(i * 37 + 11) % 256 for i in range(kept * side * side)]))
            f.truncate(16 + count * side * side)
    out_dir = os.path.join(root, "out_big")
    rows = []
    shutil.rmtree(out_dir, ignore_errors=True)
    rc, out = run([*prog, "--data", folder, "--train-limit", "64", "--out", out_dir], address_space_kib=limit_kib)
    problems = [] if rc == 0 else [f"exit {rc}: {out[-400:]!r}"]
    rows.append(("--train-limit 64 of a 3 GB training-image file (ulimit -v 600 MB): trains", rc,
                 "(no error: it reads only the 64 images)", problems))
    shutil.rmtree(out_dir, ignore_errors=True)
    rc, out = run([*prog, "--data", folder, "--out", out_dir], address_space_kib=limit_kib)
    problems, line = check(rc, out, ["train-images-idx3-ubyte", "host memory available", "--train-limit"], out_dir)
    rows.append(("a 3 GB training-image file, no --train-limit (ulimit -v 600 MB)", rc, line, problems))
    return rows


def check(rc, output, words, out_dir, prepared=()):
    """The problems of one run (empty when the case holds) and its error line. `prepared`: files the
    case put in the output folder itself (they may stay)."""
    problems = []
    if rc == "timeout":
        problems.append(f"still running after {TIMEOUT} s")
    elif rc == 0:
        problems.append("exit status 0")
    elif rc < 0 or rc >= 128:
        problems.append(f"killed by a signal (status {rc})")
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    if len(errors) != 1:
        problems.append(f"{len(errors)} lines start with 'error:'")
    line = errors[0] if errors else ""
    for w in words:
        if w not in line:
            problems.append(f"the error line does not name '{w}'")
    for w in CRASH_WORDS:
        if w in output:
            problems.append(f"the output holds '{w}'")
    left = [f for f in files_in(out_dir) if f not in prepared] if os.path.isdir(out_dir) else []
    if left:
        problems.append(f"files left in the output folder: {', '.join(left[:5])}")
    return problems, line


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lesson02", required=True, help="lesson02_host_training")
    ap.add_argument("--train", required=True, help="the course's train program (its CPU path: the CPU trainer)")
    ap.add_argument("--train-mnist", required=True, help="lesson 08's train_mnist (solutions build; runs only with a GPU)")
    ap.add_argument("--train-beyond", help="lesson 12's train_beyond (solutions build), when it is built")
    ap.add_argument("--train-speedrun", help="lesson 14's train_speedrun (solutions build; runs only with a GPU)")
    ap.add_argument("--train-deeper", help="lesson 15's train_deeper (solutions build), when it is built")
    ap.add_argument("--train-boxes", help="lesson 15's train_boxes (solutions build; runs only with a GPU)")
    ap.add_argument("--markdown", help="write the table here")
    args = ap.parse_args()

    root = tempfile.mkdtemp(prefix="course_bad_input_")
    try:
        good = good_set(root)
        good_cifar = write_cifar_set(os.path.join(root, "good_cifar"))
        quick = ["--epochs", "1", "--batch", "16"]
        programs = [Program("lesson02_host_training", [args.lesson02, *quick], LESSON02_FLAG_CASES),
                    Program("train --device cpu", [args.train, "--device", "cpu", *quick], LESSON02_FLAG_CASES)]
        if args.train_beyond:  # its default network, mnist_cnn, with dropout and Adadelta
            programs.append(Program("train_beyond --device cpu", [args.train_beyond, "--device", "cpu", *quick],
                                    BEYOND_FLAG_CASES))
        if args.train_deeper:  # its default network, ResNet-20
            # ResNet-20's padded convolutions take any image, 1 x 1 too: not bad input for it.
            programs.append(Program("train_deeper --device cpu",
                                    [args.train_deeper, "--device", "cpu", "--dataset", "mnist", *quick],
                                    DEEPER_FLAG_CASES, skip=["1x1 images"]))
        # The GPU path too, where there is a GPU (the same checks, the GPU's own code path).
        rc, out = run([args.train_mnist, "--data", good, "--out", os.path.join(root, "probe"), *quick])
        if rc == 0:
            programs.append(Program("train_mnist", [args.train_mnist, *quick],
                                    LESSON02_FLAG_CASES))
            if args.train_deeper:
                programs.append(Program("train_deeper --device gpu",
                                        [args.train_deeper, "--device", "gpu", "--dataset", "mnist", *quick],
                                        DEEPER_FLAG_CASES, skip=["1x1 images"]))
            if args.train_speedrun:  # GPU only; MNIST-like data (no CIFAR-10), no --save, runs.csv
                programs.append(Program("train_speedrun", [args.train_speedrun, "--seeds", "1", *quick],
                                        SPEEDRUN_FLAG_CASES, cifar=False, save=False, writes="runs.csv"))
            if args.train_boxes:  # GPU only; draws MNIST-like digits on its canvases (no CIFAR-10)
                programs.append(Program("train_boxes", [args.train_boxes, *quick], BOXES_FLAG_CASES, cifar=False,
                                        picture="boxes.png"))
        gpu_only = ["train_mnist"] + [name for name, given in (("train_speedrun", args.train_speedrun),
                                                               ("train_boxes", args.train_boxes)) if given]
        gpu_note = "" if rc == 0 else " and ".join(gpu_only) + ": not run (no usable GPU here)"

        rows, failures = [], 0
        for program in programs:  # the memory check and the layer lists (model_rows)
            for name, rc, line, problems in model_rows(program, good, root):
                status = "ok" if not problems else "FAILED: " + "; ".join(problems)
                failures += bool(problems)
                rows.append((program.name, name, rc, line, status))
                print(f"[{'ok' if not problems else 'FAILED'}] {program.name}: {name}: exit {rc}: {line}"
                      + ("" if not problems else f"\n        {status}"))
        for program in programs:
            prog_name, prog = program.name, program.cmd
            # The good data set must train, or every case below would pass for the wrong reason.
            out_dir = os.path.join(root, "out_good")
            rc, out = run([*prog, "--data", good, "--out", out_dir])
            if rc != 0:
                print(f"FAILED: {prog_name} does not run on the good data set (exit {rc}):\n{out[-2000:]}")
                return 1
            shutil.rmtree(out_dir)
            if program.cifar:
                rc, out = run([*prog, "--dataset", "cifar10", "--data", good_cifar, "--out", out_dir])
                if rc != 0:
                    print(f"FAILED: {prog_name} does not run on the good CIFAR-10 set (exit {rc}):\n{out[-2000:]}")
                    return 1
                shutil.rmtree(out_dir)

            prog_root = os.path.join(root, prog_name.replace(" ", "_"))
            cases = [(name, ["--data", folder], words, None, None) for name, folder, words in data_cases(prog_root)
                     if name not in program.skip]
            if program.cifar:
                cases += [(name, ["--dataset", "cifar10", "--data", folder], words, None, None)
                          for name, folder, words in cifar_cases(prog_root)]
            cases += [(c[0], ["--data", good, *c[1]], c[2], c[3] if len(c) > 3 else None, c[4] if len(c) > 4 else None)
                      for c in FLAG_CASES + program.own_flags if c[0] not in program.skip]
            blocker = os.path.join(root, "a_file")
            open(blocker, "w").close()
            cases += [
                ("--out inside a regular file", ["--data", good, "--out", os.path.join(blocker, "out")], [blocker], None,
                 None),
                ("--out with a line break and 'error:' in it", ["--data", good, "--out",
                                                               os.path.join(blocker, "x\nerror: fake")],
                 [blocker, "x\\nerror: fake"], None, None),
                ("full disk (file size limit 0)", ["--data", good], [program.writes], 0, None),
            ]
            # What is at an output's name and is not a regular file stops the run before it works.
            writes = program.writes
            cases += [
                (f"{writes} is a named pipe (FIFO)", ["--data", good], [writes, "named pipe"], None,
                 lambda d, w=writes: os.mkfifo(os.path.join(d, w))),
                (f"{writes} is a symbolic link", ["--data", good], [writes, "symbolic link"], None,
                 lambda d, w=writes: os.symlink(os.path.join(root, "a_file"), os.path.join(d, w))),
                (f"{writes} is a folder", ["--data", good], [writes, "is a folder"], None,
                 lambda d, w=writes: os.mkdir(os.path.join(d, w))),
                ("run.txt is a socket", ["--data", good], ["run.txt", "socket"], None, make_socket),
            ]
            cases += folder_cases(prog_root, root, good, writes)
            if can_make_device_node(root):  # root, where the container allows it: a twin of /dev/null
                cases.append((f"{writes} is a device (a twin of /dev/null)", ["--data", good],
                              [writes, "character device"], None,
                              lambda d, w=writes: os.mknod(os.path.join(d, w), 0o666 | stat.S_IFCHR, os.makedev(1, 3))))
            if program.save:
                cases += [
                    ("--save inside a regular file", ["--data", good, "--save", os.path.join(blocker, "npy")], [blocker],
                     None, None),
                    ("full disk (file size limit 64 KiB, --save)", ["--data", good, "--save", "@OUT@/npy"], [".npy"], 64,
                     None),
                    ("--save and a picture's name taken by a folder", ["--data", good, "--save", "@OUT@/npy"],
                     [program.picture, "is a folder"], None,
                     lambda d, p=program.picture: os.mkdir(os.path.join(d, p))),
                ]
            for name, extra, words, limit, prepare in cases:
                out_dir = os.path.join(root, "out_case")
                shutil.rmtree(out_dir, ignore_errors=True)
                prepared = ()
                if prepare:
                    os.makedirs(out_dir)
                    prepare(out_dir)
                    prepared = tuple(files_in(out_dir))
                extra = [a.replace("@OUT@", out_dir) for a in extra]
                cmd = [*prog, *extra]
                if "--out" not in extra:
                    cmd += ["--out", out_dir]
                if isinstance(limit, tuple):  # ("address space", KiB): threads that cannot start
                    # ("user", prefix): run as another user (folder_cases)
                    rc, out = run(cmd, address_space_kib=limit[1]) if limit[0] == "address space" else run([*limit[1], *cmd])
                    limit = None
                else:
                    rc, out = run(cmd, limit)
                if limit is not None:
                    # A full disk stops the run part-way: what it wrote before must be whole files.
                    problems, line = check(rc, out, words, os.path.join(root, "nothing_here"))
                    problems += [p for p in partial_files(out_dir)]
                else:
                    problems, line = check(rc, out, words, out_dir, prepared)
                status = "ok" if not problems else "FAILED: " + "; ".join(problems)
                failures += bool(problems)
                rows.append((prog_name, name, rc, line, status))
                print(f"[{'ok' if not problems else 'FAILED'}] {prog_name}: {name}: exit {rc}: {line}"
                      + ("" if not problems else f"\n        {status}\n        output: {out[-600:]!r}"))
            if program.save:  # the CPU trainers and train_mnist: a rerun stopped part-way
                rc, line, problems = interrupted_rerun(prog, good, root)
                status = "ok" if not problems else "FAILED: " + "; ".join(problems)
                failures += bool(problems)
                rows.append((prog_name, "rerun over a finished run, Ctrl-C after its first epoch", rc, line, status))
                print(f"[{'ok' if not problems else 'FAILED'}] {prog_name}: interrupted rerun: exit {rc}: {line}"
                      + ("" if not problems else f"\n        {status}"))
                more = refused_reruns(prog, good, root, blocker)
            else:
                more = []
            if prog_name == "lesson02_host_training" or "--device cpu" in prog_name:  # the CPU path: a large file
                # Two threads: the case is about the file, and each thread's stack and allocator arena
                # take address space of their own (16 threads do not fit in 600 MB with the data).
                threads = [] if prog_name == "lesson02_host_training" else ["--threads", "2"]
                more += big_file_runs([*prog, *threads], root)
            for name, rc, line, problems in more:
                status = "ok" if not problems else "FAILED: " + "; ".join(problems)
                failures += bool(problems)
                rows.append((prog_name, name, rc, line, status))
                print(f"[{'ok' if not problems else 'FAILED'}] {prog_name}: {name}: exit {rc}: {line}"
                      + ("" if not problems else f"\n        {status}"))
        if gpu_note:
            print(gpu_note)
        if args.markdown:  # the temporary folder's name changes from run to run: $TMP in the table
            write_markdown(args.markdown, [(p, n, rc, line.replace(root, "$TMP"), st) for p, n, rc, line, st in rows],
                           gpu_note)
        print(f"\n{len(rows) - failures} of {len(rows)} bad-input cases hold")
        return 1 if failures else 0
    finally:
        for folder in LOCKED:  # unreadable folders of the cases, so that they can be removed
            os.chmod(folder, 0o755)
        shutil.rmtree(root, ignore_errors=True)


def partial_files(folder):
    """Files under a final name that are not whole: a PNG without its end chunk, a CSV whose last line
    is cut, an .npy shorter than its header says; and any temporary file."""
    problems = []
    for rel in files_in(folder) if os.path.isdir(folder) else []:
        path = os.path.join(folder, rel)
        data = open(path, "rb").read()
        if ".tmp" in os.path.basename(rel):
            problems.append(f"temporary file left: {rel}")
        elif rel.endswith(".png") and not data.endswith(b"IEND\xaeB`\x82"):
            problems.append(f"cut PNG: {rel}")
        elif rel.endswith(".csv") and (not data.endswith(b"\n") or len(data.splitlines()[0].split(b",")) !=
                                       len(data.splitlines()[-1].split(b","))):
            problems.append(f"cut CSV: {rel}")
        elif rel.endswith(".npy"):
            header_len = struct.unpack("<H", data[8:10])[0] if len(data) >= 10 else 0
            shape_text = data[10:10 + header_len].decode(errors="replace")
            dims = shape_text.split("(")[1].split(")")[0] if "(" in shape_text else ""
            count = 1
            for d in (x for x in dims.split(",") if x.strip()):
                count *= int(d)
            if len(data) != 10 + header_len + 4 * count:
                problems.append(f"cut .npy: {rel}")
    return problems


def write_markdown(path, rows, gpu_note):
    lines = ["| program | case | exit | the one `error:` line | result |", "|---|---|---:|---|---|"]
    for prog, name, rc, line, status in rows:
        line = line.replace("|", "\\|")
        lines.append(f"| {prog} | {name} | {rc} | `{line}` | {status} |")
    if gpu_note:
        lines += ["", gpu_note]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
