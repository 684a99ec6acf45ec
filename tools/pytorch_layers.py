#!/usr/bin/env python3
"""PyTorch's baseline for any network the course can write as a layer list (lesson 12): the same
layers, the same initial weight distribution, the same data (MNIST, Fashion-MNIST or CIFAR-10, the
whole set on the device), the same optimizers (SGD with momentum, Adam, Adadelta: PyTorch's own
torch.optim classes) and the same recipe as the course's trainers: each epoch shuffles the
training set, steps through it in minibatches (mean softmax cross-entropy), then evaluates the
test set in batches of 1000 with dropout off. Only the training part of an epoch is timed
(synchronised before and after). FP32 with TF32 off unless --amp bf16.

The network (--model):
  a layer list, layers separated by commas (spaces around a layer are ignored):
    conv<k>x<k>x<channels>[p<pad>][s<stride>]  e.g. conv5x5x32p2, conv3x3x64s2 (square kernels)
    relu | sigmoid | tanh
    pool<window>[s<stride>]                     max-pool, stride = window unless given, no padding
    dropout<rate>                               e.g. dropout0.25: drops that fraction while training
    dense<units>                                flattens its input first
    bn                                          batch norm (BatchNorm2d: eps 1e-5, momentum 0.1)
    globalavg                                   each channel's mean (global average pooling)
    res(<layers>)                               a residual block: the layers' output plus the block's
                                                input, or, where the layers change its shape, a
                                                strided 1x1 conv and batch norm of it (lesson 15)
  the last layer must give 10 values (the classes);
  @FILE      the layers from a file: commas or lines between them, '#' starts a comment;
  NAME       lessons/12_beyond_mnist/models/NAME.txt or lessons/15_deeper_cnns/models/NAME.txt when
             there is one (as lessons 12's and 15's trainers look them up), else the course's built-in
             small, a or scaling-<filters>.
Every conv and dense weight is drawn from U(-b, b) with b = sqrt(6 / fan_in) (Kaiming-uniform,
fan_in = in_channels * k * k or in_features) by a torch.Generator seeded with --seed, in layer
order; every bias is 0. The values differ from the course's (another generator), the
distribution is the same.

--mode, --amp and --cudnn-benchmark as tools/pytorch_mnist.py (whose step functions this script
uses): eager ops, the whole training step captured in one CUDA graph, torch.compile's kernels
inside that graph, or the expert's configuration (the model and the loss compiled together with
max-autotune, the optimizer fused where PyTorch has a fused one (SGD, Adam; Adadelta foreach),
--steps-per-graph steps in each CUDA graph, the batch indices read on the device); --channels-last
puts the network and the images in channels_last; BF16 autocast for the forward pass and the loss.
--device cpu (eager only) is for quick checks without a GPU. --lr-drops (eager only: a captured
step keeps its rate) is train_deeper's step decay: a tenth of the rate from each listed epoch on.

Prints a line naming the network (its canonical layer list and parameter count), a line with the
data and the recipe, then one line per epoch; --json FILE writes the settings and the per-epoch
seconds, losses and accuracies. Bad input gives one line "error: ..." and exit status 2 (usage)
or 1 (missing or damaged data, a network or data set larger than the memory, no GPU). The flags,
the network and the data are checked before NumPy and PyTorch are loaded (tools/tool_io.py).
"""
import argparse
import collections
import inspect
import json
import math
import os
import re
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tool_io  # noqa: E402

# NumPy and PyTorch, loaded by load_torch() once the input is checked.
np = torch = nn = None

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS_DIRS = [os.path.join(ROOT, "lessons", "12_beyond_mnist", "models"),
               os.path.join(ROOT, "lessons", "15_deeper_cnns", "models")]
CLASSES = 10

# The data sets, as lesson 02's training_data.cpp knows them: --dataset's name, the folder under
# data/, the script that fetches it, and whether it is IDX (else CIFAR-10's binary batches).
DATASETS = {
    "mnist": ("mnist", "data/fetch_mnist.sh", True),
    "fashion": ("fashion-mnist", "data/fetch_fashion_mnist.sh", True),
    "cifar10": ("cifar-10", "data/fetch_cifar10.sh", False),
}
CIFAR_SIDE = 32
CIFAR_IMAGE_BYTES = 3 * CIFAR_SIDE * CIFAR_SIDE  # 3072: red, green, blue planes
CIFAR_RECORD_BYTES = 1 + CIFAR_IMAGE_BYTES       # a label byte, then the image

DEFAULT_LR = {"sgd": 0.05, "adam": 0.001, "adadelta": 1.0}
DEFAULT_EPS = {"adam": 1e-8, "adadelta": 1e-6}


class InputError(tool_io.ToolError):
    """Bad input: its message becomes the one line "error: ..." and `code` the exit status."""

    def __init__(self, message, code=2):
        super().__init__(message, code)


def load_torch():
    """NumPy and PyTorch into this module (and pytorch_mnist's step functions), once the input is
    checked; one line when either is missing."""
    global np, torch, nn
    np = tool_io.import_numpy()
    torch = tool_io.import_torch()
    nn = torch.nn
    import pytorch_mnist
    pytorch_mnist.load_torch()
    return pytorch_mnist


def torch_for_run(args, need, text):
    """PyTorch loaded (load_torch), and what the run asks of it there: torch.compile for the compiled
    modes, a CUDA GPU with room for `need` bytes."""
    pytorch_mnist = load_torch()
    if args.mode in ("compile-graph", "expert") and not hasattr(torch, "compile"):
        raise InputError(f"--mode {args.mode} needs torch.compile (PyTorch 2), this is PyTorch {torch.__version__}")
    if args.device == "cuda" and not torch.cuda.is_available():
        raise InputError("PyTorch sees no CUDA GPU", 1)
    if args.device == "cuda":
        check_gpu_memory(need, text, args.batch)
    return pytorch_mnist


