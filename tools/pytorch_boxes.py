#!/usr/bin/env python3
"""PyTorch's baseline for lesson 15's box task: the same canvases (train_boxes --write-canvases DIR
writes them: every digit at a random size and place on a 64x64 canvas, and the box around its ink),
the same network (a layer list as tools/pytorch_layers.py reads them, ending in dense4), the same
loss on the corners as fractions of the canvas (SmoothL1Loss with --beta, or MSELoss: the mean over
the batch and the four corners, as the course's 15.4), the same optimizer and recipe (each epoch
shuffles, steps through minibatches; the test set evaluated in batches of 1000 in eval mode).
FP32 with TF32 off, eager ops: the comparison is of what the network learns, not of speed.

Reports after every epoch, as train_boxes does: the training loss, the share of test boxes whose
IoU with the true box is >= 0.5, the mean corner error in pixels (the mean distance of the predicted
corners (x0, y0) and (x1, y1) from the true ones) and the mean IoU. --json FILE writes them. Bad
input gives one line "error: ..." and exit status 2 (usage) or 1 (missing or damaged data, no GPU),
checked before NumPy and PyTorch are loaded (tools/tool_io.py).
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pytorch_layers  # noqa: E402
import tool_io  # noqa: E402
from pytorch_layers import (InputError, Parser, build_network, main_of, model_layers, number, plan,  # noqa: E402
                            write_json)

# NumPy and PyTorch, loaded once the input is checked.
np = torch = nn = None

CANVAS = 64
OUTPUTS = 4
IOU_HIT = 0.5
EVAL_BATCH = 1000


def load_torch():
    global np, torch, nn
    pytorch_layers.load_torch()
    np, torch, nn = pytorch_layers.np, pytorch_layers.torch, pytorch_layers.torch.nn


def load_split(dir_, split, limit):
    """<dir>/<split>_canvases.npy (bytes [n, 64, 64]) and <split>_boxes.npy (int32 [n, 4]), read strictly
    (tool_io.read_npy) before NumPy is loaded; the boxes' corners within the canvas."""
    missing = f"not found (train_boxes --write-canvases {tool_io.shown(dir_)} writes it)"
    canvases = tool_io.read_npy(os.path.join(dir_, f"{split}_canvases.npy"), ("|u1",), missing=missing)
    boxes = tool_io.read_npy(os.path.join(dir_, f"{split}_boxes.npy"), ("<i4",), missing=missing)
    if len(canvases.shape) != 3 or canvases.shape[1:] != (CANVAS, CANVAS):
        raise InputError(f"{dir_}/{split}_canvases.npy: expected bytes [n, {CANVAS}, {CANVAS}], got "
                         f"{list(canvases.shape)}", 1)
    if boxes.shape != (canvases.shape[0], OUTPUTS):
        raise InputError(f"{dir_}/{split}_boxes.npy: expected [{canvases.shape[0]}, {OUTPUTS}], got "
                         f"{list(boxes.shape)}", 1)
    corners = boxes.values()
    bad = next((i for i, v in enumerate(corners) if not 0 <= v <= CANVAS), None)
    if bad is not None:
        raise InputError(f"{dir_}/{split}_boxes.npy: box {bad // OUTPUTS} has the corner value {corners[bad]}, "
                         f"outside the canvas (0..{CANVAS})", 1)
    n = canvases.shape[0] if not limit else min(limit, canvases.shape[0])
    if n == 0:
        raise InputError(f"{dir_}/{split}_canvases.npy: holds no canvases", 1)
    return canvases, boxes, n


def box_scores(pred, target):
    """Per example: IoU of the predicted box with the true one (0 where the predicted one covers
    nothing) and the corner error in pixels. Both boxes as fractions of the canvas."""
    pw, ph = pred[:, 2] - pred[:, 0], pred[:, 3] - pred[:, 1]
    tw, th = target[:, 2] - target[:, 0], target[:, 3] - target[:, 1]
    iw = torch.minimum(pred[:, 2], target[:, 2]) - torch.maximum(pred[:, 0], target[:, 0])
    ih = torch.minimum(pred[:, 3], target[:, 3]) - torch.maximum(pred[:, 1], target[:, 1])
    shared = torch.where((iw > 0) & (ih > 0), iw * ih, torch.zeros_like(iw))
    iou = torch.where((pw > 0) & (ph > 0), shared / (pw * ph + tw * th - shared), torch.zeros_like(iw))
    d0 = torch.hypot(pred[:, 0] - target[:, 0], pred[:, 1] - target[:, 1])
    d1 = torch.hypot(pred[:, 2] - target[:, 2], pred[:, 3] - target[:, 3])
    return iou, 0.5 * (d0 + d1) * CANVAS


