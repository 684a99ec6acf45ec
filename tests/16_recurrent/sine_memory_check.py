#!/usr/bin/env python3
"""train_sine asked for more than the machine holds: --test x --future values (each held-out wave
continued for --future steps), chosen from this machine's free memory so that they need about twice
what it has. The run must be refused in one "error:" line naming the flags, exit non-zero, before it
allocates (a cheap case: it takes well under a second and a few MB), and write nothing.

Usage: sine_memory_check.py TRAIN_SINE OUT_DIR
Exit status 0 when the case holds, 77 (skipped) where no value of the flags is more than the machine
holds (over 300 GiB free).
"""
import os
import resource
import shutil
import subprocess
import sys

TEST, SEQUENCES, MAX_FUTURE = 99999, 100000, 1000000  # the flags' largest held-out set and --future


def free_bytes():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def main():
    prog, out_dir = sys.argv[1], sys.argv[2]
    free = free_bytes()
    if free == 0 or free > 300 * 2**30:
        print(f"skipped: {free / 2**30:.0f} GiB free; the flags ask for about 372 GiB at most")
        return 77
    future = min(MAX_FUTURE, 2 * free // (4 * TEST) + 1)  # 4 bytes a generated value, every held-out wave
    shutil.rmtree(out_dir, ignore_errors=True)
    cmd = [prog, "--sequences", str(SEQUENCES), "--test", str(TEST), "--length", "3", "--hidden", "1",
           "--epochs", "1", "--future", str(future), "--out", out_dir]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(" ".join(cmd[1:]))
    print(p.stdout.strip())
    errors = [line for line in p.stdout.splitlines() if line.startswith("error:")]
    problems = []
    if p.returncode == 0 or p.returncode < 0:
        problems.append(f"exit status {p.returncode}")
    if len(errors) != 1:
        problems.append(f"{len(errors)} lines start with 'error:'")
    elif not all(w in errors[0] for w in (f"--test {TEST}", f"--future {future}", "has free")):
        problems.append("the error line does not name --test, --future and the free memory")
    if peak_kib > 512 * 1024:
        problems.append(f"it allocated before refusing: {peak_kib // 1024} MiB resident at its peak")
    if os.path.isdir(out_dir) and os.listdir(out_dir):
        problems.append(f"files left in {out_dir}: {os.listdir(out_dir)[:5]}")
    for problem in problems:
        print("FAILED:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
