#!/usr/bin/env python3
"""PyTorch's baseline for lesson 16's sine task, as train_sine runs it: the same waves (float(sin((t +
offset) / period)), the sine in double; the first --test waves held out), the same network (nn.LSTM of
--hidden units, time-major, zero initial state, then nn.Linear on every step's h), the same loss
(MSELoss over every step of every wave) and recipe: each epoch one Adam step (betas 0.9, 0.999, eps
1e-8) on the whole training set, backpropagated through every step. Epoch k's training loss is the
one before update k, its held-out loss the one after it.

--start DIR reads what `train_sine --out DIR` writes: start_params.npy (float32 [P]: w_ih [4H x 1],
w_hh [4H x H], b_ih [4H], b_hh [4H], the head's weight [1 x H] and bias [1], gates i, f, g, o as
nn.LSTM's) and offsets.npy (int32, one a wave, the held-out ones first): the course's run, its losses
comparable. DIR must hold a finished run: train_sine writes run.txt last, listing its files and their
sizes; a folder without it (a run stopped part-way, its files perhaps beside an earlier run's) or whose
files differ from the list is refused. Without it (timing at any size): --sequences waves at offsets from numpy's
default_rng(--seed) in [-4 period, 4 period) and PyTorch's own initial weights: losses not comparable.

--mode graph (CUDA) runs epochs 1..3 eagerly on a side stream, as capture requires (real epochs of the
run), then replays one whole training step (forward, loss, backward, Adam) captured in a CUDA graph;
the held-out loss runs outside it. On CUDA both modes use cuDNN's LSTM and the fused, capturable Adam:
their loss curves are one run. FP32 is strict (TF32 off) unless --tf32. An epoch's seconds are its
training step only (synchronised before and after). --csv FILE writes epoch,train_loss,test_loss,
seconds as train_sine's metrics.csv; --json FILE the settings and results. Bad input gives one line
"error: ..." and exit status 2 (usage) or 1 (missing or damaged files, no GPU), checked before NumPy
and PyTorch are loaded (tools/tool_io.py).
"""
import argparse
import math
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tool_io  # noqa: E402
from pytorch_layers import InputError, Parser, main_of, number, write_json  # noqa: E402

# NumPy and PyTorch, loaded once the input is checked.
np = torch = nn = None

WARM_UP = 3  # graph mode: eager epochs on a side stream before capture; timing skips them too


def parameter_count(hidden):
    return 4 * hidden + 4 * hidden * hidden + 4 * hidden + 4 * hidden + hidden + 1


def load_torch():
    global np, torch, nn
    np = tool_io.import_numpy()
    torch = tool_io.import_torch()
    nn = torch.nn


def sine_net(hidden):
    """nn.LSTM of `hidden` units (time-major, one layer, zero initial state) and a dense head."""
    class SineNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(input_size=1, hidden_size=hidden)
            self.head = nn.Linear(hidden, 1)

        def forward(self, x):  # x [steps, batch, 1] -> the next value's prediction [steps, batch, 1]
            h, _ = self.lstm(x)  # no initial state given: zeros
            return self.head(h)

    return SineNet()


