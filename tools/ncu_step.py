#!/usr/bin/env python3
"""Lesson 09's roofline counts checked by Nsight Compute: one training step of train_fast, kernel by kernel.

Runs `ncu` on `train_fast --graph off` for one step of model A (batch 128) and prints, for every
kernel of the step: the floating-point operations the GPU executed (2 per FFMA, 1 per FADD and
FMUL, from the SASS instruction counters), the bytes DRAM and L2 moved, and the kernel's time
under the profiler. Then the step's totals beside lesson 09.1's counted ones. The profiler locks
the clocks to their base frequency and replays each kernel, so its times are longer than the
program's: compare the counts, not the times.

  python3 tools/ncu_step.py [--train-fast build/solutions/bin/train_fast] [--ncu ncu] [--csv FILE] [--keep-csv FILE]
Needs a GPU and ncu (Nsight Compute). Exit 1 when it cannot run or finds no step.
"""
import argparse
import csv
import io
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tool_io  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
METRICS = {
    "time": "gpu__time_duration.sum",
    "ffma": "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "fadd": "sm__sass_thread_inst_executed_op_fadd_pred_on.sum",
    "fmul": "sm__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "dram_read": "dram__bytes_read.sum",
    "dram_write": "dram__bytes_write.sum",
    "l2": "lts__t_bytes.sum",
}
# Lesson 09.1's cost table of model A at batch 128 (`lesson09_fast_training --cpu-only`): the
# multiply-adds of the conv and dense passes, and the least DRAM traffic of the whole step.
COUNTED_GFLOP = 9.265
COUNTED_MB = 230.54
CONV2_FORWARD_GFLOP = 2.569


def short_name(full):
    """'void ns::kernel<ns::T<1>, (anonymous namespace)::G>(args)' -> 'kernel<T<1>, G>'."""
    name = full.replace("void ", "", 1).replace("(anonymous namespace)::", "").replace("<unnamed>::", "")
    if name.endswith(")"):  # drop the parameter list: from the '(' that matches the last ')'
        depth = 0
        for i in range(len(name) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(name[i], 0)
            if depth == 0:
                name = name[:i]
                break
    return re.sub(r"\b\w+::", "", name)


def number(text):
    return float(text.replace(",", "")) if text not in ("", "n/a") else 0.0


def scale(unit, value):
    """ncu's units to seconds and bytes."""
    factors = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3, "second": 1.0,
               "s": 1.0, "byte": 1.0, "Kbyte": 1e3,
               "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6, "GB": 1e9}
    return value * factors.get(unit, 1.0)


def main():
    parser = tool_io.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--train-fast", default=str(ROOT / "build/solutions/bin/train_fast"))
    parser.add_argument("--ncu", default="ncu")
    parser.add_argument("--csv", help="read this ncu CSV instead of running ncu")
    parser.add_argument("--keep-csv", help="also write ncu's CSV to this file")
    args = parser.parse_args()
    if args.keep_csv:
        tool_io.check_output_path(args.keep_csv, "--keep-csv")

    if args.csv:
        text = tool_io.read_text(args.csv, "a CSV file")
    else:
        if shutil.which(args.ncu) is None:
            tool_io.fail(f"{tool_io.shown(args.ncu)} (Nsight Compute) not found: install it or pass --ncu PATH")
        if not pathlib.Path(args.train_fast).exists():
            tool_io.fail(f"{tool_io.shown(args.train_fast)} not found: build the solutions first")
        with tempfile.TemporaryDirectory() as out:
            # One training step (--train-limit 128) and a small evaluation; no graphs, so that
            # every kernel is its own launch.
            command = [args.ncu, "--csv", "--page", "raw", "--metrics", ",".join(METRICS.values()),
                       args.train_fast, "--graph", "off", "--epochs", "1", "--train-limit", "128",
                       "--test-limit", "128", "--out", out]
            run = subprocess.run(command, capture_output=True, text=True, errors="replace")
        if run.returncode != 0:
            print(run.stderr[-2000:], file=sys.stderr)
            tool_io.fail(f"ncu exited with {run.returncode} (its output above)")
        text = run.stdout
        if args.keep_csv:
            tool_io.write_atomically(args.keep_csv, text)
    try:
        rows = list(csv.reader(io.StringIO(text[text.find('"ID"'):])))
        if len(rows) < 3:
            tool_io.fail("no kernels in ncu's output")
        header, units = rows[0], rows[1]
        col = {key: header.index(name) for key, name in METRICS.items()}
        name_col = header.index("Kernel Name")
        kernels = []
        for r in rows[2:]:
            if len(r) < len(header):
                continue
            k = {key: scale(units[c], number(r[c])) for key, c in col.items()}
            k["name"] = short_name(r[name_col])
            kernels.append(k)
    except (ValueError, IndexError, csv.Error) as e:
        tool_io.fail(f"{tool_io.shown(args.csv or 'ncu output')}: not ncu's raw CSV with the metrics "
                     f"{', '.join(METRICS.values())} ({e})")
    # The step: from its first kernel (the gather of the batch) to the optimizer's update.
    try:
        first = next(i for i, k in enumerate(kernels) if k["name"].startswith("gather_kernel"))
        last = next(i for i in range(first, len(kernels)) if "sgd_momentum" in kernels[i]["name"])
    except StopIteration:
        tool_io.fail("no training step (gather ... sgd_momentum) among the profiled kernels")
    step = kernels[first:last + 1]

    print("One training step of train_fast (model A, batch 128) under Nsight Compute: what each kernel executed")
    print()
    print("| # | kernel | GFLOP executed | DRAM MB | L2 MB | us (profiler clocks) |")
    print("|---:|---|---:|---:|---:|---:|")
    total = {"flop": 0.0, "dram": 0.0, "l2": 0.0, "time": 0.0}
    conv2_forward = None
    for i, k in enumerate(step, 1):
        flop = 2 * k["ffma"] + k["fadd"] + k["fmul"]
        dram = k["dram_read"] + k["dram_write"]
        total["flop"] += flop
        total["dram"] += dram
        total["l2"] += k["l2"]
        total["time"] += k["time"]
        name = k["name"]
        if conv2_forward is None and ("conv_tiled_kernel" in k["name"] or
                                      ("ForwardGather" in k["name"] and flop > 1e9)):
            conv2_forward = (i, flop)
        print(f"| {i} | {name} | {flop / 1e9:.3f} | {dram / 1e6:.2f} | {k['l2'] / 1e6:.2f} | {k['time'] * 1e6:.1f} |")
    print(f"| | **step** | {total['flop'] / 1e9:.3f} | {total['dram'] / 1e6:.2f} | {total['l2'] / 1e6:.2f} | "
          f"{total['time'] * 1e6:.1f} |")
    print()
    print(f"counted by 09.1: {COUNTED_GFLOP} GFLOP of multiply-adds (conv and dense layers) and at least "
          f"{COUNTED_MB} MB of DRAM traffic")
    print(f"executed: {total['flop'] / 1e9:.3f} GFLOP in all ({total['flop'] / 1e9 / COUNTED_GFLOP:.3f}x the count: "
          f"the count leaves out the sums of reductions, the loss and the optimizer), "
          f"{total['dram'] / 1e6:.2f} MB from DRAM and {total['l2'] / 1e6:.2f} MB through L2")
    if conv2_forward:
        print(f"conv2 forward (kernel {conv2_forward[0]}): executed {conv2_forward[1] / 1e9:.3f} GFLOP, counted "
              f"{CONV2_FORWARD_GFLOP}")
    return 0


if __name__ == "__main__":
    tool_io.run_tool(main)
