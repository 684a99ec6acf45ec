#!/usr/bin/env python3
"""PyTorch baseline for lesson 08: model A (or the small CNN) on MNIST, FP32 with TF32 off,
the whole data set on the GPU, batch 128, SGD with momentum. Prints one line per epoch
and, with --json, writes the per-epoch seconds and accuracies.

Same recipe as `train_mnist`: each epoch shuffles the training set, steps through it in
minibatches, then evaluates the test set. Only the training part of an epoch is timed
(CUDA-synchronised before and after), as train_mnist does.

--mode picks how PyTorch runs each training step:
  eager          one Python call per operation, as people first write it (the default)
  graph          the whole step (gather of the shuffled batch, forward, loss, backward, SGD
                 update, loss sum) captured once in a CUDA graph and replayed: no Python and no
                 launch overhead per step. The last, smaller batch of an epoch has its own graph.
  compile-graph  the same whole-step graph around torch.compile's kernels
                 (mode="max-autotune-no-cudagraphs": Triton kernels, autotuned, no graphs of its
                 own). Compiling and autotuning happen before the first timed epoch; their
                 seconds are reported (setup_seconds) but not timed.
  expert         what an expert runs: the model and the loss compiled together (max-autotune, no
                 graphs of its own), a fused optimizer (torch.optim.SGD(fused=True)), and
                 --steps-per-graph steps in each CUDA graph (an epoch is a few graph replays),
                 the batch indices read on the device from the epoch's order. With
                 --channels-last the network and the images are in channels_last memory format.
--tf32 allows TF32 in cuDNN and cuBLAS (PyTorch's own default for convolutions); without it, FP32
is strict (TF32 off), as the course's FP32 trainers compute.
--amp bf16 runs the forward pass and the loss under torch.autocast with BF16 (mixed precision:
BF16 convolutions and matrix products where autocast picks them, FP32 weights, gradients and
optimizer state), in every mode.
Warm-up and capture run before the first timed epoch and change no parameter: the parameters,
the optimizer state and the random state are restored after them.

With --check-npy DIR it trains nothing: it loads the .npy files that `train_mnist --save DIR`
wrote into this file's PyTorch model (so their names and shapes must be PyTorch's), runs the
test set through it and compares the logits with DIR/test_logits.npy. DIR must hold a finished run
(its run.txt lists the files, written last).

Bad input (flags, data files, the .npy files) gives one line "error: ..." and exit status 2 (usage)
or 1; it is checked before NumPy and PyTorch are loaded (tools/tool_io.py).
"""
import argparse
import contextlib
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tool_io  # noqa: E402

# NumPy and PyTorch, and the models made from them: load_torch() sets them once the input is checked.
np = torch = nn = F = None
ModelA = SmallCnn = None

# The parameters of each model as PyTorch names and shapes them (what train_mnist --save writes).
PARAMETERS = {
    "a": {"conv1.weight": (32, 1, 5, 5), "conv1.bias": (32,), "conv2.weight": (64, 32, 5, 5), "conv2.bias": (64,),
          "fc1.weight": (512, 64 * 7 * 7), "fc1.bias": (512,), "fc2.weight": (10, 512), "fc2.bias": (10,)},
    "small": {"conv1.weight": (10, 1, 3, 3), "conv1.bias": (10,), "fc1.weight": (100, 10 * 14 * 14),
              "fc1.bias": (100,), "fc2.weight": (10, 100), "fc2.bias": (10,)},
}


