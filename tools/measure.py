#!/usr/bin/env python3
"""Each lesson's measured block, generated: one run of the lesson's measuring program, its own output.

  tools/measure.py run --out DIR [--lessons 03-10] [--build-dir build/solutions] [--commit HASH]
      runs each lesson's measuring command (MEASURE below; a GPU lesson needs a GPU, a CPU lesson
      runs anywhere) and writes DIR/NN.md: the block's text, its first line naming the machine, the
      date and the commit, then the program's output (progress lines left out) as a text block:
      all of it, or the lines before its first "== " heading and the sections MEASURE names (a
      README has room for its lesson's main table); and DIR/NN_run.md, the whole output.
      A program that fails writes nothing for its lesson and the run exits 1 after the others.
  tools/measure.py write DIR [--lessons ...]
      puts each DIR/NN.md between the markers of lesson NN's record (docs/results/NN_slug.md,
      everything else in it kept) and DIR/NN_run.md between its `<!-- run NN: begin -->` and
      `<!-- run NN: end -->` lines (added after the block when missing); then run
      tools/readme_tables.py to copy the blocks into the READMEs.
  tools/measure.py list
      the lessons and their commands.

Which commit: --commit, else `git rev-parse --short HEAD` of this tree (a copy of the tree that is
no git clone must be given --commit). Lessons 11-16 measure against PyTorch or on several GPUs with
the scripts their records name (tools/compare_pytorch_cpu.sh, compare_pytorch_beyond.sh, the
two_gpus and scaling stages of gpu_check.sh, speedrun_table.sh, race_pytorch.py, sine_table.py);
their records keep the block those printed.
"""
import argparse
import datetime
import os
import pathlib
import platform
import re
import shutil
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tool_io  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent

# lesson: (where it runs, the command from the build's bin/ folder, what the block shows, the
# output's sections the block keeps: None for all of it)
MEASURE = {
    "01": ("cpu", ["lesson01_host_layers"], "one forward and backward pass and the gradient check", None),
    "02": ("cpu", ["lesson02_host_training"], "the small CNN trained on MNIST with the defaults", None),
    "03": ("gpu", ["lesson03_first_kernels"], "copy bandwidth and the first kernels", None),
    "04": ("gpu", ["lesson04_gemm_dense"], "the matmul ladder against cuBLAS", [2]),
    "05": ("gpu", ["lesson05_conv_direct"], "direct convolution, model A's shapes", None),
    "06": ("gpu", ["lesson06_pooling"], "max-pool three ways", None),
    "07": ("gpu", ["lesson07_im2col"], "im2col + GEMM against direct and cuDNN", None),
    "08": ("gpu", ["train_mnist"], "model A trained on MNIST with the defaults", None),
    "09": ("gpu", ["lesson09_fast_training"], "the convolutions' kernels against the step's floor", [2]),
    "10": ("gpu", ["lesson10_tensor_cores"], "the GEMMs on the Tensor Cores", [2]),
}
SECTION = re.compile(r"^== (\d+)\.")
DONE = re.compile(r"^[a-zA-Z]+( [a-zA-Z]+)? done$")  # "convolutions done": a section's last line, for a log
PROGRESS = re.compile(r"\s\d+% \d+/\d+ .*elapsed .*eta |\] *\d+% ")


def lesson_list(text):
    return [f"{n:02d}" for n in tool_io.lesson_numbers(text)]


def gpu_name():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=60).stdout.strip().splitlines()
    except (OSError, subprocess.SubprocessError):
        out = []
    return out[0].strip() if out else None


def cpu_name():
    model = platform.processor() or "a CPU"
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8", errors="replace"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores"


def commit_of(given):
    if given:
        if not re.fullmatch(r"[0-9a-f]{7,40}", given):
            tool_io.fail(f"--commit takes a commit's hex hash, got '{tool_io.shown(given, 60)}'", tool_io.EXIT_USAGE)
        return given
    try:
        return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        tool_io.fail("this tree is no git clone: give the commit it holds with --commit", tool_io.EXIT_USAGE)


def output_lines(output):
    """The program's lines as a reader sees them: progress lines and carriage returns gone, paths
    inside the course relative to its root."""
    output = output.replace(str(ROOT) + "/", "")
    lines = [line.rsplit("\r", 1)[-1] for line in output.splitlines()]
    kept = [line.rstrip() for line in lines if not PROGRESS.search(line)]
    while kept and not kept[-1]:
        kept.pop()
    return kept


def sections_of(lines, keep):
    """The lines before the first '== N.' heading, then the sections numbered in `keep`."""
    out, current = [], None
    for line in lines:
        m = SECTION.match(line)
        if m:
            current = int(m.group(1))
            if out and out[-1]:
                out.append("")
        if (current is None or current in keep) and not DONE.match(line):
            out.append(line)
    while out and not out[-1]:
        out.pop()
    return out


def block_text(machine, date, commit, command, lines):
    shown = " ".join(command)
    return f"**{machine}, {date}, commit {commit}**: `{shown}`\n\n```text\n" + "\n".join(lines) + "\n```\n"