def float32(value):
    """`value` rounded to the nearest float32, as a Python float."""
    return struct.unpack("<f", struct.pack("<f", value))[0]


# ---- the network as text (the grammar of framework/src/model_text.cpp) ----------------------------

GRAMMAR = ("layers look like conv5x5x32 (kernel 5x5, 32 channels; p2: pad 2, s2: stride 2), relu, sigmoid, "
           "tanh, pool2 (2x2 windows; s1: stride 1), dropout0.25 (drops a quarter while training), dense10, bn, "
           "globalavg, res(<layers>)")
LAYER_WORDS = ("conv", "relu", "pool", "dense", "sigmoid", "tanh", "dropout", "bn", "globalavg", "res(")


class Layer:
    def __init__(self, kind, out=0, kernel=0, pad=0, stride=1, window=2, rate=0.0, body=None):
        self.kind, self.out, self.kernel, self.pad, self.stride = kind, out, kernel, pad, stride
        self.window, self.rate, self.body = window, rate, body or []

    def text(self):
        """The canonical text, as the course's layer_text writes it."""
        if self.kind == "conv":
            return (f"conv{self.kernel}x{self.kernel}x{self.out}" + (f"p{self.pad}" if self.pad else "") +
                    (f"s{self.stride}" if self.stride != 1 else ""))
        if self.kind == "pool":
            return f"pool{self.window}" + (f"s{self.stride}" if self.stride != self.window else "")
        if self.kind == "dense":
            return f"dense{self.out}"
        if self.kind == "dropout":
            return "dropout" + shortest_text(self.rate)
        if self.kind == "res":
            return "res(" + ",".join(layer.text() for layer in self.body) + ")"
        return self.kind


def shortest_text(value):
    """The shortest decimal that reads back as the float32 `value` ("0.25", not "0.25000000")."""
    text = repr(float(value))
    for digits in range(1, 10):
        text = "%.*g" % (digits, float(value))
        if float32(float(text)) == float32(value):
            break
    return text


def read_int(token, pos, lo, hi):
    """The digits at token[pos:] as an int in [lo, hi] and the position after them, or None (no
    digits, more than 7, or out of range)."""
    m = re.compile(r"[0-9]{1,7}").match(token, pos)
    if not m or (m.end() < len(token) and token[m.end()].isdigit()):
        return None
    value = int(m.group())
    return (value, m.end()) if lo <= value <= hi else None


def parse_layer(token):
    """One layer from its token; raises ValueError with what a layer of its kind looks like."""
    if token in ("relu", "sigmoid", "tanh", "bn", "globalavg"):
        return Layer(token)
    if token.startswith("dropout"):
        rate_text = token[7:]
        ok = (0 < len(rate_text) <= 12 and re.fullmatch(r"[0-9.]+", rate_text) and rate_text.count(".") <= 1 and
              rate_text != ".")
        rate = float32(float(rate_text)) if ok else -1.0
        if not (0 <= rate < 1):
            raise ValueError("a dropout layer is dropout<rate> with 0 <= rate < 1, e.g. dropout0.25")
        return Layer("dropout", rate=float(rate))
    if token.startswith("conv"):
        shape_error = "a conv is conv<k>x<k>x<channels> (k 1-64, channels 1-65536), e.g. conv5x5x32"
        numbers, pos = [], 4
        for i, hi in enumerate((64, 64, 65536)):
            got = read_int(token, pos, 1, hi)
            if got is None:
                raise ValueError(shape_error)
            numbers.append(got[0])
            pos = got[1]
            if i < 2:
                if pos >= len(token) or token[pos] != "x":
                    raise ValueError(shape_error)
                pos += 1
        kh, kw, out = numbers
        if kh != kw:
            raise ValueError(f"the course's convolutions have square kernels: conv{kh}x{kh}x{out} or "
                             f"conv{kw}x{kw}x...")
        options = {}
        while pos < len(token):
            option = token[pos]
            got = read_int(token, pos + 1, 0 if option == "p" else 1, 64) if option in "ps" else None
            if got is None or option in options:
                raise ValueError("after conv<k>x<k>x<channels> come only p<pad> (0-64) and s<stride> (1-64), each once")
            options[option], pos = got
        return Layer("conv", out=out, kernel=kh, pad=options.get("p", 0), stride=options.get("s", 1))
    if token.startswith("pool"):
        got = read_int(token, 4, 1, 64)
        if got is None:
            raise ValueError("a max-pool is pool<window> (1-64), e.g. pool2, optionally s<stride>: pool3s2")
        window, pos = got
        stride = window
        if pos < len(token):
            got = read_int(token, pos + 1, 1, 64) if token[pos] == "s" else None
            if got is None or got[1] != len(token):
                raise ValueError("after pool<window> comes only s<stride> (1-64)")
            stride = got[0]
        return Layer("pool", window=window, stride=stride)
    if token.startswith("dense"):
        got = read_int(token, 5, 1, 1 << 20)
        if got is None or got[1] != len(token):
            raise ValueError("a dense layer is dense<units> (1-1048576), e.g. dense10")
        return Layer("dense", out=got[0])
    raise ValueError("unknown layer")


def looks_like_layer_list(text):
    return "," in text or text.strip(" \t\r\n").startswith(LAYER_WORDS)


