#!/usr/bin/env python3
"""The course's fastest GPU trainers against an expert's PyTorch, on one GPU, in alternated runs.

For each lesson it races one course trainer against PyTorch set up as an expert would (the model
and the loss compiled together with max-autotune, a fused or compiled update, 50 steps in each
CUDA graph with the batch indices read on the device; tools/pytorch_mnist.py, pytorch_layers.py,
pytorch_speedrun.py --mode expert), same network, recipe, batch, seed and data:

Bars: lessons 09, 10 and 14 ask for a median ratio <= 0.9, lesson 15 (both rows) <= 1.0.

  09  train_fast (FP32)                     against the expert's strict FP32 (TF32 off), NCHW and channels_last
  10  train_mixed --precision bf16          against the expert's BF16 autocast, NCHW and channels_last
  12  train_beyond mnist_cnn (Adadelta)     against the expert's FP32 (Adadelta has no fused kernel: foreach)
  14  train_speedrun --precision bf16       against the expert's BF16 speedrun (the same recipe and seeds)
  15  train_deeper resnet20 (FP32)          ResNet-20 on Fashion-MNIST against the expert's strict FP32 (TF32 off)
  15-bf16  train_deeper resnet20 --precision bf16   the same against the expert's BF16 autocast

Round 1 runs the course and every PyTorch candidate (the memory formats, and for lesson 09 a row
with TF32 allowed, PyTorch's own default for convolutions, shown beside the race, not raced); the
fastest candidate of the same arithmetic is the expert row from then on. Rounds 2..N alternate
course and expert. Each round gives a ratio (course / expert, below 1: the course is faster);
the table shows every run, the median and the spread. Compiling and autotuning happen before each
PyTorch program's timed part (Inductor's cache makes the later rounds' set-up short).

Measures: lessons 09, 10, 12: the median training seconds of epochs 2..E (epoch 1 carries one-time
costs on both sides); lesson 14: the median training time over the seeds. Accuracies beside them.

--formats known skips the memory format measured slower on an H100 (channels_last for FP32
rows, NCHW for BF16 rows): each compile with max-autotune takes minutes. Default: both.

usage: tools/race_pytorch.py [--lessons 09,10,12,14,15,15-bf16] [--runs 3] [--epochs 3] [--seeds 10]
                             [--formats both|known] [--build DIR] [--timeout S] [--out DIR]
Outputs (every log, race.json, race.md) go to --out (default $OUT/race or out/race). Exit 0 when
every run finished; 1 when one failed (its log's last lines are printed) or --out cannot be written;
2 for bad arguments. Errors are one line "error: ..." (tools/tool_io.py); every output is written whole.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tool_io  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = sys.executable


class RunFailed(Exception):
    pass


def epoch_seconds(text):
    """Course trainers' epoch lines: (seconds, test accuracy %) each."""
    return [(float(m.group(2)), float(m.group(1)))
            for m in re.finditer(r"^epoch \d+/\d+ .*test acc ([0-9.]+) %\s+([0-9.]+) s", text, re.M)]


def later_median(values):
    return statistics.median(values[1:] if len(values) > 1 else values)


def course_epochs(text, _json):
    rows = epoch_seconds(text)
    if not rows:
        raise RunFailed("no epoch lines")
    return later_median([s for s, _ in rows]), f"{rows[-1][1]:.2f} %"


def pytorch_epochs(_text, js):
    return later_median(js["epoch_seconds"]), f"{100 * js['test_accuracy'][-1]:.2f} %"


def course_seeds(text, _json):
    m = re.search(r"seed\(s\): mean [a-z]* accuracy ([0-9.]+) %, minimum ([0-9.]+) %; median training time ([0-9.]+) s",
                  text)
    if not m:
        raise RunFailed("no summary line")
    return float(m.group(3)), f"{m.group(1)} % (min {m.group(2)} %)"


def pytorch_seeds(_text, js):
    return js["median_train_ms"] / 1e3, f"{100 * js['mean_accuracy']:.2f} % (min {100 * js['min_accuracy']:.2f} %)"


