#!/usr/bin/env python3
"""PyTorch's run of lesson 14's speedrun recipe: the same network (a layer list, as
tools/pytorch_layers.py builds it), the same recipe as train_speedrun (batch, epochs, SGD with
Nesterov momentum, Adam or SGD, the one-cycle schedule's rate at every step, weight decay, label
smoothing, random shifts of up to --shift pixels with zero fill), the whole data set on the GPU,
and the same rules: the training time is CUDA events around the whole run (every epoch's order
drawn before the clock starts), evaluation off the clock, one run per seed, then the mean and
minimum test accuracy and the median time.

Its configurations (--mode), from plain to an expert's: "eager", op by op (also on --device cpu,
for quick checks); "graph", each training step captured once into a CUDA graph and replayed (the
rate read from a table on the GPU by a step counter there, so one graph serves every step);
"compile-graph", torch.compile's kernels (Inductor's defaults) inside that graph; "expert" (the
default), what an expert runs: the random shift, the model and the loss compiled together
(max-autotune, no graphs of its own), the update compiled too (Inductor fuses its element-wise
work into a few kernels), and --steps-per-graph steps in each CUDA graph (an epoch is a few
replays; each step reads its batch's indices on the device). --amp bf16: BF16 autocast for the
forward pass and the loss; --channels-last: the network and the images in channels_last.

The update is written out with torch._foreach ops, PyTorch's own formulation of each optimizer
(torch.optim.SGD(nesterov=True), SGD, Adam with weight decay added to the gradient), because the
rate must change inside a captured graph. Shifts and orders come from PyTorch's generator: the
same distributions as the course's, not the same draws.

Prints the recipe, one line per seed and the summary; --json FILE writes them. Bad input: one line
"error: ..." and exit status 2 (usage) or 1 (missing or damaged data, no GPU), checked before NumPy
and PyTorch are loaded (tools/tool_io.py).
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pytorch_layers  # noqa: E402
import tool_io  # noqa: E402
from pytorch_layers import (DATASETS, InputError, Parser, build_network, load_data, model_layers,  # noqa: E402
                            number, plan, to_device)

# PyTorch and pytorch_mnist's helpers, loaded once the input is checked.
torch = F = None
EXPERT_COMPILE = autocast = epoch_graphs = None


def load_torch(args, need, text):
    """PyTorch for the run (pytorch_layers.torch_for_run), and what this script takes of it."""
    global torch, F, EXPERT_COMPILE, autocast, epoch_graphs
    pytorch_mnist = pytorch_layers.torch_for_run(args, need, text)
    torch = pytorch_layers.torch
    F = torch.nn.functional
    EXPERT_COMPILE, autocast, epoch_graphs = (pytorch_mnist.EXPERT_COMPILE, pytorch_mnist.autocast,
                                              pytorch_mnist.epoch_graphs)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEEDRUN_MODELS = os.path.join(ROOT, "lessons", "14_speedrun", "models")
DEFAULT_LR = {"nesterov": 0.1, "sgd": 0.1, "adam": 0.003}  # train_speedrun's


def one_cycle_lr(step, total, warmup, peak):
    """Lesson 14's step 14.1, in double."""
    if step < warmup:
        return peak * (step + 1) / warmup
    return peak * (total - step) / (total - warmup)