def load_torch():
    """NumPy, PyTorch and the two models into this module; one line when either library is missing."""
    global np, torch, nn, F, ModelA, SmallCnn
    if torch is not None:
        return
    np = tool_io.import_numpy()
    torch = tool_io.import_torch()
    nn = torch.nn
    F = torch.nn.functional

    class ModelA(nn.Module):
        # conv 5x5x32 pad 2 -> ReLU -> max-pool 2 -> conv 5x5x64 pad 2 -> ReLU -> max-pool 2
        # -> dense 3136->512 -> ReLU -> dense 512->10
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 32, 5, padding=2)
            self.conv2 = nn.Conv2d(32, 64, 5, padding=2)
            self.fc1 = nn.Linear(64 * 7 * 7, 512)
            self.fc2 = nn.Linear(512, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            return self.fc2(F.relu(self.fc1(x.flatten(1))))

    class SmallCnn(nn.Module):
        # conv 3x3x10 pad 1 -> ReLU -> max-pool 2 -> dense 1960->100 -> ReLU -> dense 100->10
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 10, 3, padding=1)
            self.fc1 = nn.Linear(10 * 14 * 14, 100)
            self.fc2 = nn.Linear(100, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            return self.fc2(F.relu(self.fc1(x.flatten(1))))

    globals().update(ModelA=ModelA, SmallCnn=SmallCnn)


def read_split(dir_, split):
    """A split of MNIST's IDX files as tool_io reads them (read_idx_split): (images, labels), checked,
    and 28 x 28 images."""
    images_path, images, _, labels = tool_io.read_idx_split(
        dir_, split, "file not found (run data/fetch_mnist.sh, or pass --data DIR)")
    if images.dims[1:] != (28, 28):
        tool_io.fail(f"{tool_io.shown(images_path)}: images of {' x '.join(map(str, images.dims))}, expected "
                     "N x 28 x 28 (the models here are MNIST's)")
    return images, labels


def to_tensors(split, device):
    """A split from read_split as float32 images / 255 (N x 1 x 28 x 28) and int64 labels on the device."""
    images, labels = split
    pixels = np.frombuffer(images.data, dtype=np.uint8).reshape(images.dims)
    x = torch.tensor(pixels, dtype=torch.float32, device=device).div_(255.0).unsqueeze(1)
    y = torch.tensor(np.frombuffer(labels.data, dtype=np.uint8), dtype=torch.int64, device=device)
    return x, y


def load(dir_, split, device):
    """A split on the device (read_split, then to_tensors): PyTorch must be loaded."""
    load_torch()
    return to_tensors(read_split(dir_, split), device)


def read_saved(folder, model, test_images):
    """What `train_mnist --save DIR` wrote, checked before PyTorch is loaded: a finished run (run.txt),
    every parameter as float32 in PyTorch's shape, and test_logits.npy of one row of 10 a test image."""
    names = [name + ".npy" for name in PARAMETERS[model]] + ["test_logits.npy"]
    tool_io.finished_run(folder, names, "train_mnist --save DIR")
    saved = {}
    for name, shape in PARAMETERS[model].items():
        path = os.path.join(folder, name + ".npy")
        array = tool_io.read_npy(path, ("<f4",))
        if array.shape != shape:
            tool_io.fail(f"{tool_io.shown(path)}: shape {tool_io.npy_shape_text(array.shape)}, PyTorch's {name} of "
                         f"model {model} is {tool_io.npy_shape_text(shape)}")
        saved[name] = array
    path = os.path.join(folder, "test_logits.npy")
    logits = tool_io.read_npy(path, ("<f4",))
    if logits.shape != (test_images, 10):
        tool_io.fail(f"{tool_io.shown(path)}: shape {tool_io.npy_shape_text(logits.shape)}, expected "
                     f"({test_images}, 10): a row of 10 logits for each test image")
    return saved, logits


def check_saved(args, device, saved, saved_logits, test):
    """The saved parameters, loaded into PyTorch's model, must reproduce train_mnist's test logits."""
    model = (ModelA() if args.model == "a" else SmallCnn()).to(device)
    model.load_state_dict({name: torch.from_numpy(array.numpy().copy()) for name, array in saved.items()})
    x_test, y_test = to_tensors(test, device)
    expected = torch.from_numpy(saved_logits.numpy().copy()).to(device)
    model.eval()
    with torch.no_grad():
        logits = torch.cat([model(x_test[i:i + 1000]) for i in range(0, x_test.shape[0], 1000)])
    diff = float((logits - expected).abs().max())
    scale = float(expected.abs().max())
    same_class = float((logits.argmax(1) == expected.argmax(1)).float().mean())
    accuracy = float((logits.argmax(1) == y_test).float().mean())
    print(f"check-npy {args.check_npy}: {len(saved)} parameters loaded into PyTorch; test logits differ by "
          f"at most {diff:.2e} (largest |logit| {scale:.1f}); same class for {100 * same_class:.2f} % of the test set; "
          f"PyTorch's accuracy with these weights {100 * accuracy:.2f} %")
    # FP32 with a different summation order (cuDNN vs the course's kernels): about 1e-6 of the scale.
    if not diff <= 1e-4 * max(scale, 1.0):
        tool_io.fail("the logits disagree: the saved layout is not PyTorch's")


def autocast(amp):
    """BF16 autocast for the forward pass and the loss when amp is 'bf16'; nothing otherwise."""
    # Without BF16 no autocast object at all: torch.autocast(..., enabled=False) changes nothing
    # where no autocast is active (as here), but PyTorch 1.x asks the CUDA device whether it has
    # BF16 even then, which fails on a machine without CUDA (tools/pytorch_layers.py --device cpu
    # uses these step functions).
    if amp != "bf16":
        return contextlib.nullcontext()
    return torch.autocast("cuda", dtype=torch.bfloat16)


def eager_step(model, opt, x_train, y_train, loss_sum, amp):
    """One training step on the examples `idx`, op by op."""
    def step(idx):
        with autocast(amp):
            loss = F.cross_entropy(model(x_train[idx]), y_train[idx])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        loss_sum.add_(loss.detach() * idx.numel())
    return step


def graph_step(net, model, opt, x_train, y_train, loss_sum, sizes, device, amp):
    """The whole step captured in a CUDA graph per batch size in `sizes`; returns a function that
    copies the batch's indices into the graph's input and replays it. `net` runs the forward pass
    (the model, or torch.compile's version of it); `model` owns the parameters. The graphs capture
    the model as it is now (training mode: a dropout layer draws a new mask at every replay). An
    optimizer with a step counter (Adam, Adadelta) must have been made with capturable=True,
    where PyTorch has that flag, for its step to be captured."""
    restore = snapshot(model, opt, loss_sum)
    static_idx = {b: torch.zeros(b, dtype=torch.int64, device=device) for b in sizes}

    def body(b):
        idx = static_idx[b]
        with autocast(amp):
            loss = F.cross_entropy(net(x_train[idx]), y_train[idx])
        loss.backward()
        opt.step()
        loss_sum.add_(loss.detach() * b)

    # Warm-up on a side stream, as CUDA graph capture requires: compiles (compile-graph), creates
    # the momentum buffers (the optimizer's state), lets cuDNN and cuBLAS pick their algorithms and
    # workspaces.
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for b in sizes:
            for _ in range(3):
                opt.zero_grad(set_to_none=True)
                body(b)
    torch.cuda.current_stream().wait_stream(side)
    graphs, pool = {}, None
    for b in sizes:
        opt.zero_grad(set_to_none=True)  # the graph's backward allocates its gradients from its pool
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, pool=pool):
            body(b)
        pool = g.pool()
        graphs[b] = g
    torch.cuda.synchronize()
    # Undo what warm-up and capture did to the parameters, the optimizer state and the loss sum.
    # Zeroed in place (the graphs hold these tensors), the state is what a fresh optimizer starts
    # from: SGD's momentum buffers (all this script uses), and for tools/pytorch_layers.py Adam's
    # m, v and step and Adadelta's running averages and step. A step counter kept as a Python
    # number (Adadelta in PyTorch 1.x; its update does not read it) goes back to 0 as well.
    # The random state too: the first epoch's shuffle, and the dropout masks of pytorch_layers.py's
    # networks, which the graphs draw at every replay from the generator's state at that time
    # (PyTorch feeds a captured graph its seed and offset at replay), start where they would have
    # without warm-up and capture.
    restore()

    def step(idx):
        static_idx[idx.numel()].copy_(idx)
        graphs[idx.numel()].replay()
    return step