def lessons(args):
    """Each lesson: what the course runs, the PyTorch candidates (name, flags, raced), how to read them."""
    bin_ = os.path.join(args.build, "bin")
    epochs = ["--epochs", str(args.epochs)]
    mnist = ["--model", "a", "--batch", "128", "--lr", "0.05", "--seed", "1"] + epochs
    course_mnist = mnist + ["--optimizer", "sgd"]
    torch_mnist = [PY, "tools/pytorch_mnist.py", "--mode", "expert", "--cudnn-benchmark", "--momentum", "0.9"] + mnist
    beyond = ["--model", "mnist_cnn", "--dataset", "mnist", "--optimizer", "adadelta", "--lr", "1.0", "--rho", "0.95",
              "--batch", "128", "--seed", "1"] + epochs
    seeds = ["--seeds", str(args.seeds)]
    resnet = ["--model", "resnet20", "--dataset", "fashion", "--optimizer", "sgd", "--lr", "0.05", "--batch", "128",
              "--seed", "1"] + epochs
    torch_resnet = [PY, "tools/pytorch_layers.py", "--mode", "expert", "--cudnn-benchmark", "--momentum", "0.9"] + resnet
    return {
        "09": {"title": "model A, FP32 (TF32 off), batch 128, SGD momentum 0.9, lr 0.05",
               "course": ("train_fast", [os.path.join(bin_, "train_fast")] + course_mnist, course_epochs),
               "pytorch": [("expert FP32, NCHW", torch_mnist, True),
                           ("expert FP32, channels_last", torch_mnist + ["--channels-last"], True),
                           ("expert, TF32 allowed, NCHW", torch_mnist + ["--tf32"], False)],
               "read": pytorch_epochs, "unit": "s an epoch", "bar": 0.9},
        "10": {"title": "model A, BF16 (course: BF16 convolutions; PyTorch: BF16 autocast), batch 128, SGD momentum 0.9",
               "course": ("train_mixed --precision bf16",
                          [os.path.join(bin_, "train_mixed"), "--precision", "bf16"] + course_mnist, course_epochs),
               "pytorch": [("expert BF16, NCHW", torch_mnist + ["--amp", "bf16"], True),
                           ("expert BF16, channels_last", torch_mnist + ["--amp", "bf16", "--channels-last"], True)],
               "read": pytorch_epochs, "unit": "s an epoch", "bar": 0.9},
        "12": {"title": "lesson 12's mnist_cnn on MNIST, FP32 (TF32 off), Adadelta lr 1.0 rho 0.95, batch 128",
               "course": ("train_beyond --model mnist_cnn",
                          [os.path.join(bin_, "train_beyond"), "--device", "gpu"] + beyond, course_epochs),
               "pytorch": [("expert FP32, NCHW",
                            [PY, "tools/pytorch_layers.py", "--mode", "expert", "--cudnn-benchmark"] + beyond, True),
                           ("expert FP32, channels_last",
                            [PY, "tools/pytorch_layers.py", "--mode", "expert", "--cudnn-benchmark", "--channels-last"]
                            + beyond, True)],
               "read": pytorch_epochs, "unit": "s an epoch"},
        "14": {"title": f"the speedrun recipe (lesson 14's defaults), BF16, {args.seeds} seeds",
               "course": ("train_speedrun --precision bf16",
                          [os.path.join(bin_, "train_speedrun"), "--precision", "bf16"] + seeds, course_seeds),
               "pytorch": [("expert BF16, NCHW", [PY, "tools/pytorch_speedrun.py", "--amp", "bf16"] + seeds, True),
                           ("expert BF16, channels_last",
                            [PY, "tools/pytorch_speedrun.py", "--amp", "bf16", "--channels-last"] + seeds, True)],
               "read": pytorch_seeds, "unit": "s of training (median over the seeds)", "bar": 0.9},
        "15": {"title": "ResNet-20 on Fashion-MNIST, FP32 (TF32 off), batch 128, SGD momentum 0.9, lr 0.05",
               "course": ("train_deeper --model resnet20",
                          [os.path.join(bin_, "train_deeper"), "--device", "gpu"] + resnet, course_epochs),
               "pytorch": [("expert FP32, NCHW", torch_resnet, True),
                           ("expert FP32, channels_last", torch_resnet + ["--channels-last"], True)],
               "read": pytorch_epochs, "unit": "s an epoch", "bar": 1.0},
        "15-bf16": {"title": "ResNet-20 on Fashion-MNIST, BF16 (course: BF16 convolutions; PyTorch: BF16 autocast), "
                             "batch 128, SGD momentum 0.9, lr 0.05",
                    "course": ("train_deeper --model resnet20 --precision bf16",
                               [os.path.join(bin_, "train_deeper"), "--device", "gpu", "--precision", "bf16"] + resnet,
                               course_epochs),
                    "pytorch": [("expert BF16, NCHW", torch_resnet + ["--amp", "bf16"], True),
                                ("expert BF16, channels_last", torch_resnet + ["--amp", "bf16", "--channels-last"], True)],
                    "read": pytorch_epochs, "unit": "s an epoch", "bar": 1.0},
    }