def parse_args(argv):
    ap = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="speedrun", help="speedrun (lessons/14_speedrun/models), a lesson 12 name, "
                    "@FILE or a layer list")
    ap.add_argument("--dataset", choices=["mnist", "fashion"], default="mnist")
    ap.add_argument("--data", metavar="DIR", help="the data set's folder (default: data/<its folder>)")
    ap.add_argument("--epochs", type=number(int, lambda v: 1 <= v <= 100, "an integer in 1..100"), default=3)
    ap.add_argument("--batch", type=number(int, lambda v: v >= 1, "a positive integer"), default=256)
    ap.add_argument("--optimizer", choices=["nesterov", "sgd", "adam"], default="adam")
    ap.add_argument("--lr", type=number(float, lambda v: v >= 0, "a number >= 0"), default=0.0,
                    help="the schedule's peak (0: 0.1 for nesterov and sgd, 0.003 for adam)")
    ap.add_argument("--momentum", type=number(float, lambda v: 0 <= v < 1, "a number in [0, 1)"), default=0.9)
    ap.add_argument("--weight-decay", type=number(float, lambda v: 0 <= v <= 1, "a number in [0, 1]"), default=5e-4)
    ap.add_argument("--schedule", choices=["one-cycle", "constant"], default="one-cycle")
    ap.add_argument("--warmup", type=number(float, lambda v: 0 <= v < 1, "a number in [0, 1)"), default=0.2)
    ap.add_argument("--smoothing", type=number(float, lambda v: 0 <= v < 1, "a number in [0, 1)"), default=0.1)
    ap.add_argument("--shift", type=number(int, lambda v: 0 <= v <= 8, "an integer in 0..8"), default=1)
    ap.add_argument("--seed", type=number(int, lambda v: 0 <= v < 2 ** 62, "an integer >= 0"), default=1)
    ap.add_argument("--seeds", type=number(int, lambda v: 1 <= v <= 1000, "an integer in 1..1000"), default=10)
    ap.add_argument("--train-limit", type=number(int, lambda v: v >= 0, "an integer >= 0"), default=0)
    ap.add_argument("--test-limit", type=number(int, lambda v: v >= 0, "an integer >= 0"), default=0)
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    ap.add_argument("--mode", choices=["eager", "graph", "compile-graph", "expert"], default="expert")
    ap.add_argument("--steps-per-graph", type=number(int, lambda v: v >= 1, "a positive integer"), default=50,
                    help="expert: training steps in each CUDA graph (default 50)")
    ap.add_argument("--channels-last", action="store_true", help="the network and the images in channels_last")
    ap.add_argument("--amp", choices=["off", "bf16"], default="off")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)
    if args.device == "cpu" and (args.mode != "eager" or args.amp != "off" or args.channels_last):
        raise InputError("--device cpu runs --mode eager --amp off only, without --channels-last")
    if args.json:
        tool_io.check_output_path(args.json, "--json")
    if args.lr == 0:
        args.lr = DEFAULT_LR[args.optimizer]
    named = os.path.join(SPEEDRUN_MODELS, args.model + ".txt")
    if not any(ch in args.model for ch in "/@,.") and os.path.exists(named):
        args.model = "@" + named
    return args


def shift_images(x, shift):
    """Each image moved by its own (dy, dx) in -shift..shift, zero fill (as the course's 14.3)."""
    if shift == 0:
        return x
    n, c, h, w = x.shape
    moves = torch.randint(-shift, shift + 1, (n, 2), device=x.device)
    padded = F.pad(x, (shift, shift, shift, shift))
    rows = torch.arange(h, device=x.device)[None, :] - moves[:, :1] + shift   # n x h: source row in padded
    cols = torch.arange(w, device=x.device)[None, :] - moves[:, 1:] + shift   # n x w
    batch = torch.arange(n, device=x.device)[:, None, None]
    return padded.permute(0, 2, 3, 1)[batch, rows[:, :, None], cols[:, None, :]].permute(0, 3, 1, 2)


