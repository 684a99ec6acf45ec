#!/usr/bin/env python3
"""PyTorch on the CPU, the bar of lesson 11: the small CNN (or model A) on MNIST, FP32, SGD with
momentum, the course's recipe, with a given number of threads. Times the training part of each
epoch (the test set is evaluated outside the timing), prints one line per epoch and, with --json,
writes the numbers. It also says which BLAS library PyTorch has loaded (the shared objects mapped
into this process after a matrix product), since that decides its speed.

Needs python3 with PyTorch (Debian 12: apt-get install python3-torch; for OpenBLAS instead of the
reference BLAS also libopenblas0-pthread). Installs nothing.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from pytorch_mnist import ModelA, SmallCnn, load  # noqa: E402


def blas_libraries():
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
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "..", "data", "mnist"))
    ap.add_argument("--model", choices=["a", "small"], default="small")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=0.02)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--train-limit", type=int, default=0, help="use only the first N training images (0: all)")
    ap.add_argument("--json", help="write results here")
    args = ap.parse_args()
    if args.threads < 1 or args.epochs < 1 or args.batch < 1:
        raise SystemExit("error: --threads, --epochs and --batch must be >= 1")
    if not os.path.exists(os.path.join(args.data, "train-images-idx3-ubyte")):
        raise SystemExit(f"error: no MNIST in {args.data} (run data/fetch_mnist.sh)")

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    device = torch.device("cpu")
    x_train, y_train = load(args.data, "train", device)
    x_test, y_test = load(args.data, "test", device)
    if args.train_limit > 0:
        x_train, y_train = x_train[: args.train_limit], y_train[: args.train_limit]
    model = ModelA() if args.model == "a" else SmallCnn()
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    blas = blas_libraries()
    print(f"pytorch {torch.__version__} on the CPU, {torch.get_num_threads()} thread(s); BLAS loaded: "
          + ", ".join(blas))
    results = {"torch": torch.__version__, "threads": torch.get_num_threads(), "blas": blas,
               "epoch_seconds": [], "test_accuracy": [], "train_loss": []}
    n = x_train.shape[0]
    for epoch in range(args.epochs):
        order = torch.randperm(n)
        model.train()
        loss_sum = 0.0
        start = time.perf_counter()
        for first in range(0, n, args.batch):
            idx = order[first: first + args.batch]
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(x_train[idx]), y_train[idx])
            loss.backward()
            opt.step()
            loss_sum += loss.item() * idx.numel()
        seconds = time.perf_counter() - start
        model.eval()
        with torch.no_grad():
            correct = sum(int((model(x_test[i: i + 1000]).argmax(1) == y_test[i: i + 1000]).sum())
                          for i in range(0, x_test.shape[0], 1000))
        acc = correct / x_test.shape[0]
        print(f"pytorch epoch {epoch + 1}: train loss {loss_sum / n:.4f}, test accuracy {100 * acc:.2f} %, "
              f"{seconds:.3f} s")
        results["epoch_seconds"].append(seconds)
        results["test_accuracy"].append(acc)
        results["train_loss"].append(loss_sum / n)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f)


if __name__ == "__main__":
    main()