def run(cmd, log, timeout, js=None):
    """Runs cmd (logged to `log`); returns its output and, for PyTorch, its JSON."""
    if js:
        cmd = cmd + ["--json", js]
    began = time.perf_counter()
    try:
        done = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        tool_io.write_atomically(log, out)
        raise RunFailed(f"{' '.join(cmd)}: still running after {timeout} s (log {log})")
    except OSError as e:
        raise RunFailed(f"{' '.join(cmd)}: cannot be run ({tool_io.os_problem(e)})")
    tool_io.write_atomically(log, done.stdout)
    if done.returncode != 0:
        tail = "; ".join(done.stdout.splitlines()[-3:])
        raise RunFailed(f"{' '.join(cmd)}: exit {done.returncode} (log {log}): {tail}")
    data = None
    if js:
        try:
            data = json.loads(tool_io.read_text(js, "a JSON file"))
        except ValueError as e:
            raise RunFailed(f"{js}: not the JSON the PyTorch script writes ({e})")
    return done.stdout, data, time.perf_counter() - began


def command_output(cmd):
    """The first line cmd prints, or "" where it cannot run (no nvidia-smi, no git)."""
    try:
        out = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                             errors="replace", timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    return (out.splitlines() or [""])[0].strip()


def spread(values):
    return f"{statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f})"


def race(key, spec, args):
    out = os.path.join(args.out, key)
    os.makedirs(out, exist_ok=True)
    name, course_cmd, read_course = spec["course"]
    course, pytorch, ratios, shown = [], [], [], {}
    described = {}

    def course_run(r):
        text, _, wall = run(course_cmd, os.path.join(out, f"course_{r}.txt"), args.timeout)
        course.append(read_course(text, None))
        print(f"  {key} round {r}: {name} {course[-1][0]:.3f} {spec['unit']}, accuracy {course[-1][1]} ({wall:.0f} s)",
              flush=True)

    def pytorch_run(r, i):
        label, cmd, _ = spec["pytorch"][i]
        js = os.path.join(out, f"pytorch_{i}_{r}.json")
        text, data, wall = run(cmd, os.path.join(out, f"pytorch_{i}_{r}.txt"), args.timeout, js)
        described[label] = next((line for line in text.splitlines() if line.startswith("pytorch ")), "")
        value = spec["read"](text, data)
        print(f"  {key} round {r}: PyTorch {label} {value[0]:.3f} {spec['unit']}, accuracy {value[1]} "
              f"({wall:.0f} s with set-up)", flush=True)
        return value, data

    expert = None
    torch_build = ""
    round1 = {}  # every candidate's first run: label -> [value, accuracy]
    for r in range(1, args.runs + 1):
        course_run(r)
        if r == 1:
            results = {}
            for i, (label, _, raced) in enumerate(spec["pytorch"]):
                value, data = pytorch_run(r, i)
                round1[label] = list(value)
                torch_build = f"PyTorch {data.get('torch', '?')}"
                (results if raced else shown)[i] = value
            expert = min(results, key=lambda i: results[i][0])
            pytorch.append(results[expert])
        else:
            pytorch.append(pytorch_run(r, expert)[0])
        ratios.append(course[-1][0] / pytorch[-1][0])
    label = spec["pytorch"][expert][0]
    return {"lesson": key, "title": spec["title"], "bar": spec.get("bar"), "course": name, "expert": label,
            "expert_ran": described.get(label, ""), "torch": torch_build, "unit": spec["unit"],
            "course_runs": [v for v, _ in course], "course_accuracy": [a for _, a in course],
            "expert_runs": [v for v, _ in pytorch], "expert_accuracy": [a for _, a in pytorch],
            "ratios": ratios, "median_ratio": statistics.median(ratios),
            "round1": round1,
            "shown": {spec["pytorch"][i][0]: {"value": v[0], "accuracy": v[1],
                                              "ran": described.get(spec["pytorch"][i][0], "")}
                      for i, v in shown.items()}}