def update_class():
    """The optimizer's step with the rate table[counter], counter += 1: tensors only, capturable (the class
    is made once PyTorch is loaded)."""
    class Update:
        """The optimizer's step with the rate table[counter], counter += 1: tensors only, capturable."""

        def __init__(self, params, args, rates):
            self.params, self.args = params, args
            self.rates = rates
            device = rates.device
            self.counter = torch.zeros(1, dtype=torch.int64, device=device)
            # Constants as tensors made here: a tensor made from a Python number inside a capture would
            # be a copy from the host, which a CUDA graph cannot hold.
            self.betas = torch.tensor([0.9, 0.999], dtype=torch.float32, device=device)
            self.state = [torch.zeros_like(p) for p in params]
            self.state2 = [torch.zeros_like(p) for p in params] if args.optimizer == "adam" else []

        def reset(self):
            self.counter.zero_()
            for t in self.state + self.state2:
                t.zero_()

        @torch.no_grad()
        def step(self):
            a = self.args
            grads = [p.grad for p in self.params]
            lr = self.rates.index_select(0, self.counter).squeeze(0)  # on the GPU: no value comes to the host
            self.counter.add_(1)
            if a.weight_decay > 0:
                torch._foreach_add_(grads, self.params, alpha=a.weight_decay)
            if a.optimizer == "adam":
                t = self.counter.to(torch.float32).squeeze(0)
                torch._foreach_mul_(self.state, 0.9)
                torch._foreach_add_(self.state, grads, alpha=1 - 0.9)
                torch._foreach_mul_(self.state2, 0.999)
                torch._foreach_addcmul_(self.state2, grads, grads, value=1 - 0.999)
                bias1 = 1 - torch.pow(self.betas[0], t)
                bias2 = 1 - torch.pow(self.betas[1], t)
                denom = torch._foreach_sqrt(self.state2)
                torch._foreach_div_(denom, torch.sqrt(bias2))
                torch._foreach_add_(denom, 1e-8)
                steps = torch._foreach_div(self.state, denom)
                torch._foreach_mul_(steps, lr / bias1)
                torch._foreach_sub_(self.params, steps)
                return
            torch._foreach_mul_(self.state, a.momentum)
            torch._foreach_add_(self.state, grads)
            # Nesterov steps along g + momentum * v (the new v), SGD along v.
            steps = torch._foreach_add(grads, self.state, alpha=a.momentum) if a.optimizer == "nesterov" else self.state
            steps = torch._foreach_mul(steps, lr)
            torch._foreach_sub_(self.params, steps)

    return Update