def snapshot(model, opt, loss_sum):
    """What warm-up and capture change: the parameters, the loss sum and the random state. Returns
    a function that puts them back and zeroes the optimizer's state (as a fresh optimizer has it)."""
    saved_params = [p.detach().clone() for p in model.parameters()]
    saved_loss = loss_sum.clone()
    rng = torch.cuda.get_rng_state()

    def restore():
        with torch.no_grad():
            for p, v in zip(model.parameters(), saved_params):
                p.copy_(v)
            for state in opt.state.values():
                for key, t in state.items():
                    if torch.is_tensor(t):
                        t.zero_()
                    elif key == "step":
                        state[key] = 0
        loss_sum.copy_(saved_loss)
        torch.cuda.set_rng_state(rng)
        torch.cuda.synchronize()
    return restore


def epoch_graphs(step, restore, n, batch, steps_per_graph, device, warm_up=3):
    """An epoch as a few CUDA graph replays. step(order, s, b) enqueues training step s of batch size b,
    reading its examples' indices from order[s * batch: s * batch + b] (a tensor on the device);
    steps_per_graph of them are captured in each graph, so one set of graphs serves every epoch: the
    epoch's permutation is copied into `order` and the graphs are replayed in turn. Warm-up (on a
    side stream, as capture requires: it compiles, autotunes and makes the optimizer's state) and
    capture run first; restore() then undoes what they changed. Returns the epoch function (it
    takes the epoch's order) for run_epochs, with .graphs, the number of graphs an epoch."""
    order = torch.zeros(n, dtype=torch.int64, device=device)
    full, tail = n // batch, n % batch
    # (first step, steps, batch size) of each graph: full graphs of steps_per_graph, the rest, the tail.
    plan = [(s, min(steps_per_graph, full - s), batch) for s in range(0, full, steps_per_graph)]
    if tail:
        plan.append((full, 1, tail))

    def steps(first_step, count, b):
        for s in range(first_step, first_step + count):
            step(order, s, b)

    order.copy_(torch.arange(n, device=device))
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for b in sorted({batch, tail} - {0}):
            for _ in range(warm_up):
                steps(0, 1, b)
    torch.cuda.current_stream().wait_stream(side)
    graphs, pool = [], None
    for first_step, count, b in plan:
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, pool=pool):
            steps(first_step, count, b)
        pool = g.pool()
        graphs.append(g)
    restore()

    def epoch(epoch_order):
        order.copy_(epoch_order)
        for g in graphs:
            g.replay()
    epoch.takes_epoch = True
    epoch.graphs = len(graphs)
    return epoch


