#!/usr/bin/env python3
"""PyTorch on the CPU, the bar of lesson 11: the small CNN (or model A) on MNIST, FP32, SGD with
momentum, the course's recipe. Times the training part of each epoch (the test set is evaluated
outside the timing), prints one line per epoch and, with --json, writes the numbers and what ran.

How PyTorch is set up on the CPU decides its speed, so every choice an expert makes is a flag:
  --threads N        PyTorch's own pool (OpenMP): torch.set_num_threads(N), one inter-op thread
  --blas-threads N   the BLAS library's pool (OPENBLAS_NUM_THREADS, MKL_NUM_THREADS), set before
                     PyTorch loads it. Both pools at N on N cores run up to N x N threads when one
                     calls the other (oversubscribed); an expert keeps one of them at 1.
  --mkldnn on|off    oneDNN (mkldnn) for the convolution, or PyTorch's own im2col + BLAS path
  --channels-last    the input and the network in channels_last memory format
  --optimizer-impl   foreach (one call for every parameter) or for-loop (one call per parameter)
It also says which PyTorch build and which BLAS library ran (the shared objects mapped into this
process after a matrix product): the results depend on both.

Needs python3 with PyTorch (Debian 12: apt-get install python3-torch; for OpenBLAS instead of the
reference BLAS also libopenblas0-pthread). Installs nothing. Bad flags and data are refused in one
line "error: ..." (exit 2 and 1) before PyTorch is loaded (tools/tool_io.py).
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pytorch_mnist  # noqa: E402
import tool_io  # noqa: E402


def parse():
    number = tool_io.number
    positive = number(int, lambda v: 1 <= v <= 1 << 20, "an integer in 1..1048576")
    ap = tool_io.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "..", "data", "mnist"))
    ap.add_argument("--model", choices=["a", "small"], default="small")
    ap.add_argument("--epochs", type=positive, default=1)
    ap.add_argument("--batch", type=positive, default=32)
    ap.add_argument("--lr", type=number(float, lambda v: v > 0, "a positive number"), default=0.02)
    ap.add_argument("--momentum", type=number(float, lambda v: 0 <= v < 1, "a number in [0, 1)"), default=0.9)
    ap.add_argument("--seed", type=number(int, lambda v: 0 <= v < 2 ** 63, "an integer >= 0"), default=1)
    ap.add_argument("--threads", type=positive, default=1, help="PyTorch's own threads (OpenMP)")
    ap.add_argument("--blas-threads", type=positive, default=1, help="the BLAS library's threads")
    ap.add_argument("--mkldnn", choices=["on", "off"], default="off", help="oneDNN for the convolution")
    ap.add_argument("--channels-last", action="store_true", help="channels_last memory format")
    ap.add_argument("--optimizer-impl", choices=["foreach", "for-loop"], default="foreach")
    ap.add_argument("--train-limit", type=number(int, lambda v: v >= 0, "an integer >= 0"), default=0,
                    help="use only the first N training images (0: all)")
    ap.add_argument("--json", help="write results here")
    args = ap.parse_args()
    if args.json:
        tool_io.check_output_path(args.json, "--json")
    return args


def blas_libraries(torch):
    """The BLAS-like shared objects mapped into this process (after a product has run)."""
    a = torch.randn(64, 64)
    (a @ a).sum().item()
    names = set()
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split()[-1] if len(line.split()) >= 6 else ""
                base = os.path.basename(path)
                if any(key in base for key in ("blas", "mkl", "lapack", "blis", "dnnl")):
                    names.add(os.path.realpath(path))
    except OSError:
        return ["(cannot read /proc/self/maps)"]
    return sorted(names) or ["(none found: PyTorch's own kernels)"]


def main():
    args = parse()
    train = pytorch_mnist.read_split(args.data, "train")  # checked before PyTorch is loaded
    test = pytorch_mnist.read_split(args.data, "test")
    # The pools are sized when the libraries load: before `import torch`.
    for var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.blas_threads)
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    pytorch_mnist.load_torch()
    torch = pytorch_mnist.torch
    F = torch.nn.functional
    ModelA, SmallCnn = pytorch_mnist.ModelA, pytorch_mnist.SmallCnn

    torch.set_num_threads(args.threads)
    torch.set_num_interop_threads(1)
    torch.backends.mkldnn.enabled = args.mkldnn == "on"
    torch.manual_seed(args.seed)
    device = torch.device("cpu")
    fmt = torch.channels_last if args.channels_last else torch.contiguous_format
    x_train, y_train = pytorch_mnist.to_tensors(train, device)
    x_test, y_test = pytorch_mnist.to_tensors(test, device)
    x_train, x_test = x_train.contiguous(memory_format=fmt), x_test.contiguous(memory_format=fmt)
    if args.train_limit > 0:
        x_train, y_train = x_train[: args.train_limit], y_train[: args.train_limit]
    model = (ModelA() if args.model == "a" else SmallCnn()).to(memory_format=fmt)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum,
                          foreach=args.optimizer_impl == "foreach")
    blas = blas_libraries(torch)
    setup = (f"torch {torch.__version__}, {torch.get_num_threads()} thread(s) + {args.blas_threads} BLAS thread(s), "
             f"oneDNN {args.mkldnn}, {'channels_last' if args.channels_last else 'NCHW'}, SGD {args.optimizer_impl}")
    print(f"pytorch on the CPU: {setup}; BLAS loaded: " + ", ".join(blas), flush=True)
    results = {"torch": torch.__version__, "threads": torch.get_num_threads(), "blas_threads": args.blas_threads,
               "mkldnn": args.mkldnn, "channels_last": args.channels_last, "optimizer_impl": args.optimizer_impl,
               "setup": setup, "blas": blas, "epoch_seconds": [], "test_accuracy": [], "train_loss": []}
    n = x_train.shape[0]
    for epoch in range(args.epochs):
        order = torch.randperm(n)
        model.train()
        loss_sum = torch.zeros(())
        start = time.perf_counter()
        for first in range(0, n, args.batch):
            idx = order[first: first + args.batch]
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(x_train[idx]), y_train[idx])
            loss.backward()
            opt.step()
            loss_sum += loss.detach() * idx.numel()
        seconds = time.perf_counter() - start
        model.eval()
        with torch.no_grad():
            correct = sum(int((model(x_test[i: i + 1000]).argmax(1) == y_test[i: i + 1000]).sum())
                          for i in range(0, x_test.shape[0], 1000))
        acc = correct / x_test.shape[0]
        loss = float(loss_sum) / n
        print(f"pytorch epoch {epoch + 1}: train loss {loss:.4f}, test accuracy {100 * acc:.2f} %, {seconds:.3f} s",
              flush=True)
        results["epoch_seconds"].append(seconds)
        results["test_accuracy"].append(acc)
        results["train_loss"].append(loss)
    if args.json:
        tool_io.write_atomically(args.json, json.dumps(results) + "\n")


if __name__ == "__main__":
    tool_io.run_tool(main)