def parse_args(argv):
    ap = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", metavar="DIR", required=True, help="the folder train_boxes --write-canvases wrote")
    ap.add_argument("--model", default="boxnet", help="a layer list ending in dense4, @FILE, or a name "
                    "(lessons/15_deeper_cnns/models/NAME.txt; default boxnet)")
    ap.add_argument("--train-limit", metavar="N", type=number(int, lambda v: v >= 0, "an integer >= 0"), default=0)
    ap.add_argument("--test-limit", metavar="N", type=number(int, lambda v: v >= 0, "an integer >= 0"), default=0)
    ap.add_argument("--optimizer", choices=["sgd", "adam"], default="sgd")
    ap.add_argument("--lr", type=number(float, lambda v: v > 0, "a positive number"),
                    help="learning rate (default: sgd 0.05, adam 0.001)")
    ap.add_argument("--momentum", type=number(float, lambda v: 0 <= v < 1, "a number in [0, 1)"), default=0.9)
    ap.add_argument("--loss", choices=["smooth_l1", "squared"], default="smooth_l1")
    ap.add_argument("--beta", type=number(float, lambda v: v > 0, "a positive number"), default=0.05,
                    help="smooth_l1's beta in fractions of the canvas (default 0.05)")
    ap.add_argument("--batch", type=number(int, lambda v: v >= 1, "a positive integer"), default=128)
    ap.add_argument("--epochs", type=number(int, lambda v: v >= 1, "a positive integer"), default=10)
    ap.add_argument("--seed", type=number(int, lambda v: 0 <= v < 2 ** 63, "an integer >= 0"), default=1)
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    ap.add_argument("--json", metavar="FILE", help="write the settings and results here")
    args = ap.parse_args(argv)
    if args.lr is None:
        args.lr = 0.05 if args.optimizer == "sgd" else 0.001
    if args.json:
        tool_io.check_output_path(args.json, "--json")
    return args


def run(argv):
    args = parse_args(argv)
    layers = model_layers(args.model)
    text = ",".join(layer.text() for layer in layers)
    plan(layers, text, (1, CANVAS, CANVAS), OUTPUTS)
    splits = {split: load_split(args.data, split, limit)
              for split, limit in (("train", args.train_limit), ("test", args.test_limit))}
    pytorch_layers.check_memory(layers, text, (1, CANVAS, CANVAS), args.batch, args.optimizer, args.device,
                                splits["train"][2] + splits["test"][2])
    load_torch()
    if args.device == "cuda" and not torch.cuda.is_available():
        raise InputError("PyTorch sees no CUDA GPU", 1)
    device = torch.device(args.device)
    if args.device == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False

    def on_device(split):
        canvases, boxes, n = splits[split]
        x = torch.from_numpy(canvases.numpy()[:n].copy()).to(device).float().div_(255.0).unsqueeze(1)
        return x, torch.from_numpy(boxes.numpy()[:n].astype(np.float32)).to(device).div_(CANVAS)

    x_train, t_train = on_device("train")
    x_test, t_test = on_device("test")
    torch.manual_seed(args.seed)
    model = build_network(layers, (1, CANVAS, CANVAS), args.seed).to(device)
    parameters = sum(p.numel() for p in model.parameters())
    if args.optimizer == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    else:
        opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    loss_fn = nn.SmoothL1Loss(beta=args.beta) if args.loss == "smooth_l1" else nn.MSELoss()
    n = x_train.shape[0]
    print(f"network {text} ({parameters} parameters)")
    print(f"data {args.data}: {n} training and {x_test.shape[0]} test canvases; {args.optimizer} lr {args.lr:g}, "
          f"loss {args.loss}{f' beta {args.beta:g}' if args.loss == 'smooth_l1' else ''}, batch {args.batch}, "
          f"seed {args.seed}; PyTorch {torch.__version__} on {args.device}, FP32", flush=True)

    results = {"device": torch.cuda.get_device_name(0) if args.device == "cuda" else "cpu", "torch": torch.__version__,
               "model": text, "parameters": parameters, "optimizer": args.optimizer, "lr": args.lr,
               "loss": args.loss, "beta": args.beta, "batch": args.batch, "epochs": args.epochs, "seed": args.seed,
               "train_loss": [], "iou50": [], "corner_error": [], "mean_iou": [], "epoch_seconds": []}
    for epoch in range(1, args.epochs + 1):
        model.train()
        order = torch.randperm(n, device=device)
        loss_sum = torch.zeros((), device=device)
        if args.device == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        for first in range(0, n, args.batch):
            idx = order[first:first + args.batch]
            loss = loss_fn(model(x_train[idx]), t_train[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            loss_sum += loss.detach() * idx.numel()
        if args.device == "cuda":
            torch.cuda.synchronize()
        seconds = time.perf_counter() - start
        model.eval()
        ious, errors = [], []
        with torch.no_grad():
            for first in range(0, x_test.shape[0], EVAL_BATCH):
                iou, err = box_scores(model(x_test[first:first + EVAL_BATCH]), t_test[first:first + EVAL_BATCH])
                ious.append(iou)
                errors.append(err)
        iou, err = torch.cat(ious), torch.cat(errors)
        train_loss = float(loss_sum) / n
        if not np.isfinite(train_loss):
            raise InputError(f"epoch {epoch}: the training loss is {train_loss} (lower --lr)", 1)
        hits, corner, mean_iou = float((iou >= IOU_HIT).float().mean()), float(err.mean()), float(iou.mean())
        for key, value in (("train_loss", train_loss), ("iou50", hits), ("corner_error", corner),
                           ("mean_iou", mean_iou), ("epoch_seconds", seconds)):
            results[key].append(value)
        print(f"epoch {epoch}/{args.epochs}  train loss {train_loss:.5f}  test IoU>=.5 {100 * hits:.2f} %  "
              f"corner error {corner:.2f} pixels  mean IoU {mean_iou:.3f}  {seconds:.3f} s", flush=True)
    if args.json:
        write_json(args.json, results)


if __name__ == "__main__":
    main_of(run)