def read_description_file(path, what):
    """A file of layers: commas or lines between them, '#' starting a comment; joined by commas."""
    content = tool_io.read_text(path, f"a list of layers ({what})", missing=f"file not found ({what})")
    lines = [line.split("#", 1)[0].strip(" \t\r\n") for line in content.split("\n")]
    text = ",".join(line for line in lines if line)
    if not text:
        raise InputError(f"{path}: holds no layers ({GRAMMAR})")
    return text


def split_layers(text):
    """The tokens of a layer list: split at the commas outside brackets. Raises ValueError for a
    bracket without its partner."""
    tokens, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            raise ValueError("a ')' without its '('")
        if ch == "," and depth == 0:
            tokens.append(text[start:i])
            start = i + 1
    if depth:
        raise ValueError("a '(' without its ')'")
    return tokens + [text[start:]]


def layers_from_text(text, whole=None, where=""):
    """The layers of `text` (the course's model_from_text); `where` numbers the layers of a block's
    body in messages ("3." for block 3), counting from 1 as the course does."""
    whole = whole or text
    try:
        tokens = split_layers(text)
    except ValueError as e:
        raise InputError(f"network '{whole}': {e} ({GRAMMAR})")
    layers = []
    for index, token in enumerate(tokens):
        token = token.strip(" \t\r\n")
        at = f"{where}{index + 1}"
        if not token:
            raise InputError(f"network '{whole}', layer {at} '': no layer here: an empty list, two commas in a row "
                             f"or a trailing comma ({GRAMMAR})")
        if token.startswith("res("):
            if not token.endswith(")") or where:
                why = ("a res block's body holds no res block" if where else
                       "a residual block is res(<layers>) and nothing after its ')'")
                raise InputError(f"network '{whole}', layer {at} '{token}': {why} ({GRAMMAR})")
            layers.append(Layer("res", body=layers_from_text(token[4:-1], whole, at + ".")))
            continue
        try:
            layers.append(parse_layer(token))
        except ValueError as e:
            raise InputError(f"network '{whole}', layer {at} '{token}': {e} ({GRAMMAR})")
    return layers


def builtin_model(name):
    """The course's named models (the framework's model_by_name), as layer lists."""
    if name == "small":
        return "conv3x3x10p1,relu,pool2,dense100,relu,dense10"
    if name == "a":
        return "conv5x5x32p2,relu,pool2,conv5x5x64p2,relu,pool2,dense512,relu,dense10"
    m = re.fullmatch(r"scaling-([0-9]{1,9})", name)
    if m:
        filters = int(m.group(1))
        if not 1 <= filters <= 4096:
            raise InputError(f"the scaling CNN needs 1 to 4096 filters, got {filters}")
        return f"conv3x3x{filters},relu,pool2,dense10"
    return None


def model_layers(model):
    """--model's layers, looked up in lesson 12's order (train_flags.cpp, model_by_name): a
    description file lessons/12_beyond_mnist/models/NAME.txt for a NAME without any of / @ , .;
    @FILE; the built-in small, a, scaling-<filters>; a layer list."""
    for models_dir in MODELS_DIRS:
        path = os.path.join(models_dir, model + ".txt")
        if model and not any(ch in model for ch in "/@,.") and os.path.isfile(path):
            return layers_from_text(read_description_file(path, f"the network '{model}'"))
    if model.startswith("@"):
        return layers_from_text(read_description_file(model[1:], "a network description"))
    builtin = builtin_model(model)
    if builtin is not None:
        return layers_from_text(builtin)
    if looks_like_layer_list(model):
        return layers_from_text(model)
    names = []
    for models_dir in MODELS_DIRS:
        try:
            names += sorted(f[:-4] for f in os.listdir(models_dir) if f.endswith(".txt"))
        except OSError:
            pass
    named = ", ".join(names + ["small", "a", "scaling-<filters>"])
    raise InputError(f"unknown model '{model}': not one of {named} (lessons/12_beyond_mnist/models/NAME.txt, "
                     f"lessons/15_deeper_cnns/models/NAME.txt), "
                     f"not a layer list and not @FILE; a layer list looks like conv5x5x32p2,relu,pool2,dense10 "
                     f"({GRAMMAR})")