def load_start(dir_, hidden, period):
    """DIR/start_params.npy and DIR/offsets.npy of a finished train_sine run, checked (before NumPy and
    PyTorch are loaded): run.txt lists both with their sizes, start_params.npy is a float32 vector of
    the parameters of --hidden units, offsets.npy an int32 vector of offsets in [-4 period, 4 period)."""
    names = ("start_params.npy", "offsets.npy")
    tool_io.finished_run(dir_, names, f"train_sine --out {tool_io.shown(dir_)}")
    params = tool_io.read_npy(os.path.join(dir_, names[0]), ("<f4",))
    offsets = tool_io.read_npy(os.path.join(dir_, names[1]), ("<i4",))
    for name, array in zip(names, (params, offsets)):
        if len(array.shape) != 1:
            raise InputError(f"{tool_io.shown(dir_)}/{name}: shape {tool_io.npy_shape_text(array.shape)}, expected a "
                             "vector (one dimension)", 1)
    if params.size != parameter_count(hidden):
        raise InputError(f"{tool_io.shown(dir_)}/start_params.npy: {params.size} values, but an LSTM of --hidden "
                         f"{hidden} and its head have {parameter_count(hidden)} (pass the --hidden train_sine ran "
                         "with)", 1)
    values = offsets.values()
    bad = [v for v in values if not -4 * period <= v < 4 * period]
    if bad:  # the course draws them from [-4 period, 4 period)
        raise InputError(f"{tool_io.shown(dir_)}/offsets.npy: offset {bad[0]} is outside [{-4 * period}, "
                         f"{4 * period}) (pass the --period train_sine ran with)", 1)
    return params, offsets


def sine_waves(offsets, length, period):
    """[length, sequences] float32: float(sin((t + offset) / period)), the sine in double by the C
    library's sin (math.sin), as std::sin computes it, over the distinct arguments only."""
    low = int(offsets.min())
    span = length + int(offsets.max()) - low  # every t + offset lies in [low, low + span)
    table = np.array([math.sin((low + k) / period) for k in range(span)], dtype=np.float64).astype(np.float32)
    t = np.arange(length, dtype=np.int64)[:, None]
    return table[t + offsets.astype(np.int64)[None, :] - low]


def parse_args(argv):
    def between(low, high):  # train_sine's ranges
        return number(int, lambda v: low <= v <= high, f"an integer in {low}..{high}")

    ap = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False)
    ap.add_argument("--hidden", type=between(1, 4096), default=51, help="LSTM units (default 51; as --start's)")
    ap.add_argument("--epochs", type=between(1, 1000000), default=300, help="Adam steps (default 300)")
    ap.add_argument("--lr", type=number(float, lambda v: v > 0, "a positive number"), default=0.01)
    ap.add_argument("--length", type=between(3, 1000000), default=1000, help="values a wave (default 1000)")
    ap.add_argument("--period", type=between(1, 1000000), default=20, help="the waves' period (default 20)")
    ap.add_argument("--test", type=between(1, 100000), default=3, help="held-out waves, the first ones (default 3)")
    ap.add_argument("--sequences", type=between(2, 100000),
                    help="waves without --start (default 100); with it, offsets.npy's count")
    ap.add_argument("--seed", type=number(int, lambda v: 0 <= v < 2 ** 63, "an integer >= 0"), default=1,
                    help="without --start: seeds the offsets and PyTorch's initial weights")
    ap.add_argument("--start", metavar="DIR", help="the starting weights and offsets train_sine --out DIR wrote")
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    ap.add_argument("--threads", type=between(1, 1024), help="CPU threads (torch.set_num_threads)")
    ap.add_argument("--mode", choices=["eager", "graph"], default="eager")
    ap.add_argument("--tf32", action="store_true", help="allow TF32 in cuBLAS and cuDNN (default: strict FP32)")
    ap.add_argument("--no-test", action="store_true", help="skip the held-out loss each epoch (for timing)")
    ap.add_argument("--csv", metavar="FILE", help="epoch,train_loss,test_loss,seconds")
    ap.add_argument("--json", metavar="FILE", help="the settings and results")
    args = ap.parse_args(argv)
    if args.device == "cpu" and (args.mode == "graph" or args.tf32):
        raise InputError(f"{'--mode graph' if args.mode == 'graph' else '--tf32'} needs --device cuda")
    if args.mode == "graph" and args.epochs <= WARM_UP:
        raise InputError(f"--mode graph needs --epochs > {WARM_UP} (epochs 1..{WARM_UP} are its eager warm-up)")
    if args.sequences is not None and args.sequences <= args.test:
        raise InputError(f"--sequences {args.sequences} with --test {args.test} leaves no wave to train on")
    for flag, path in (("--csv", args.csv), ("--json", args.json)):
        if path:
            tool_io.check_output_path(path, flag)
    return args


