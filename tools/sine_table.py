#!/usr/bin/env python3
"""Lesson 16's timing table and loss-curve check, on a machine with a GPU (and PyTorch for its rows).

For each --hidden size: train_sine on the CPU (lesson 11's threads), on one GPU with 16.2's steps and
16.3's persistent recurrence (CUDA graphs), on two GPUs with 16.3 where the machine has two (lesson
13's data parallelism over the waves: --gpus 2), and tools/pytorch_sine.py (nn.LSTM on cuDNN, the whole
step in a CUDA graph, fused Adam; strict FP32 and TF32 allowed) from the course's own starting
weights: the median seconds of an epoch (one Adam step on all 97 training waves of 999 steps). Then
the loss curves: train_sine (persistent) and PyTorch from the same weights for --curve-epochs epochs,
the largest relative difference of the training loss, epoch by epoch.

usage: tools/sine_table.py --build build/solutions --out DIR [--hidden 5,51,256,1024] [--epochs 20]
       [--large-epochs 10] [--cpu-epochs 2] [--cpu-short-from 1024] [--curve-epochs 300] [--no-pytorch]
       [--two-gpus auto|on|off] [--small-lr-from 1024] [--small-lr 0.001]
Sizes of 256 units and more run --large-epochs epochs; from --small-lr-from units (default 1024) every
run trains with Adam's lr --small-lr (default 0.001): at 0.01 the first step overshoots (the training
loss jumps to about 86) and the runs diverge, each its own way. The CPU at --cpu-short-from units and more runs
waves of 100 values and its time is scaled by 999/99 (an epoch's work grows with the steps; marked *).
Writes DIR/sine_table.md and DIR/sine_table.csv, prints the table, and draws it in DIR/sine_table.png
(programs/chart_csv, where it is built). Errors are one line "error: ..." (tools/tool_io.py); the tables
are written whole.
"""
import argparse
import csv
import io
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tool_io  # noqa: E402