def run(args):
    bin_dir = args.build_dir / "bin"
    if not bin_dir.is_dir():
        tool_io.fail(f"--build-dir {tool_io.shown(args.build_dir)}: has no bin/ folder; build the solutions first "
                     "(cmake --workflow --preset solutions)")
    commit = commit_of(args.commit)
    tool_io.make_folder(args.out, "--out")
    out = args.out
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    gpu = gpu_name()
    failed = []
    for lesson in args.lessons:
        if lesson not in MEASURE:
            print(f"lesson {lesson}: no measuring command here; its record keeps its block")
            continue
        where, command, what, keep = MEASURE[lesson]
        if where == "gpu" and not gpu:
            print(f"lesson {lesson}: needs a GPU (nvidia-smi names none); skipped")
            continue
        exe = bin_dir / command[0]
        if not exe.is_file():
            failed.append(f"lesson {lesson}: {exe} was not built")
            continue
        print(f"lesson {lesson}: {' '.join(command)} ({what})", flush=True)
        try:
            result = subprocess.run([str(exe)] + command[1:], cwd=ROOT, capture_output=True, text=True,
                                    errors="replace", timeout=args.timeout)
        except subprocess.TimeoutExpired:
            failed.append(f"lesson {lesson}: {command[0]} ran past --timeout {args.timeout} s")
            continue
        if result.returncode != 0:
            failed.append(f"lesson {lesson}: {command[0]} exited {result.returncode}: "
                          f"{tool_io.shown((result.stdout + result.stderr).strip()[-300:], 300)}")
            continue
        machine = gpu if where == "gpu" else cpu_name()
        lines = output_lines(result.stdout)
        block = block_text(machine, date, commit, command, sections_of(lines, keep) if keep else lines)
        whole = block_text(machine, date, commit, command, lines)
        tool_io.write_atomically(out / f"{lesson}.md", block.encode())
        tool_io.write_atomically(out / f"{lesson}_run.md", whole.encode())
        print(f"  wrote {lesson}.md ({block.count(chr(10))} lines) and {lesson}_run.md ({whole.count(chr(10))} lines)")
    for f in failed:
        print(f"  {f}", file=sys.stderr)
    if failed:
        tool_io.fail(f"{len(failed)} lesson(s) not measured; the first: {failed[0]}")
    return 0


def write(args):
    folder = args.folder
    if not folder.is_dir():
        tool_io.fail(f"{tool_io.shown(folder)}: no such folder (tools/measure.py run --out makes it)")
    records = {p.name[:2]: p for p in (ROOT / "lessons").glob("[0-9][0-9]_*") if p.is_dir()}
    written = 0
    for lesson in args.lessons:
        source = folder / f"{lesson}.md"
        if not source.is_file():
            continue
        if lesson not in records:
            tool_io.fail(f"{source}: there is no lesson {lesson}")
        body = tool_io.read_text(source, "a measured block").strip("\n")
        record = ROOT / "docs" / "results" / f"{records[lesson].name}.md"
        text = tool_io.read_text(record, "a lesson's record")
        begin, end = f"<!-- measured {lesson}: begin -->", f"<!-- measured {lesson}: end -->"
        if text.count(begin) != 1 or text.count(end) != 1:
            tool_io.fail(f"{record.relative_to(ROOT)}: needs exactly one '{begin}' and one '{end}' line")
        head, rest = text.split(begin)
        _, tail = rest.split(end)
        run_source = folder / f"{lesson}_run.md"
        if run_source.is_file():
            run_begin, run_end = f"<!-- run {lesson}: begin -->", f"<!-- run {lesson}: end -->"
            run = (f"{run_begin}\n<details><summary>The whole output of that run</summary>\n\n"
                   f"{tool_io.read_text(run_source, 'a run').strip(chr(10))}\n\n</details>\n{run_end}")
            if run_begin in tail and run_end in tail:
                before, rest_tail = tail.split(run_begin, 1)
                tail = before + run + rest_tail.split(run_end, 1)[1]
            else:
                tail = f"\n\n{run}{tail}"
        tool_io.write_atomically(record, f"{head}{begin}\n{body}\n{end}{tail}".encode())
        print(f"updated {record.relative_to(ROOT)}")
        written += 1
    print(f"{written} record(s) updated; now: python3 tools/readme_tables.py")
    return 0


def main():
    ap = tool_io.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="verb", required=True)
    r = sub.add_parser("run")
    r.add_argument("--out", required=True, type=pathlib.Path)
    r.add_argument("--build-dir", default=ROOT / "build" / "solutions", type=pathlib.Path)
    r.add_argument("--lessons", default="01-16", type=lesson_list)
    r.add_argument("--commit")
    r.add_argument("--timeout", default=600, type=tool_io.number(int, lambda v: v > 0, "a positive number of seconds"))
    w = sub.add_parser("write")
    w.add_argument("folder", type=pathlib.Path)
    w.add_argument("--lessons", default="01-16", type=lesson_list)
    sub.add_parser("list")
    args = ap.parse_args()
    if args.verb == "list":
        for lesson, (where, command, what, _) in MEASURE.items():
            print(f"{lesson}  {where}  {' '.join(command):45s} {what}")
        return 0
    return run(args) if args.verb == "run" else write(args)


if __name__ == "__main__":
    tool_io.run_tool(main)