def run(argv):
    args = parse_args(argv)
    cuda = args.device == "cuda"
    start = None
    if args.start:
        start = load_start(args.start, args.hidden, args.period)
        if args.sequences is not None and args.sequences != start[1].size:
            raise InputError(f"--sequences {args.sequences}, but {args.start}/offsets.npy holds {start[1].size}")
        if start[1].size <= args.test:
            raise InputError(f"{args.start}/offsets.npy: {start[1].size} waves with --test {args.test} leave none to "
                             "train on", 1)
    load_torch()
    if cuda and not torch.cuda.is_available():
        raise InputError("PyTorch sees no CUDA GPU", 1)
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    model = sine_net(args.hidden)
    if start:
        params, offsets = start[0].numpy(), start[1].numpy()
        with torch.no_grad():  # the layout is the parameters' order: lstm's w_ih, w_hh, b_ih, b_hh, head's w, b
            first = 0
            for p in model.parameters():
                p.copy_(torch.from_numpy(params[first:first + p.numel()].copy()).view_as(p))
                first += p.numel()
    else:
        offsets = np.random.default_rng(args.seed).integers(-4 * args.period, 4 * args.period,
                                                            size=args.sequences or 100)
    if offsets.size <= args.test:
        raise InputError(f"{offsets.size} waves with --test {args.test} leave none to train on")
    if cuda:  # strict FP32 unless --tf32: the LSTM's products run in cuDNN, the head's in cuBLAS
        torch.backends.cuda.matmul.allow_tf32 = args.tf32
        torch.backends.cudnn.allow_tf32 = args.tf32
    device = torch.device(args.device)
    try:
        train(args, model.to(device), offsets, device)
    except (torch.cuda.OutOfMemoryError, MemoryError):
        raise InputError("out of memory: make --sequences, --length or --hidden smaller", 1)