def main(argv):
    args = parse_args(argv)
    layers = model_layers(args.model)
    text = ",".join(layer.text() for layer in layers)
    data_dir = args.data or os.path.join(ROOT, "data", DATASETS[args.dataset][0])
    (train_images, train_labels), (test_images, test_labels) = load_data(args.dataset, data_dir, args.train_limit,
                                                                         args.test_limit, args.device)
    in_shape = tuple(train_images.shape[1:])
    plan(layers, text, in_shape)
    need = pytorch_layers.check_memory(layers, text, in_shape, args.batch, args.optimizer, args.device,
                                       train_images.shape[0] + test_images.shape[0])
    load_torch(args, need, text)
    device = torch.device(args.device)
    if args.device == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cudnn.benchmark = True
    sync = torch.cuda.synchronize if args.device == "cuda" else (lambda: None)

    x_train, y_train = to_device(train_images, train_labels, device)
    x_test, y_test = to_device(test_images, test_labels, device)
    n, batch = x_train.shape[0], min(args.batch, x_train.shape[0])
    steps_per_epoch = (n + batch - 1) // batch
    total = steps_per_epoch * args.epochs
    warmup = min(total - 1, round(args.warmup * total))
    rates = torch.tensor([one_cycle_lr(s, total, warmup, args.lr) if args.schedule == "one-cycle" else args.lr
                          for s in range(total)], dtype=torch.float32, device=device)

    model = build_network(layers, in_shape, args.seed).to(device)
    if args.channels_last:
        model = model.to(memory_format=torch.channels_last)
        x_train = x_train.contiguous(memory_format=torch.channels_last)
        x_test = x_test.contiguous(memory_format=torch.channels_last)
    params = list(model.parameters())
    update = update_class()(params, args, rates)
    net = torch.compile(model, dynamic=False) if args.mode == "compile-graph" else model
    static_idx = {b: torch.zeros(b, dtype=torch.int64, device=device) for b in sorted({batch, n % batch} - {0})}

    def body(idx):
        with autocast(args.amp):
            loss = F.cross_entropy(net(shift_images(x_train[idx], args.shift)), y_train[idx],
                                   label_smoothing=args.smoothing)
        loss.backward()
        update.step()

    run_step = run_epoch = None
    setup = time.perf_counter()
    if args.mode == "expert":
        loss_of = torch.compile(lambda x, y: F.cross_entropy(model(shift_images(x, args.shift)), y,
                                                             label_smoothing=args.smoothing),
                                mode=EXPERT_COMPILE, dynamic=False)
        update_step = torch.compile(update.step, dynamic=False)

        def expert_step(order, s, b):
            for p in params:
                p.grad = None
            idx = order[s * batch: s * batch + b]
            with autocast(args.amp):
                loss = loss_of(x_train[idx], y_train[idx])
            loss.backward()
            update_step()

        # Nothing to restore after warm-up and capture: every seed starts from fresh weights, a
        # reset update and its own random state.
        run_epoch = epoch_graphs(expert_step, lambda: None, n, batch, args.steps_per_graph, device)
    elif args.mode == "eager":
        def run_step(idx):
            for p in params:
                p.grad = None
            body(idx)
    else:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # warm-up: compiles, picks cuDNN's algorithms
            for b in static_idx:
                for _ in range(3):
                    for p in params:
                        p.grad = None
                    body(static_idx[b])
        torch.cuda.current_stream().wait_stream(side)
        graphs, pool = {}, None
        for b in static_idx:
            for p in params:
                p.grad = None
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g, pool=pool):
                body(static_idx[b])
            pool = g.pool()
            graphs[b] = g

        def run_step(idx):
            static_idx[idx.numel()].copy_(idx)
            graphs[idx.numel()].replay()
    sync()
    setup_s = time.perf_counter() - setup
    how = (f"expert (shift, model and loss compiled with {EXPERT_COMPILE}, update compiled, "
           f"{run_epoch.graphs} CUDA graph(s) an epoch of up to {args.steps_per_graph} steps)"
           if run_epoch else args.mode)
    print(f"pytorch {torch.__version__}, {how}, amp {args.amp}, "
          f"{'channels_last' if args.channels_last else 'NCHW'}: network {text}; {args.optimizer} lr {args.lr:g} "
          f"({args.schedule}), momentum {args.momentum:g}, weight decay {args.weight_decay:g}, batch {batch}, "
          f"{args.epochs} epoch(s), label smoothing {args.smoothing:g}, shifts up to {args.shift} px; "
          f"set-up {setup_s:.1f} s (not timed)", flush=True)

    runs = []
    for seed in range(args.seed, args.seed + args.seeds):
        fresh = build_network(layers, in_shape, seed).to(device)
        with torch.no_grad():
            for p, q in zip(params, fresh.parameters()):
                p.copy_(q)
        update.reset()
        torch.manual_seed(seed)
        orders = [torch.randperm(n, device=device) for _ in range(args.epochs)]  # before the clock
        model.train()
        sync()
        if args.device == "cuda":
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
        began = time.perf_counter()
        for order in orders:
            if run_epoch:
                run_epoch(order)
            else:
                for first in range(0, n, batch):
                    run_step(order[first:first + batch])
        if args.device == "cuda":
            stop.record()
            stop.synchronize()
            train_ms = start.elapsed_time(stop)
        else:
            train_ms = (time.perf_counter() - began) * 1e3
        model.eval()
        with torch.no_grad(), autocast(args.amp):
            correct = sum(int((model(x_test[i:i + 1000]).argmax(1) == y_test[i:i + 1000]).sum())
                          for i in range(0, x_test.shape[0], 1000))
        accuracy = correct / x_test.shape[0]
        runs.append({"seed": seed, "accuracy": accuracy, "train_ms": train_ms})
        print(f"pytorch seed {seed:3d}  test acc {100 * accuracy:6.2f} %  training {train_ms:8.1f} ms", flush=True)

    mean = statistics.mean(r["accuracy"] for r in runs)
    least = min(r["accuracy"] for r in runs)
    median_ms = statistics.median(r["train_ms"] for r in runs)
    print(f"pytorch {len(runs)} seed(s): mean test accuracy {100 * mean:.2f} %, minimum {100 * least:.2f} %; "
          f"median training time {median_ms / 1e3:.3f} s", flush=True)
    if args.json:
        tool_io.write_atomically(args.json, json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name(0) if args.device == "cuda"
                       else "cpu", "mode": args.mode, "amp": args.amp, "channels_last": args.channels_last,
                       "graphs_per_epoch": run_epoch.graphs if run_epoch else None, "model": text, "recipe": vars(args),
                       "setup_seconds": setup_s, "runs": runs, "mean_accuracy": mean, "min_accuracy": least,
                       "median_train_ms": median_ms}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    tool_io.run_tool(main, sys.argv[1:])