def shortcut_stride(before, after):
    """The stride of the 1x1 conv that makes a block's input the shape of its body's output (the
    course's plan_layers), 0 when the shapes already match, None when no stride does."""
    (c, h, w), (oc, oh, ow) = before, after
    if (c, h, w) == (oc, oh, ow):
        return 0
    return next((s for s in range(1, 65) if (h - 1) // s + 1 == oh and (w - 1) // s + 1 == ow), None)


def plan_list(layers, text, in_shape, shape, where=""):
    c, h, w = shape
    shapes = []
    for i, layer in enumerate(layers):
        at = f"network '{text}', layer {where}{i + 1} '{layer.text()}'"
        if layer.kind == "conv":
            if h + 2 * layer.pad < layer.kernel or w + 2 * layer.pad < layer.kernel:
                raise InputError(f"{at}: kernel {layer.kernel}x{layer.kernel} larger than its input "
                                 f"{c}x{h}x{w}" + (f" padded by {layer.pad}" if layer.pad else "") +
                                 f" (input images {'x'.join(map(str, in_shape))})")
            c, h, w = (layer.out, (h + 2 * layer.pad - layer.kernel) // layer.stride + 1,
                       (w + 2 * layer.pad - layer.kernel) // layer.stride + 1)
        elif layer.kind == "pool":
            if h < layer.window or w < layer.window:
                raise InputError(f"{at}: pool window {layer.window}x{layer.window} larger than its input "
                                 f"{c}x{h}x{w} (input images {'x'.join(map(str, in_shape))})")
            h, w = (h - layer.window) // layer.stride + 1, (w - layer.window) // layer.stride + 1
        elif layer.kind == "dense":
            c, h, w = layer.out, 1, 1
        elif layer.kind == "globalavg":
            h, w = 1, 1
        elif layer.kind == "res":
            if any(inner.kind in ("res", "dense", "globalavg") for inner in layer.body):
                raise InputError(f"{at}: a res block's body holds no res, dense or globalavg layer")
            after = plan_list(layer.body, text, in_shape, (c, h, w), f"{where}{i + 1}.")[-1]
            if shortcut_stride((c, h, w), after) is None:
                raise InputError(f"{at}: the body makes {h}x{w} into {after[1]}x{after[2]}, which no strided 1x1 "
                                 f"projection of the input matches")
            c, h, w = after
        shapes.append((c, h, w))
    return shapes


def plan(layers, text, in_shape, outputs=CLASSES):
    """The shape (C, H, W) after every layer; raises InputError when a layer does not fit, or the
    last layer does not give `outputs` values (the 10 classes; the course's plan_layers)."""
    shapes = plan_list(layers, text, in_shape, in_shape)
    c, h, w = shapes[-1]
    if c * h * w != outputs:
        what = f"the data set has {CLASSES} classes" if outputs == CLASSES else f"the task needs {outputs} outputs"
        raise InputError(f"network '{text}': the last layer '{layers[-1].text()}' gives {c * h * w} values, {what} "
                         f"(end the network with dense{outputs})")
    return shapes


def network_size(layers, in_shape):
    """(parameters, values): how many parameters the network has, and how many values all its layers'
    outputs hold for one example. Counted from the plan, before anything is allocated."""
    params, values = 0, 0

    def walk(layer_list, shape):
        nonlocal params, values
        c, h, w = shape
        for layer in layer_list:
            if layer.kind == "conv":
                params += layer.out * (c * layer.kernel * layer.kernel + 1)
                c, h, w = (layer.out, (h + 2 * layer.pad - layer.kernel) // layer.stride + 1,
                           (w + 2 * layer.pad - layer.kernel) // layer.stride + 1)
            elif layer.kind == "pool":
                h, w = (h - layer.window) // layer.stride + 1, (w - layer.window) // layer.stride + 1
            elif layer.kind == "dense":
                params += layer.out * (c * h * w + 1)
                c, h, w = layer.out, 1, 1
            elif layer.kind == "bn":
                params += 2 * c
            elif layer.kind == "globalavg":
                h, w = 1, 1
            elif layer.kind == "res":
                after = walk(layer.body, (c, h, w))
                if after != (c, h, w):  # the shortcut's 1x1 conv and batch norm
                    params += after[0] * (c + 1) + 2 * after[0]
                    values += after[0] * after[1] * after[2]
                c, h, w = after
            values += c * h * w
        return c, h, w

    walk(layers, in_shape)
    return params, values


def training_bytes(params, values, batch, optimizer):
    """About the memory training takes (bytes): the parameters, their gradients and the optimizer's
    state (SGD's momentum, Adam's and Adadelta's two averages), and every layer's output for a batch,
    kept for the backward pass beside its gradient."""
    states = {"sgd": 1, "adam": 2, "adadelta": 2}.get(optimizer, 2)
    return 4 * (params * (2 + states) + 2 * values * batch)


def residual_class():
    """The module of a res block (made once PyTorch is loaded)."""
    class Residual(nn.Module):
        """body(x) + shortcut(x), the shortcut the input itself or a strided 1x1 conv and batch norm."""

        def __init__(self, body, shortcut):
            super().__init__()
            self.body = body
            self.shortcut = shortcut

        def forward(self, x):
            return self.body(x) + (self.shortcut(x) if self.shortcut is not None else x)

    return Residual


def build_network(layers, in_shape, seed):
    """The layers as an nn.Sequential named like the course's parameters (conv1, ..., fc1, ...),
    with Kaiming-uniform weights from a generator seeded with `seed` and zero biases; batch norm
    starts at gamma 1, beta 0 (PyTorch's and the course's). A res block is a Residual module whose
    body is an nn.Sequential of its layers."""
    Residual = residual_class()
    generator = torch.Generator().manual_seed(seed)

    def init(module, fan_in):
        bound = math.sqrt(6.0 / fan_in)
        with torch.no_grad():
            module.weight.uniform_(-bound, bound, generator=generator)
            module.bias.zero_()
        return module

    def build(layer_list, shape, counts):
        modules = collections.OrderedDict()

        def add(kind, module):
            counts[kind] += 1
            modules[f"{kind}{counts[kind]}"] = module

        c, h, w = shape
        flat = False  # the activations are N x C (after a dense layer), not N x C x H x W
        for layer in layer_list:
            if layer.kind in ("conv", "pool", "bn", "globalavg", "res") and flat:
                add("unflatten", nn.Unflatten(1, (c, 1, 1)))
                flat = False
            if layer.kind == "conv":
                add("conv", init(nn.Conv2d(c, layer.out, layer.kernel, stride=layer.stride, padding=layer.pad),
                                 c * layer.kernel * layer.kernel))
                c, h, w = (layer.out, (h + 2 * layer.pad - layer.kernel) // layer.stride + 1,
                           (w + 2 * layer.pad - layer.kernel) // layer.stride + 1)
            elif layer.kind == "pool":
                add("pool", nn.MaxPool2d(layer.window, stride=layer.stride))
                h, w = (h - layer.window) // layer.stride + 1, (w - layer.window) // layer.stride + 1
            elif layer.kind == "dense":
                if not flat:
                    add("flatten", nn.Flatten(1))
                add("fc", init(nn.Linear(c * h * w, layer.out), c * h * w))
                c, h, w, flat = layer.out, 1, 1, True
            elif layer.kind == "dropout":
                add("dropout", nn.Dropout(layer.rate))
            elif layer.kind == "bn":
                add("bn", nn.BatchNorm2d(c))
            elif layer.kind == "globalavg":
                add("avgpool", nn.AdaptiveAvgPool2d(1))
                h, w = 1, 1
            elif layer.kind == "res":
                body, after, _ = build(layer.body, (c, h, w), counts)
                stride = shortcut_stride((c, h, w), after)
                shortcut = None
                if stride:  # the course's order: the body's parameters, then the shortcut's
                    counts["conv"] += 1
                    counts["bn"] += 1
                    shortcut = nn.Sequential(init(nn.Conv2d(c, after[0], 1, stride=stride), c), nn.BatchNorm2d(after[0]))
                add("res", Residual(body, shortcut))
                c, h, w = after
            else:
                add(layer.kind, {"relu": nn.ReLU, "sigmoid": nn.Sigmoid, "tanh": nn.Tanh}[layer.kind]())
        return nn.Sequential(modules), (c, h, w), flat

    net, _, flat = build(layers, in_shape, collections.Counter())
    if not flat:
        net.add_module("flatten", nn.Flatten(1))  # a network ending in 10 x 1 x 1 gives N x 10 logits
    return net


# ---- data ----------------------------------------------------------------------------------------

class Images:
    """A split's pixels as read (uint8 bytes, N x C x H x W, row-major) and their shape: what
    to_device turns into a tensor once PyTorch is loaded."""

    def __init__(self, pixels, shape):
        self.pixels, self.shape = pixels, tuple(shape)


def data_files(dataset, dir_):
    """The files of a data set's folder, training split first."""
    if DATASETS[dataset][2]:
        return [os.path.join(dir_, f"{p}-{k}-idx{3 if k == 'images' else 1}-ubyte") for p in ("train", "t10k")
                for k in ("images", "labels")]
    return [os.path.join(dir_, f"data_batch_{i}.bin") for i in range(1, 6)] + [os.path.join(dir_, "test_batch.bin")]


def load_idx_split(dir_, split, limit):
    """A split of an MNIST-like folder, checked (tool_io.read_idx_split), its first `limit` images."""
    images_path, images, _, labels = tool_io.read_idx_split(dir_, split)
    count, rows, cols = images.dims
    n = count if limit == 0 else min(limit, count)
    return Images(images.data[:n * rows * cols] if n < count else images.data, (n, 1, rows, cols)), labels.data[:n], \
        images_path


def load_cifar_split(dir_, split, limit):
    names = [f"data_batch_{i}.bin" for i in range(1, 6)] if split == "train" else ["test_batch.bin"]
    paths = [os.path.join(dir_, name) for name in names]
    records = []
    for path in paths:  # every file's size first, as the course does
        size = tool_io.input_size(path, "a CIFAR-10 batch file")
        if size == 0:
            raise InputError(f"{path}: empty file (0 bytes); a CIFAR-10 batch is a list of 3073-byte records", 1)
        if size % CIFAR_RECORD_BYTES:
            raise InputError(f"{path}: {size} bytes is not a whole number of 3073-byte CIFAR-10 records "
                             f"({size % CIFAR_RECORD_BYTES} bytes left over after {size // CIFAR_RECORD_BYTES} "
                             f"records): the Python version of the data set, or a cut download? "
                             f"data/fetch_cifar10.sh gets the binary version", 1)
        records.append(size // CIFAR_RECORD_BYTES)
    wanted = sum(records) if limit == 0 else min(limit, sum(records))
    pixels, labels = [], []
    for path, count in zip(paths, records):
        if sum(len(part) for part in labels) >= wanted:
            break
        data = tool_io.read_bytes(path, "a CIFAR-10 batch file")
        if len(data) != count * CIFAR_RECORD_BYTES:
            raise InputError(f"{path}: read error (did the file change while it was read?)", 1)
        file_labels = data[0::CIFAR_RECORD_BYTES]
        if max(file_labels) > 9:
            bad = next(i for i, v in enumerate(file_labels) if v > 9)
            raise InputError(f"{path}: label {file_labels[bad]} in record {bad} (counting from 0) is outside 0..9", 1)
        take = min(count, wanted - sum(len(part) for part in labels))
        labels.append(file_labels[:take])
        pixels.append(b"".join(data[r * CIFAR_RECORD_BYTES + 1:(r + 1) * CIFAR_RECORD_BYTES] for r in range(take)))
    return Images(b"".join(pixels), (wanted, 3, CIFAR_SIDE, CIFAR_SIDE)), b"".join(labels), paths[0]


def check_data_memory(dataset, dir_, device):
    """Refuses, before anything is read, a data set this machine cannot load, naming its largest file:
    the bytes as read and their copies on the way to the device, and the float32 images where the
    device is this machine's memory. Refuses a FIFO, a device or a folder in a file's place too."""
    sizes = {path: tool_io.input_size(path, "a CIFAR-10 batch file" if path.endswith(".bin") else "an IDX file")
             for path in data_files(dataset, dir_)}
    need = sum(sizes.values()) * (3 + (4 if device == "cpu" else 0))
    free = tool_io.free_memory()
    if free is not None and need > free:
        largest = max(sizes, key=sizes.get)
        raise InputError(f"{largest}: {sizes[largest]} bytes: the {dataset} data set needs about {tool_io.gib(need)} "
                         f"to load, more than the {tool_io.gib(free)} this machine has free (a damaged or sparse file "
                         "that declares more images than it holds?)", 1)


def load_data(dataset, dir_, train_limit, test_limit, device="cpu"):
    """Images (uint8 N x C x H x W) and labels (bytes) of both splits, checked as the course checks them,
    before anything is read: every file a regular file of the size its header promises, the whole set
    within the free memory."""
    folder, fetch_script, idx = DATASETS[dataset]
    missing = [path for path in data_files(dataset, dir_) if not os.path.lexists(path)]
    if missing:
        raise InputError(f"no {dataset} data set in {dir_} ({os.path.basename(missing[0])} is missing): run "
                         f"{fetch_script}, or pass --data DIR", 1)
    check_data_memory(dataset, dir_, device)
    splits = {}
    for split, limit in (("train", train_limit), ("test", test_limit)):
        images, labels, first_file = (load_idx_split if idx else load_cifar_split)(dir_, split, limit)
        if images.shape[0] == 0:
            raise InputError(f"{first_file}: holds no images", 1)
        splits[split] = (images, labels, first_file)
    if splits["train"][0].shape[1:] != splits["test"][0].shape[1:]:
        raise InputError(f"{splits['test'][2]}: its images are {'x'.join(map(str, splits['test'][0].shape[1:]))}, "
                         f"the training images {'x'.join(map(str, splits['train'][0].shape[1:]))}: both splits "
                         f"must have one image size", 1)
    return splits["train"][:2], splits["test"][:2]


def to_device(images, labels, device):
    """The images as float32 pixels / 255 and the labels as int64, on the device (copied once)."""
    pixels = np.frombuffer(images.pixels, dtype=np.uint8).reshape(images.shape)
    x = torch.tensor(pixels, device=device).to(torch.float32).div_(255.0)
    y = torch.tensor(np.frombuffer(labels, dtype=np.uint8), device=device).to(torch.int64)
    return x, y


# ---- flags ---------------------------------------------------------------------------------------

Parser = tool_io.ArgumentParser  # a bad flag: one line, exit status 2, instead of argparse's usage block
number = tool_io.number


def parse_lr_drops(text, epochs):
    """--lr-drops "6,9" as [6, 9]: epochs counted from 1, increasing, each in [2, epochs]; "" gives []."""
    if not text:
        return []
    drops = []
    for token in text.split(","):
        if not re.fullmatch(r"[0-9]{1,9}", token):  # not str.isdigit: it takes '²', which int() refuses
            raise InputError(f"--lr-drops '{text[:80]}': '{token[:12]}' is not an epoch (expected epochs counted "
                             "from 1, comma-separated and increasing, e.g. 6,9)")
        epoch = int(token)
        if not 2 <= epoch <= epochs:
            raise InputError(f"--lr-drops '{text[:80]}': epoch {epoch} is outside [2, {epochs}] (--epochs {epochs}; "
                             "epoch 1 trains at --lr)")
        if drops and epoch <= drops[-1]:
            raise InputError(f"--lr-drops '{text[:80]}': the epochs must increase")
        drops.append(epoch)
    return drops


def learning_rate_in(lr, drops, epoch):
    """The rate of epoch `epoch` (counted from 0): lr divided by 10 for each drop at or before it."""
    for first in drops:
        if epoch + 1 >= first:
            lr /= 10
    return lr


def parse_args(argv):
    ap = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False)
    ap.add_argument("--model", required=True,
                    help="the network: a layer list, @FILE, or a name (lessons/12_beyond_mnist/models/NAME.txt)")
    ap.add_argument("--dataset", choices=sorted(DATASETS), default="mnist")
    ap.add_argument("--data", metavar="DIR",
                    help="the data set's folder (default data/mnist, data/fashion-mnist or data/cifar-10)")
    ap.add_argument("--train-limit", metavar="N", type=number(int, lambda v: v >= 0, "an integer >= 0"), default=0,
                    help="keep only the first N training examples (0: all)")
    ap.add_argument("--test-limit", metavar="N", type=number(int, lambda v: v >= 0, "an integer >= 0"), default=0,
                    help="keep only the first N test examples (0: all)")
    ap.add_argument("--optimizer", choices=["sgd", "adam", "adadelta"], default="sgd")
    ap.add_argument("--lr", type=number(float, lambda v: v > 0, "a positive number"),
                    help="learning rate (default: sgd 0.05, adam 0.001, adadelta 1.0)")
    ap.add_argument("--momentum", type=number(float, lambda v: 0 <= v < 1, "a number in [0, 1)"), default=0.9,
                    help="SGD's momentum (default 0.9; other optimizers ignore it)")
    ap.add_argument("--rho", type=number(float, lambda v: 0 <= v <= 1, "a number in [0, 1]"), default=0.9,
                    help="Adadelta's rho (default 0.9, PyTorch's; train_beyond's is 0.95; other optimizers "
                         "ignore it)")
    ap.add_argument("--eps", type=number(float, lambda v: v > 0, "a positive number"),
                    help="Adam's or Adadelta's eps (default 1e-8 and 1e-6; SGD ignores it)")
    ap.add_argument("--batch", type=number(int, lambda v: v >= 1, "a positive integer"), default=128,
                    help="minibatch size (default 128)")
    ap.add_argument("--epochs", type=number(int, lambda v: v >= 1, "a positive integer"), default=3,
                    help="passes over the training set (default 3)")
    ap.add_argument("--seed", type=number(int, lambda v: 0 <= v < 2 ** 63, "an integer >= 0"), default=1,
                    help="seeds the initial weights, the shuffles and the dropout masks (default 1)")
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda",
                    help="cuda (default), or cpu for quick checks (eager only)")
    ap.add_argument("--mode", choices=["eager", "graph", "compile-graph", "expert"], default="eager",
                    help="eager ops, the whole step in one CUDA graph, torch.compile's kernels in that graph, or "
                         "the expert's configuration (see above)")
    ap.add_argument("--steps-per-graph", type=number(int, lambda v: v >= 1, "a positive integer"), default=50,
                    help="expert: training steps in each CUDA graph (default 50)")
    ap.add_argument("--channels-last", action="store_true", help="the network and the images in channels_last")
    ap.add_argument("--compile-mode", choices=["max-autotune-no-cudagraphs", "default"],
                    default="max-autotune-no-cudagraphs",
                    help="torch.compile's mode in compile-graph: autotuned Triton kernels (minutes of set-up per "
                         "batch size), or Inductor's defaults (seconds)")
    ap.add_argument("--cudnn-benchmark", action="store_true", help="let cuDNN pick algorithms by timing")
    ap.add_argument("--amp", choices=["off", "bf16"], default="off",
                    help="bf16: the forward pass and the loss under BF16 autocast (mixed precision)")
    ap.add_argument("--lr-drops", metavar="E1,E2,...", default="",
                    help="step decay (eager only): from the start of each of these epochs (counted from 1, "
                         "increasing, e.g. 6,9) the learning rate is a tenth of the one before, as train_deeper's "
                         "--lr-drops")
    ap.add_argument("--json", metavar="FILE", help="write the settings and results here")
    args = ap.parse_args(argv)
    if args.device == "cpu":
        for given, flag in ((args.mode != "eager", f"--mode {args.mode}"), (args.amp != "off", f"--amp {args.amp}"),
                            (args.cudnn_benchmark, "--cudnn-benchmark"), (args.channels_last, "--channels-last")):
            if given:
                raise InputError(f"{flag} needs --device cuda (--device cpu runs --mode eager, FP32, for quick checks)")
    if args.json:
        tool_io.check_output_path(args.json, "--json")
    if args.lr is None:
        args.lr = DEFAULT_LR[args.optimizer]
    args.lr_drops = parse_lr_drops(args.lr_drops, args.epochs)
    if args.lr_drops and args.mode != "eager":
        raise InputError(f"--lr-drops needs --mode eager: a step captured in --mode {args.mode} keeps the learning "
                         "rate it was captured with")
    if args.eps is None and args.optimizer in DEFAULT_EPS:
        args.eps = DEFAULT_EPS[args.optimizer]
    return args


def make_optimizer(args, params):
    """PyTorch's own optimizer. A whole-step CUDA graph needs Adam (and Adadelta, where PyTorch has
    the flag) with capturable=True: its step counter then lives on the GPU and the captured update
    reads it there, instead of baking the first step's bias correction into the graph; PyTorch
    refuses to capture the step otherwise. Eager runs keep PyTorch's default."""
    settings = {"name": args.optimizer, "lr": args.lr}
    fused = args.mode == "expert" and args.optimizer in ("sgd", "adam")  # Adadelta has no fused kernel
    if fused:
        settings["fused"] = True
    if args.optimizer == "sgd":
        settings["momentum"] = args.momentum
        return torch.optim.SGD(params, lr=args.lr, momentum=args.momentum, **({"fused": True} if fused else {})), settings
    cls = torch.optim.Adam if args.optimizer == "adam" else torch.optim.Adadelta
    kwargs = {"lr": args.lr, "eps": args.eps}
    if args.optimizer == "adadelta":
        kwargs["rho"] = settings["rho"] = args.rho
    settings["eps"] = args.eps
    if args.mode != "eager" and "capturable" in inspect.signature(cls.__init__).parameters:
        kwargs["capturable"] = True
        settings["capturable"] = True
    if fused:
        kwargs["fused"] = True
    return cls(params, **kwargs), settings


# ---- main ----------------------------------------------------------------------------------------

def run(argv):
    args = parse_args(argv)
    layers = model_layers(args.model)  # a bad layer stops here, before any data is read
    text = ",".join(layer.text() for layer in layers)

    data_dir = args.data or os.path.join(ROOT, "data", DATASETS[args.dataset][0])
    (train_images, train_labels), (test_images, test_labels) = load_data(
        args.dataset, data_dir, args.train_limit, args.test_limit, args.device)
    in_shape = tuple(train_images.shape[1:])
    plan(layers, text, in_shape)  # a layer that does not fit the images stops here
    examples = train_images.shape[0] + test_images.shape[0]
    need = check_memory(layers, text, in_shape, args.batch, args.optimizer, args.device, examples)

    torch_for_run(args, need, text)
    from pytorch_mnist import EXPERT_COMPILE, eager_step, expert_epoch, graph_step, run_epochs

    device = torch.device(args.device)
    if args.device == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cudnn.benchmark = args.cudnn_benchmark

    def synchronize():
        if args.device == "cuda":
            torch.cuda.synchronize()

    torch.manual_seed(args.seed)  # the shuffles and the dropout masks
    model = build_network(layers, in_shape, args.seed).to(device)
    parameters = sum(p.numel() for p in model.parameters())
    print(f"network {text} ({parameters} parameters)", flush=True)
    x_train, y_train = to_device(train_images, train_labels, device)
    x_test, y_test = to_device(test_images, test_labels, device)
    if args.channels_last:
        model = model.to(memory_format=torch.channels_last)
        x_train = x_train.contiguous(memory_format=torch.channels_last)
        x_test = x_test.contiguous(memory_format=torch.channels_last)
    opt, settings = make_optimizer(args, model.parameters())
    recipe = " ".join(f"{k} {v:g}" for k, v in settings.items() if k not in ("name", "capturable", "fused"))
    n = x_train.shape[0]
    print(f"data {args.dataset} {'x'.join(map(str, in_shape))} from {data_dir}: {n} training and "
          f"{x_test.shape[0]} test examples; {args.optimizer} {recipe}, batch {args.batch}, seed {args.seed}; "
          f"PyTorch {torch.__version__} on {args.device}, mode {args.mode}, amp {args.amp}", flush=True)

    results = {"device": torch.cuda.get_device_name(0) if args.device == "cuda" else "cpu",
               "torch": torch.__version__, "mode": args.mode,
               "compile_mode": {"compile-graph": args.compile_mode, "expert": EXPERT_COMPILE}.get(args.mode, ""),
               "amp": args.amp, "channels_last": args.channels_last,
               "cudnn_benchmark": args.cudnn_benchmark, "model": text, "parameters": parameters,
               "dataset": args.dataset, "data": data_dir, "input_shape": list(in_shape), "train_examples": n,
               "test_examples": int(x_test.shape[0]), "optimizer": settings, "batch": args.batch,
               "epochs": args.epochs, "seed": args.seed, "epoch_seconds": [], "test_accuracy": [],
               "train_loss": [], "setup_seconds": 0.0}
    loss_sum = torch.zeros((), device=device)
    run_step = eager_step(model, opt, x_train, y_train, loss_sum, args.amp)
    if args.mode == "expert":
        setup = time.perf_counter()
        run_step = expert_epoch(model, opt, x_train, y_train, loss_sum, n, min(args.batch, n), device, args.amp,
                                args.steps_per_graph)
        synchronize()
        results["setup_seconds"] = time.perf_counter() - setup
        results["graphs_per_epoch"] = run_step.graphs
        print(f"pytorch expert: model and loss compiled ({EXPERT_COMPILE}), {args.optimizer} "
              f"{'fused' if settings.get('fused') else 'foreach'}, {run_step.graphs} CUDA graph(s) an epoch of up to "
              f"{args.steps_per_graph} steps, {'channels_last' if args.channels_last else 'NCHW'}, amp {args.amp}; "
              f"compiled, warmed up and captured in {results['setup_seconds']:.1f} s (not timed)", flush=True)
    elif args.mode != "eager":
        setup = time.perf_counter()
        net = (torch.compile(model, mode=args.compile_mode, dynamic=False)  # one static graph per batch size
               if args.mode == "compile-graph" else model)
        # The step sizes: full batches and the last, smaller one (a batch larger than the set: one step of n).
        sizes = sorted({min(args.batch, n), n % args.batch} - {0})
        run_step = graph_step(net, model, opt, x_train, y_train, loss_sum, sizes, device, args.amp)
        synchronize()
        results["setup_seconds"] = time.perf_counter() - setup
        print(f"pytorch {args.mode}: compiled, warmed up and captured in {results['setup_seconds']:.1f} s "
              f"(not timed)", flush=True)
    def start_epoch(epoch):
        rate = learning_rate_in(args.lr, args.lr_drops, epoch)
        if rate != opt.param_groups[0]["lr"] or (epoch == 0 and args.lr_drops):
            print(f"from epoch {epoch + 1}: learning rate {rate:g}", flush=True)
        for group in opt.param_groups:
            group["lr"] = rate

    if args.lr_drops:
        results["lr_drops"] = args.lr_drops
    run_epochs(model, run_step, x_test, y_test, n, args.batch, args.epochs, args.amp, loss_sum, results,
               synchronize, start_epoch if args.lr_drops else None)
    if args.json:
        write_json(args.json, results)


def check_memory(layers, text, in_shape, batch, optimizer, device, examples):
    """Refuses, before PyTorch allocates anything, a network this machine cannot hold: it is built in
    this machine's memory first, and trains there with --device cpu. Returns the bytes training
    takes on the device (the network at --batch and the data set as float32)."""
    params, values = network_size(layers, in_shape)
    c, h, w = in_shape
    need = training_bytes(params, values, batch, optimizer) + 5 * examples * c * h * w
    here = need if device == "cpu" else 4 * params
    tool_io.require_memory(here, f"network '{text}' at batch {batch} ({params} parameters)",
                           "use a smaller --batch or a smaller network")
    return need


def check_gpu_memory(need, text, batch):
    """The same for the GPU's memory, once PyTorch can say what it has free."""
    try:
        free = torch.cuda.mem_get_info()[0]
    except (RuntimeError, AttributeError):
        return
    if need > free:
        raise InputError(f"network '{text}' at batch {batch} with its data set needs about {tool_io.gib(need)} on "
                         f"the GPU, more than the {tool_io.gib(free)} it has free; use a smaller --batch or a smaller "
                         "network", 1)


def write_json(path, results):
    """--json: the settings and results, written all or nothing (one line when it cannot be)."""
    tool_io.write_atomically(path, json.dumps(results, indent=1) + "\n")


def main_of(run_argv):
    """A script's main: run_argv(the arguments); bad input ends it with one "error: ..." line."""
    tool_io.run_tool(run_argv, sys.argv[1:])


def main():
    main_of(run)


if __name__ == "__main__":
    main()