EXPERT_COMPILE = "max-autotune-no-cudagraphs"  # autotuned Triton kernels; the CUDA graphs are epoch_graphs'


def expert_epoch(model, opt, x_train, y_train, loss_sum, n, batch, device, amp, steps_per_graph):
    """The expert's epoch: the model and the loss compiled together, the optimizer fused (opt),
    steps_per_graph training steps in each CUDA graph (epoch_graphs)."""
    loss_of = torch.compile(lambda x, y: F.cross_entropy(model(x), y), mode=EXPERT_COMPILE, dynamic=False)

    def step(order, s, b):
        opt.zero_grad(set_to_none=True)  # backward writes fresh gradients (none to add to)
        idx = order[s * batch: s * batch + b]
        with autocast(amp):
            loss = loss_of(x_train[idx], y_train[idx])
        loss.backward()
        opt.step()
        loss_sum.add_(loss.detach() * b)

    return epoch_graphs(step, snapshot(model, opt, loss_sum), n, batch, steps_per_graph, device)


def run_epochs(model, run_step, x_test, y_test, n, batch, epochs, amp, loss_sum, results,
               synchronize=None, start_epoch=None):
    """Each epoch: a new order of the n training examples, the training steps in batches (timed,
    synchronised before and after), then the test set in batches of 1000 (not timed). Prints one
    line per epoch and appends its seconds, test accuracy and mean training loss to results.
    start_epoch(epoch), when given, runs before each epoch's clock starts (epoch counted from 0)."""
    device = loss_sum.device
    synchronize = synchronize or torch.cuda.synchronize
    for epoch in range(epochs):
        if start_epoch:
            start_epoch(epoch)
        model.train()
        order = torch.randperm(n, device=device)
        loss_sum.zero_()
        synchronize()
        start = time.perf_counter()
        if getattr(run_step, "takes_epoch", False):
            run_step(order)  # the whole epoch at once (expert_epoch)
        else:
            for first in range(0, n, batch):
                run_step(order[first:first + batch])
        synchronize()
        seconds = time.perf_counter() - start
        model.eval()
        with torch.no_grad(), autocast(amp):
            correct = sum(int((model(x_test[i:i + 1000]).argmax(1) == y_test[i:i + 1000]).sum())
                          for i in range(0, x_test.shape[0], 1000))
        acc = correct / x_test.shape[0]
        loss = float(loss_sum) / n
        results["epoch_seconds"].append(seconds)
        results["test_accuracy"].append(acc)
        results["train_loss"].append(loss)
        print(f"pytorch epoch {epoch + 1}: train loss {loss:.4f}, test accuracy {100 * acc:.2f} %, {seconds:.3f} s",
              flush=True)