def run(cmd, log):
    with open(log, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
        except OSError as e:
            tool_io.fail(f"{' '.join(cmd)}: cannot be run ({tool_io.os_problem(e)})")
        f.write(p.stdout)
    if p.returncode != 0:
        tool_io.fail(f"{' '.join(cmd)} failed (exit {p.returncode}): {p.stdout.strip().splitlines()[-1:]}")
    return p.stdout


def gpu_count():
    try:
        out = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    except OSError:
        return 0
    return sum(1 for line in out.splitlines() if line.startswith("GPU "))


def median_of(text):
    m = re.search(r"median epoch ([0-9.]+)", text)
    if not m:
        sys.exit("error: no 'median epoch' in the output:\n" + text[-400:])
    return float(m.group(1))


def losses(path):
    try:
        return [float(r["train_loss"]) for r in csv.DictReader(io.StringIO(tool_io.read_text(path, "a CSV file")))]
    except (KeyError, TypeError, ValueError):
        tool_io.fail(f"{tool_io.shown(path)}: not a table with a train_loss column of numbers")


def main():
    number = tool_io.number
    count = number(int, lambda v: 1 <= v <= 1000000, "an integer in 1..1000000")
    ap = tool_io.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--hidden", default="5,51,256,1024")
    ap.add_argument("--epochs", type=count, default=20)
    ap.add_argument("--large-epochs", type=count, default=10)
    ap.add_argument("--cpu-epochs", type=count, default=2)
    ap.add_argument("--cpu-short-from", type=count, default=1024)
    ap.add_argument("--curve-epochs", type=number(int, lambda v: 0 <= v <= 1000000, "an integer in 0..1000000"),
                    default=300)
    ap.add_argument("--threads", type=number(int, lambda v: 1 <= v <= 1024, "an integer in 1..1024"),
                    default=os.cpu_count() or 1)
    ap.add_argument("--no-pytorch", action="store_true")
    ap.add_argument("--small-lr-from", type=count, default=1024)
    ap.add_argument("--small-lr", type=number(float, lambda v: v > 0, "a positive number"), default=0.001)
    ap.add_argument("--two-gpus", choices=["auto", "on", "off"], default="auto",
                    help="the two-GPU column: auto = where nvidia-smi lists two GPUs or more")
    a = ap.parse_args()
    two = a.two_gpus == "on" or (a.two_gpus == "auto" and gpu_count() >= 2)
    sizes = a.hidden.split(",")
    if not all(re.fullmatch(r"[0-9]{1,4}", v) and 1 <= int(v) <= 4096 for v in sizes):
        tool_io.fail(f"--hidden {tool_io.shown(a.hidden, 80)}: expected sizes in 1..4096 separated by commas, e.g. "
                     "5,51,256", tool_io.EXIT_USAGE)
    sine = os.path.join(a.build, "bin", "train_sine")
    if not os.access(sine, os.X_OK):
        tool_io.fail(f"{tool_io.shown(sine)} not found: build the solutions first")
    tool_io.make_folder(a.out, "--out")
    for name in ("sine_table.log", "sine_table.csv", "sine_table.md", "sine_table.png"):
        tool_io.check_output_path(os.path.join(a.out, name), "--out")
    log = os.path.join(a.out, "sine_table.log")
    rows = []
    for h in [int(v) for v in sizes]:
        start = os.path.join(a.out, f"start_{h}")
        row = {"hidden": h}
        lr = ["--lr", str(a.small_lr)] if h >= a.small_lr_from else []
        common = ["--hidden", str(h), "--future", "0"] + lr
        epochs = a.epochs if h < 256 else a.large_epochs
        short = h >= a.cpu_short_from
        out = run([sine, "--device", "cpu", "--threads", str(a.threads), "--epochs", str(a.cpu_epochs),
                   "--out", os.path.join(a.out, f"cpu_{h}")] + common + (["--length", "100"] if short else []), log)
        row["cpu"] = median_of(out) * (999 / 99 if short else 1)
        row["cpu_scaled"] = short
        for rec in ("steps", "persistent"):
            out = run([sine, "--device", "gpu", "--recurrence", rec, "--epochs", str(epochs), "--out",
                       start if rec == "persistent" else os.path.join(a.out, f"gpu_{rec}_{h}")] + common, log)
            row[rec] = median_of(out)
        if two:
            out = run([sine, "--device", "gpu", "--gpus", "2", "--epochs", str(epochs), "--out",
                       os.path.join(a.out, f"gpus2_{h}")] + common, log)
            row["two_gpus"] = median_of(out)
        if not a.no_pytorch:
            for name, extra in (("pytorch_fp32", []), ("pytorch_tf32", ["--tf32"])):
                out = run([sys.executable, os.path.join(HERE, "pytorch_sine.py"), "--start", start, "--hidden",
                           str(h), "--epochs", str(max(epochs, 5)), "--mode", "graph", "--no-test"] + lr + extra,
                          log)
                row[name] = median_of(out)
        rows.append(row)
        print(row, flush=True)
    cols = (["hidden", "cpu", "cpu_scaled", "steps", "persistent"] + (["two_gpus"] if two else []) +
            ([] if a.no_pytorch else ["pytorch_fp32", "pytorch_tf32"]))
    table = io.StringIO(newline="")
    w = csv.DictWriter(table, fieldnames=cols)
    w.writeheader()
    w.writerows(rows)
    tool_io.write_atomically(os.path.join(a.out, "sine_table.csv"), table.getvalue())
    lines = ["| hidden | CPU (%d threads) | GPU 16.2 steps | GPU 16.3 persistent |" % a.threads +
             (" 2 GPUs, 16.3 |" if two else "") +
             ("" if a.no_pytorch else " PyTorch FP32 | PyTorch TF32 | persistent / PyTorch FP32 |"),
             "|---:|---:|---:|---:|" + ("---:|" if two else "") + ("" if a.no_pytorch else "---:|---:|---:|")]
    for r in rows:
        cpu = f"{r['cpu'] * 1e3:.1f} ms" + (" *" if r["cpu_scaled"] else "")
        line = f"| {r['hidden']} | {cpu} | {r['steps'] * 1e3:.3f} ms | {r['persistent'] * 1e3:.3f} ms |"
        if two:
            line += f" {r['two_gpus'] * 1e3:.3f} ms |"
        if not a.no_pytorch:
            line += (f" {r['pytorch_fp32'] * 1e3:.3f} ms | {r['pytorch_tf32'] * 1e3:.3f} ms |"
                     f" {r['persistent'] / r['pytorch_fp32']:.2f} |")
        lines.append(line)
    if not a.no_pytorch and a.curve_epochs > 0:
        h = 51
        start = os.path.join(a.out, "curve_51")
        run([sine, "--device", "gpu", "--hidden", str(h), "--epochs", str(a.curve_epochs), "--future", "0",
             "--out", start], log)
        ptcsv = os.path.join(a.out, "curve_51_pytorch.csv")
        run([sys.executable, os.path.join(HERE, "pytorch_sine.py"), "--start", start, "--hidden", str(h),
             "--epochs", str(a.curve_epochs), "--mode", "eager", "--csv", ptcsv], log)
        ours, theirs = losses(os.path.join(start, "metrics.csv")), losses(ptcsv)
        worst = max(range(len(ours)), key=lambda k: abs(ours[k] - theirs[k]) / abs(theirs[k]))
        rel = abs(ours[worst] - theirs[worst]) / abs(theirs[worst])
        lines.append("")
        lines.append(f"Loss curves, {h} units, {a.curve_epochs} epochs from the same weights: the training loss "
                     f"differs by at most {rel:.2e} (relative, epoch {worst + 1}: course {ours[worst]:.6g}, "
                     f"PyTorch {theirs[worst]:.6g}); first {ours[0]:.6g} vs {theirs[0]:.6g}, last "
                     f"{ours[-1]:.6g} vs {theirs[-1]:.6g}.")
    text = "\n".join(lines) + "\n"
    tool_io.write_atomically(os.path.join(a.out, "sine_table.md"), text)
    print(text)
    draw(a, cols, two)


def draw(a, cols, two):
    """sine_table.png: ms an epoch against the hidden size, log-log (programs/chart_csv)."""
    chart = os.path.join(a.build, "bin", "chart_csv")
    if not os.access(chart, os.X_OK):
        print(f"no {chart}: sine_table.png not drawn (build the target chart_csv)")
        return
    names = {"cpu": f"CPU ({a.threads} threads)", "steps": "GPU 16.2 (a launch a step)",
             "persistent": "GPU 16.3 (persistent)", "two_gpus": "2 GPUs (16.3)",
             "pytorch_fp32": "PyTorch cuDNN FP32", "pytorch_tf32": "PyTorch cuDNN TF32"}
    ys = [c for c in cols if c in names]
    out = run([chart, "--csv", os.path.join(a.out, "sine_table.csv"), "--x", "hidden", "--y", ",".join(ys),
               "--labels", ",".join(names[c] for c in ys), "--scale", "1000", "--log-x", "--log-y",
               "--title", "LSTM on sine waves: an epoch (one Adam step on 97 waves of 999 steps)",
               "--x-label", "hidden units", "--y-label", "ms an epoch",
               "--out", os.path.join(a.out, "sine_table.png")], os.path.join(a.out, "sine_table.log"))
    print(out.strip())


if __name__ == "__main__":
    tool_io.run_tool(main)