def table(rows, gpu, commit, runs):
    lines = [f"GPU: {gpu}; commit {commit}; {runs} alternated run(s) each (course, PyTorch, course, ...); "
             f"round 1 also ran every PyTorch candidate, the fastest of the same arithmetic raced on", "",
             "| lesson | what | course trainer | course: median (min-max) | expert PyTorch row | "
             "PyTorch: median (min-max) | course / expert, each run | median | accuracy: course / PyTorch (last run) |",
             "|---|---|---|---:|---|---:|---|---:|---|"]
    for row in rows:
        lines.append(f"| {row['lesson']} | {row['title']}; {row['unit']} | {row['course']} | {spread(row['course_runs'])} "
                     f"| {row['expert']} | {spread(row['expert_runs'])} | "
                     f"{', '.join(f'{x:.2f}' for x in row['ratios'])} | **{row['median_ratio']:.2f}** | "
                     f"{row['course_accuracy'][-1]} / {row['expert_accuracy'][-1]} |")
    lines.append("")
    for row in rows:
        if row["bar"]:
            met = row["median_ratio"] <= row["bar"]
            lines.append(f"- {row['lesson']}: bar (the course's median ratio <= {row['bar']:.2f} of the expert's time): "
                         + ("MET" if met else f"NOT MET ({row['median_ratio']:.2f})"))
        lines.append(f"- {row['lesson']}: the expert row ran: `{row['expert_ran']}` ({row['torch']})")
        for label, s in row["shown"].items():
            lines.append(f"- {row['lesson']}, shown beside the race (round 1): PyTorch {label}: {s['value']:.3f} "
                         f"{row['unit']}, accuracy {s['accuracy']}; course / it "
                         f"{row['course_runs'][0] / s['value']:.2f}")
    return "\n".join(lines)


def main():
    number = tool_io.number
    ap = tool_io.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lessons", default="09,10,12,14")
    ap.add_argument("--runs", type=number(int, lambda v: 1 <= v <= 20, "an integer in 1..20"), default=3)
    ap.add_argument("--epochs", type=number(int, lambda v: 2 <= v <= 100,
                                            "an integer in 2..100 (epoch 1 is not measured)"), default=3)
    ap.add_argument("--seeds", type=number(int, lambda v: 1 <= v <= 100, "an integer in 1..100"), default=10)
    ap.add_argument("--formats", choices=["both", "known"], default="both",
                    help="known: FP32 rows NCHW only, BF16 rows channels_last only")
    ap.add_argument("--build", default=os.path.join(ROOT, "build", "solutions"))
    ap.add_argument("--timeout", type=number(int, lambda v: v >= 1, "a positive integer"), default=540,
                    help="seconds one program may run (compiling included)")
    ap.add_argument("--out", default=os.path.join(os.environ.get("OUT", os.path.join(ROOT, "out")), "race"))
    args = ap.parse_args()
    specs = lessons(args)
    if args.formats == "known":  # the slower format of each arithmetic, as measured on an H100
        for spec in specs.values():
            spec["pytorch"] = [c for c in spec["pytorch"]
                               if not (("BF16" in c[0] and "NCHW" in c[0]) or ("FP32" in c[0] and "channels_last" in c[0]))]
    chosen = [k.strip() for k in args.lessons.split(",")]
    for key in chosen:
        if key not in specs:
            tool_io.fail(f"--lessons {tool_io.shown(args.lessons, 80)}: '{tool_io.shown(key, 20)}' is not one of "
                         f"{', '.join(specs)}", tool_io.EXIT_USAGE)
        if chosen.count(key) > 1:
            tool_io.fail(f"--lessons {tool_io.shown(args.lessons, 80)}: lesson {key} is named twice (each race writes "
                         f"its own folder {key}/ under --out)", tool_io.EXIT_USAGE)
    # Every output checked before the first run: the folders and the two tables.
    tool_io.make_folder(args.out, "--out")
    for name in ("race.json", "race.md"):
        tool_io.check_output_path(os.path.join(args.out, name), "--out")
    for key in chosen:
        exe = specs[key]["course"][1][0]
        if not os.access(exe, os.X_OK):
            tool_io.fail(f"{tool_io.shown(exe)} not found; build first: cmake --preset solutions && "
                         "cmake --build --preset solutions")
    for key in chosen:
        tool_io.make_folder(os.path.join(args.out, key), "--out")
    gpu = (command_output(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"]) or
           "unknown (nvidia-smi named no GPU)")
    commit = os.environ.get("COURSE_COMMIT") or command_output(["git", "rev-parse", "--short", "HEAD"]) or "unknown"
    rows, failed = [], []
    for key in chosen:
        print(f"== lesson {key}: {specs[key]['title']}", flush=True)
        try:
            rows.append(race(key, specs[key], args))
        except RunFailed as e:
            print(f"lesson {key} FAILED: {tool_io.shown(e, 2000)}", file=sys.stderr, flush=True)
            failed.append(key)
        tool_io.write_atomically(os.path.join(args.out, "race.json"),
                                 json.dumps({"gpu": gpu, "commit": commit, "rows": rows}, indent=1) + "\n")
    if rows:
        text = table(rows, gpu, commit, args.runs)
        tool_io.write_atomically(os.path.join(args.out, "race.md"), text + "\n")
        print("\n" + text)
    if failed:
        tool_io.fail(f"the race of lesson(s) {', '.join(failed)} failed (above; their logs are under "
                     f"{tool_io.shown(args.out)})")
    return 0


if __name__ == "__main__":
    tool_io.run_tool(main)