def train(args, model, offsets, device):
    cuda = device.type == "cuda"
    waves = torch.from_numpy(sine_waves(offsets, args.length, args.period)).to(device).unsqueeze(2)
    # Time-major [steps, batch, 1], contiguous: inputs t = 0..length-2, targets t = 1..length-1.
    x_test, y_test = waves[:-1, :args.test].contiguous(), waves[1:, :args.test].contiguous()
    x_train, y_train = waves[:-1, args.test:].contiguous(), waves[1:, args.test:].contiguous()
    loss_fn = nn.MSELoss()
    # On CUDA the fused Adam, capturable (its step counter on the GPU) in both modes: one arithmetic.
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.999), eps=1e-8,
                           **({"fused": True, "capturable": True} if cuda else {}))
    synchronize = torch.cuda.synchronize if cuda else (lambda: None)
    precision = "tf32" if args.tf32 else "fp32"
    gpu = torch.cuda.get_device_name(0) if cuda else "cpu"
    cudnn = torch.backends.cudnn.version() if cuda else None
    parameters = sum(p.numel() for p in model.parameters())
    print(f"pytorch_sine: an LSTM of {args.hidden} units and a dense head ({parameters} parameters), Adam lr "
          f"{args.lr:g}; PyTorch {torch.__version__} on {gpu}{f' (cuDNN {cudnn})' if cuda else ''}, mode {args.mode}, "
          f"{precision}")
    print(f"data: {x_train.shape[1]} training and {args.test} held-out sine waves of {args.length} values, period "
          f"{args.period}; each epoch one step on all of them, backpropagated through {args.length - 1} steps")
    print(f"starting weights and offsets from {args.start} (train_sine's): losses comparable with the course's"
          if args.start else f"offsets from numpy's default_rng({args.seed}), PyTorch's own initial weights: the "
          f"losses are NOT comparable with train_sine's", flush=True)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x_train), y_train)
        loss.backward()
        opt.step()
        return loss.detach()

    def held_out():
        with torch.no_grad():
            return float(loss_fn(model(x_test), y_test))

    side = torch.cuda.Stream() if args.mode == "graph" else None
    graph = static_loss = None
    history = []  # (train loss, test loss, seconds) an epoch
    for epoch in range(1, args.epochs + 1):
        if side is not None and epoch == WARM_UP + 1:
            graph, static_loss = capture(step, opt)
        synchronize()
        start = time.perf_counter()
        if graph is not None:
            graph.replay()
            loss = static_loss
        elif side is not None:  # warm-up, as capture requires: on a side stream, after what came before
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                loss = step()
            torch.cuda.current_stream().wait_stream(side)
        else:
            loss = step()
        synchronize()
        seconds = time.perf_counter() - start
        train_loss = float(loss)
        if not math.isfinite(train_loss):
            raise InputError(f"epoch {epoch}: the training loss is {train_loss}; try a smaller --lr", 1)
        test_loss = float("nan") if args.no_test else held_out()
        history.append((train_loss, test_loss, seconds))
        if epoch == 1 or epoch == args.epochs or epoch % max(1, args.epochs // 20) == 0:
            print(f"epoch {epoch}/{args.epochs}  train loss {train_loss:.6f}  test loss {test_loss:.6f}  "
                  f"{seconds:.4f} s", flush=True)

    train_losses, test_losses, epoch_seconds = (list(column) for column in zip(*history))
    final_test = held_out() if args.no_test else test_losses[-1]  # the weights after the last update
    first = WARM_UP + 1 if args.epochs > WARM_UP else 1
    measured = epoch_seconds[first - 1:]
    median = statistics.median(measured)
    print(f"summary (PyTorch {args.device} {args.mode} {precision}): {args.epochs} epoch(s), median epoch "
          f"{median:.6f} s (min {min(measured):.6f}, max {max(measured):.6f} over epochs {first}..{args.epochs}), "
          f"final test loss {final_test:.6f}")
    if args.csv:
        tool_io.write_atomically(args.csv, "epoch,train_loss,test_loss,seconds\n" + "".join(
            f"{k},{tr:.9g},{te:.9g},{s:.6f}\n" for k, (tr, te, s) in enumerate(history, 1)))
    if args.json:
        write_json(args.json, {
            "hidden": args.hidden, "parameters": parameters, "epochs": args.epochs, "mode": args.mode,
            "device": args.device, "gpu": gpu, "tf32": args.tf32, "torch": torch.__version__, "cudnn": cudnn,
            "lr": args.lr, "length": args.length, "period": args.period, "sequences": int(offsets.size),
            "test": args.test, "seed": args.seed, "start": args.start, "comparable_with_course": bool(args.start),
            "timed_epochs": f"{first}..{args.epochs}", "median_epoch_seconds": median,
            "min_epoch_seconds": min(measured), "max_epoch_seconds": max(measured),
            "final_train_loss": train_losses[-1], "final_test_loss": final_test, "epoch_seconds": epoch_seconds,
            "train_loss": train_losses, "test_loss": None if args.no_test else test_losses})


def capture(step, opt):
    """One training step recorded in a CUDA graph (nothing runs: the next replay is the next epoch);
    returns the graph and the tensor each replay writes its loss to."""
    began = time.perf_counter()
    graph = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)  # the captured backward allocates its gradients from the graph's pool
    try:
        with torch.cuda.graph(graph):
            loss = step()
    except RuntimeError as e:
        raise InputError(f"capturing the training step in a CUDA graph failed: "
                         f"{(str(e).splitlines() or [type(e).__name__])[0]}", 1)
    torch.cuda.synchronize()
    print(f"graph: epochs 1..{WARM_UP} ran eagerly on a side stream; the whole training step captured in "
          f"{time.perf_counter() - began:.2f} s (not timed)", flush=True)
    return graph, loss


if __name__ == "__main__":
    main_of(run)