def main():
    number = tool_io.number
    ap = tool_io.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "..", "data", "mnist"))
    ap.add_argument("--model", choices=["a", "small"], default="a")
    ap.add_argument("--epochs", type=number(int, lambda v: 1 <= v <= 1000, "an integer in 1..1000"), default=3)
    ap.add_argument("--batch", type=number(int, lambda v: 1 <= v <= 60000, "an integer in 1..60000"), default=128)
    ap.add_argument("--lr", type=number(float, lambda v: v > 0, "a positive number"), default=0.05)
    ap.add_argument("--momentum", type=number(float, lambda v: 0 <= v < 1, "a number in [0, 1)"), default=0.9)
    ap.add_argument("--seed", type=number(int, lambda v: 0 <= v < 2 ** 63, "an integer >= 0"), default=1)
    ap.add_argument("--cudnn-benchmark", action="store_true", help="let cuDNN pick algorithms by timing")
    ap.add_argument("--mode", choices=["eager", "graph", "compile-graph", "expert"], default="eager",
                    help="eager ops, the whole step in one CUDA graph, torch.compile's kernels in that graph, "
                         "or an expert's configuration (see above)")
    ap.add_argument("--steps-per-graph", type=number(int, lambda v: v >= 1, "a positive integer"), default=50,
                    help="expert: training steps in each CUDA graph")
    ap.add_argument("--channels-last", action="store_true", help="the network and the images in channels_last")
    ap.add_argument("--tf32", action="store_true", help="allow TF32 in cuDNN and cuBLAS (default: strict FP32)")
    ap.add_argument("--amp", choices=["off", "bf16"], default="off",
                    help="bf16: the forward pass and the loss under BF16 autocast (mixed precision)")
    ap.add_argument("--json", help="write results here")
    ap.add_argument("--check-npy", metavar="DIR", help="check the .npy files of `train_mnist --save DIR` instead")
    args = ap.parse_args()
    if args.json:
        tool_io.check_output_path(args.json, "--json")
    # The input first, before NumPy and PyTorch: the data set and what --check-npy names.
    test = read_split(args.data, "test")
    if args.check_npy:
        saved, saved_logits = read_saved(args.check_npy, args.model, test[0].dims[0])
    else:
        train = read_split(args.data, "train")

    load_torch()
    if not torch.cuda.is_available():
        tool_io.fail("PyTorch sees no CUDA GPU")
    torch.backends.cuda.matmul.allow_tf32 = args.tf32
    torch.backends.cudnn.allow_tf32 = args.tf32
    torch.backends.cudnn.benchmark = args.cudnn_benchmark
    torch.manual_seed(args.seed)
    device = torch.device("cuda")
    if args.check_npy:
        return check_saved(args, device, saved, saved_logits, test)
    x_train, y_train = to_tensors(train, device)
    x_test, y_test = to_tensors(test, device)
    model = (ModelA() if args.model == "a" else SmallCnn()).to(device)
    if args.channels_last:
        model = model.to(memory_format=torch.channels_last)
        x_train = x_train.contiguous(memory_format=torch.channels_last)
        x_test = x_test.contiguous(memory_format=torch.channels_last)
    expert = args.mode == "expert"
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum, **({"fused": True} if expert else {}))

    n = x_train.shape[0]
    results = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "mode": args.mode, "amp": args.amp,
               "cudnn_benchmark": args.cudnn_benchmark, "channels_last": args.channels_last, "tf32": args.tf32,
               "optimizer": "SGD fused" if expert else "SGD foreach", "epoch_seconds": [], "test_accuracy": [],
               "train_loss": [], "setup_seconds": 0.0}
    loss_sum = torch.zeros((), device=device)
    run_step = eager_step(model, opt, x_train, y_train, loss_sum, args.amp)
    if expert:
        setup = time.perf_counter()
        run_step = expert_epoch(model, opt, x_train, y_train, loss_sum, n, args.batch, device, args.amp,
                                args.steps_per_graph)
        results["setup_seconds"] = time.perf_counter() - setup
        results["graphs_per_epoch"] = run_step.graphs
        print(f"pytorch expert: model and loss compiled (max-autotune), SGD fused, {run_step.graphs} CUDA graph(s) an "
              f"epoch of up to {args.steps_per_graph} steps, {'channels_last' if args.channels_last else 'NCHW'}, "
              f"{'BF16 autocast (FP32 elsewhere, TF32 ' + ('allowed' if args.tf32 else 'off') + ')' if args.amp == 'bf16' else 'TF32 allowed' if args.tf32 else 'strict FP32'}; compiled, warmed up and captured in "
              f"{results['setup_seconds']:.1f} s (not timed)", flush=True)
    elif args.mode != "eager":
        setup = time.perf_counter()
        net = torch.compile(model, mode="max-autotune-no-cudagraphs") if args.mode == "compile-graph" else model
        sizes = sorted({args.batch, n % args.batch} - {0})
        run_step = graph_step(net, model, opt, x_train, y_train, loss_sum, sizes, device, args.amp)
        torch.cuda.synchronize()
        results["setup_seconds"] = time.perf_counter() - setup
        print(f"pytorch {args.mode}: compiled, warmed up and captured in {results['setup_seconds']:.1f} s "
              f"(not timed)", flush=True)
    run_epochs(model, run_step, x_test, y_test, n, args.batch, args.epochs, args.amp, loss_sum, results)
    if args.json:
        tool_io.write_atomically(args.json, json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    tool_io.run_tool(main)
