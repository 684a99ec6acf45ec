"""Bad input, the way the course's Python tools take it: as its C++ programs do (docs/bad_input.md).

Every tool in tools/ runs its main through run_tool(), so that whatever goes wrong ends in exactly one
line "error: ..." on stderr and an exit status of 1 (bad input, a file that cannot be read or written)
or 2 (a bad command line), never a Python traceback:

  ArgumentParser   argparse, but a bad flag is one line (exit 2), not a usage block
  fail(message)    stops the tool with "error: message" (exit 1; fail(message, 2) for usage)
  shown(text)      a path or value as a message shows it: control characters escaped, one line
  input_size(path) the size of an input that must be a regular file (a FIFO, a device, a folder
                   refused before anything is opened, so nothing blocks or reads forever)
  read_bytes / read_text   a whole input file, its size held against the memory this machine has free
  read_npy         a .npy file, strictly: magic, version, header dictionary, data type, shape, size
  read_idx         an IDX file (MNIST's format), as strictly
  write_atomically / AtomicFiles   outputs all or nothing: a temporary file in the same folder,
                   flushed to the disk, then renamed over the final name; removed on any failure
  check_output_path  an output's name, checked before any work: only a regular file is replaced

This module needs only Python's standard library: a tool checks its input here before it imports
NumPy or PyTorch (import_numpy, import_torch), so the checks run on any machine.
"""
import argparse
import ast
import math
import os
import re
import signal
import stat
import struct
import sys
import tempfile

EXIT_BAD_INPUT = 1
EXIT_USAGE = 2


class ToolError(Exception):
    """Bad input: its message becomes the one line "error: ..." and `code` the exit status."""

    def __init__(self, message, code=EXIT_BAD_INPUT):
        super().__init__(message)
        self.code = code


def fail(message, code=EXIT_BAD_INPUT):
    """Stops the tool: run_tool() prints "error: <message>" on stderr and exits with `code`."""
    raise ToolError(message, code)


# ---- messages ------------------------------------------------------------------------------------

def shown(text, max_chars=200):
    """`text` as a message shows it: line breaks, tabs and other control characters escaped (\\n, \\t,
    \\x1b), so a message stays one line and cannot move the terminal's cursor; capped at max_chars."""
    text = os.fsdecode(text) if isinstance(text, (bytes, os.PathLike)) else str(text)
    out = []
    for i, ch in enumerate(text):
        if i >= max_chars:
            out.append(f"... ({len(text) - i} more characters)")
            break
        code = ord(ch)
        if ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif code < 0x20 or code == 0x7f or 0x80 <= code < 0xa0:
            out.append(f"\\x{code:02x}")
        elif 0xdc80 <= code <= 0xdcff:  # a byte of a file name that is not UTF-8 (os.fsdecode's escape)
            out.append(f"\\x{code - 0xdc00:02x}")
        else:
            out.append(ch)
    return "".join(out)


def error_line(message):
    """The one line a tool prints for `message`: whatever it holds, one line."""
    return "error: " + shown(message, max_chars=4000)


def os_problem(e):
    """An OSError as words: its strerror ('No space left on device'), else its class."""
    return e.strerror or (os.strerror(e.errno) if e.errno else type(e).__name__)


# ---- the command line ----------------------------------------------------------------------------

class ArgumentParser(argparse.ArgumentParser):
    """argparse whose errors are one line "error: ... (see PROG --help)" with exit status 2."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)  # --epoch is not --epochs
        super().__init__(*args, **kwargs)

    def error(self, message):
        raise ToolError(f"{message} (see {self.prog} --help)", EXIT_USAGE)


def number(kind, check, what):
    """An argparse type: `kind` (int or float) for which check(value) holds, else "expected <what>"."""
    def parse(text):
        bad = argparse.ArgumentTypeError(f"expected {what}, got '{shown(text, 40)}'")
        try:
            if kind is int:
                if not re.fullmatch(r"[+-]?[0-9]{1,30}", text.strip()):  # int() takes '²' and '1_0' too
                    raise bad
                value = int(text)
            else:
                value = float(text)
        except (ValueError, OverflowError):
            raise bad
        if (kind is float and not math.isfinite(value)) or not check(value):
            raise bad
        return value
    return parse


# ---- the top level -------------------------------------------------------------------------------

def run_tool(main, *args):
    """Runs main(*args) and exits with its status (None: 0). Whatever stops it early becomes one line
    "error: ..." on stderr: a ToolError, an OSError (a file that cannot be read or written, a full
    disk), text that is not UTF-8, a lack of memory, Ctrl-C."""
    # A write past `ulimit -f` raises SIGXFSZ, which would kill the process without a word: ignored,
    # the write fails with EFBIG ("File too large") and is reported like a full disk.
    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    code, message = 0, None
    try:
        code = main(*args)
    except ToolError as e:
        code, message = e.code, str(e)
    except SystemExit as e:  # sys.exit(): a number passes through, a text is an error line
        if isinstance(e.code, str):
            text = e.code
            code, message = EXIT_BAD_INPUT, text[len("error: "):] if text.startswith("error: ") else text
        else:
            code = e.code
    except KeyboardInterrupt:
        code, message = 130, "interrupted (Ctrl-C): outputs not finished were not written"
    except MemoryError:
        code, message = EXIT_BAD_INPUT, "out of memory: this machine cannot hold what the tool was asked to do"
    except UnicodeError as e:
        code, message = EXIT_BAD_INPUT, f"text that is not UTF-8: {e}"
    except OSError as e:
        where = e.filename if e.filename is not None else ""
        code, message = EXIT_BAD_INPUT, (f"{shown(where)}: " if where != "" else "") + os_problem(e)
    if message is not None:
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        try:
            print(error_line(message), file=sys.stderr, flush=True)
        except (OSError, ValueError):
            pass
    try:
        sys.stdout.flush()
    except (OSError, ValueError) as e:  # stdout closed or full: said once, and not again at exit
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        if message is None:
            try:
                print(error_line(f"cannot write to the standard output ({getattr(e, 'strerror', None) or e})"),
                      file=sys.stderr, flush=True)
            except (OSError, ValueError):
                pass
        code = code or EXIT_BAD_INPUT
    sys.exit(0 if code is None else code if isinstance(code, int) else EXIT_BAD_INPUT)


def import_numpy():
    """NumPy, or one line saying it is missing (tools check their input before they need it)."""
    try:
        import numpy
    except ImportError as e:
        fail(f"this tool needs NumPy past this point ({e}); Debian: apt-get install python3-numpy, "
             "or python3 -m pip install numpy")
    return numpy


def import_torch():
    """PyTorch, or one line saying it is missing."""
    try:
        import torch
    except ImportError as e:
        fail(f"this tool needs PyTorch past this point ({e}); Debian: apt-get install python3-torch, "
             "or python3 -m pip install torch")
    return torch


# ---- inputs --------------------------------------------------------------------------------------

def kind_of(mode):
    """What a stat mode is, in words ("a regular file", "a named pipe (FIFO)", ...)."""
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a regular file"


def input_size(path, what, missing=None):
    """The size of the input `path` (followed through links), which must be a regular file: anything
    else (a folder, a FIFO that would block, a device such as /dev/zero that never ends) is refused
    before it is opened. `what` names the file's kind ("an IDX file"); `missing` is what to do when
    it is not there."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        fail(f"{shown(path)}: {missing or 'file not found'}")
    except OSError as e:
        fail(f"{shown(path)}: cannot be read ({os_problem(e)})")
    if not stat.S_ISREG(st.st_mode):
        fail(f"{shown(path)}: is {kind_of(st.st_mode)}, not {what}")
    return st.st_size


def open_input(path, what, missing=None):
    """The regular file `path` opened for reading (binary) and its size. Opened without blocking and
    checked again after opening: a FIFO put there after the first check cannot hang the tool."""
    input_size(path, what, missing)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        fail(f"{shown(path)}: cannot be opened ({os_problem(e)})")
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        fail(f"{shown(path)}: is {kind_of(st.st_mode)}, not {what}")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb"), st.st_size


def free_memory():
    """Bytes of memory this machine has free (MemAvailable), or None where it cannot tell."""
    try:
        with open("/proc/meminfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return None


def gib(n):
    return f"{n / 2 ** 30:.1f} GiB"


def lesson_numbers(text, flag="--lessons"):
    """The lessons `text` names ("08-11,13": NN-MM ranges or NN, comma-separated), in order, as ints;
    anything else stops the tool with one usage line naming `flag`."""
    chosen = []
    for part in text.split(","):
        m = re.fullmatch(r"(\d\d)(?:-(\d\d))?", part)
        if not m:
            fail(f"{flag} takes NN-MM ranges or NN, comma-separated, got '{shown(text, 80)}'", EXIT_USAGE)
        chosen += [n for n in range(int(m.group(1)), int(m.group(2) or m.group(1)) + 1) if n not in chosen]
    return chosen


def require_memory(nbytes, what, advice=""):
    """Refuses, in one line, work that needs more memory than this machine has free."""
    free = free_memory()
    if free is not None and nbytes > free:
        fail(f"{what} needs about {gib(nbytes)}, more than the {gib(free)} this machine has free"
             + (f"; {advice}" if advice else ""))


def read_exactly(f, path, offset, count):
    """count bytes of the open file from offset; a file that got shorter is refused."""
    f.seek(offset)
    data = f.read(count)
    if len(data) != count:
        fail(f"{shown(path)}: read error (did the file change while it was read?)")
    return data


def read_bytes(path, what, missing=None):
    """The whole regular file `path`, its size held against the free memory first."""
    f, size = open_input(path, what, missing)
    with f:
        require_memory(size, f"reading {shown(path)} ({size} bytes)")
        return read_exactly(f, path, 0, size)


def read_text(path, what="a text file", missing=None):
    """The whole regular file `path` as UTF-8 text; other bytes are refused naming where they are."""
    data = read_bytes(path, what, missing)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        fail(f"{shown(path)}: not UTF-8 text (byte 0x{data[e.start]:02x} on line {line}, at offset {e.start})")


# ---- .npy ----------------------------------------------------------------------------------------

NPY_MAGIC = b"\x93NUMPY"
NPY_ITEM_BYTES = {"<f4": 4, "<i4": 4, "|u1": 1, "<f8": 8, "<i8": 8}
NPY_DTYPE_NAMES = {"<f4": "float32", "<i4": "int32", "|u1": "uint8 (bytes)", "<f8": "float64", "<i8": "int64"}


class NpyArray:
    """A .npy file's array: `descr` ('<f4', ...), `shape` (a tuple of ints) and `data` (its bytes)."""

    def __init__(self, descr, shape, data):
        self.descr, self.shape, self.data = descr, shape, data

    @property
    def size(self):
        count = 1
        for d in self.shape:
            count *= d
        return count

    def values(self):
        """The values as a list of Python numbers (for small arrays; NumPy reads big ones)."""
        code = {"<f4": "f", "<i4": "i", "|u1": "B", "<f8": "d", "<i8": "q"}[self.descr]
        return list(struct.unpack(f"<{self.size}{code}", self.data))

    def numpy(self):
        np = import_numpy()
        return np.frombuffer(self.data, dtype=np.dtype(self.descr)).reshape(self.shape)


def npy_shape_text(shape):
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def parse_npy_header(name, text):
    """descr and shape from a .npy header (a Python dict literal with exactly the keys descr,
    fortran_order and shape), read as a literal, never run."""
    try:
        header = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        fail(f"{shown(name)}: the header is not a dictionary of literals ({{'descr': ..., 'fortran_order': ..., "
             f"'shape': ...}}): {shown(text.strip(), 60)}")
    if not isinstance(header, dict):
        fail(f"{shown(name)}: the header is not a dictionary ({{'descr': ..., 'fortran_order': ..., 'shape': ...}})")
    keys = set(header)
    if keys != {"descr", "fortran_order", "shape"}:
        extra = sorted(shown(repr(k), 40) for k in keys - {"descr", "fortran_order", "shape"})
        lacking = sorted({"descr", "fortran_order", "shape"} - keys)
        fail(f"{shown(name)}: the header must have exactly the keys 'descr', 'fortran_order' and 'shape'"
             + (f"; it lacks {', '.join(lacking)}" if lacking else "") + (f"; it has {', '.join(extra)}" if extra else ""))
    descr, order, shape = header["descr"], header["fortran_order"], header["shape"]
    if not isinstance(descr, str):
        fail(f"{shown(name)}: 'descr' is {shown(repr(descr), 40)}, not a data type such as '<f4'")
    if order is not False:
        fail(f"{shown(name)}: 'fortran_order' is {shown(repr(order), 20)}: only False (C order) can be read")
    if not isinstance(shape, tuple) or not all(type(d) is int and d >= 0 for d in shape):
        fail(f"{shown(name)}: 'shape' is {shown(repr(shape), 60)}, not a tuple of sizes (whole numbers, 0 or more) "
             "such as (2, 3)")
    return descr, shape


def parse_npy(name, head, total_size, dtypes):
    """The layout of a .npy file from its first bytes `head` (the preamble and the header, when the
    file is that long) and its size: (descr, shape, data offset, data bytes). Refuses, before any
    data is read, a header that is damaged, a data type not in `dtypes`, and data that is shorter or
    longer than the shape needs."""
    if head[:len(NPY_MAGIC)] != NPY_MAGIC[:len(head)] or not head:
        fail(f"{shown(name)}: not a .npy file (it does not start with \\x93NUMPY)")
    if len(head) < 10:
        fail(f"{shown(name)}: truncated header: {total_size} bytes, shorter than the 10-byte preamble")
    major, minor = head[6], head[7]
    if (major, minor) == (1, 0):
        header_bytes, start = struct.unpack("<H", head[8:10])[0], 10
    elif (major, minor) in ((2, 0), (3, 0)):
        if len(head) < 12:
            fail(f"{shown(name)}: truncated header: {total_size} bytes, shorter than the 12-byte preamble")
        header_bytes, start = struct.unpack("<I", head[8:12])[0], 12
    else:
        fail(f"{shown(name)}: a .npy file of version {major}.{minor}, not 1.0, 2.0 or 3.0")
    if len(head) < start + header_bytes:
        fail(f"{shown(name)}: truncated header: {total_size} bytes, the header ends at byte {start + header_bytes}")
    try:
        text = head[start:start + header_bytes].decode("latin-1" if major < 3 else "utf-8")
    except UnicodeDecodeError:
        fail(f"{shown(name)}: the header is not UTF-8 text")
    descr, shape = parse_npy_header(name, text)
    if descr not in dtypes:
        wanted = " or ".join(f"'{d}' ({NPY_DTYPE_NAMES.get(d, d)})" for d in dtypes)
        fail(f"{shown(name)}: data type {shown(repr(descr), 40)}, expected {wanted}")
    count = 1
    for d in shape:
        count *= d
    data_bytes = count * NPY_ITEM_BYTES[descr]
    offset = start + header_bytes
    available = total_size - offset
    if available < data_bytes:
        fail(f"{shown(name)}: truncated: {available} bytes of data, the shape {npy_shape_text(shape)} of "
             f"{NPY_DTYPE_NAMES.get(descr, descr)} needs {data_bytes}")
    if available > data_bytes:
        fail(f"{shown(name)}: {available - data_bytes} bytes after the data (the shape {npy_shape_text(shape)} "
             f"of {NPY_DTYPE_NAMES.get(descr, descr)} needs {data_bytes})")
    return descr, shape, offset, data_bytes


def parse_npy_bytes(name, data, dtypes=("<f4",)):
    """A .npy file already in memory (the fuzz loop's entry point): an NpyArray, or ToolError."""
    descr, shape, offset, data_bytes = parse_npy(name, data, len(data), dtypes)
    return NpyArray(descr, shape, bytes(data[offset:offset + data_bytes]))


def read_npy(path, dtypes=("<f4",), what="a .npy file", missing=None):
    """The .npy file `path`: an NpyArray with a data type of `dtypes`, checked as parse_npy checks it;
    its data is read only once its size matches the shape and fits in the free memory."""
    f, size = open_input(path, what, missing)
    with f:
        head = f.read(10)
        if len(head) == 10 and head[:6] == NPY_MAGIC:
            if head[6] == 1:
                header_bytes = struct.unpack("<H", head[8:10])[0]
            else:  # versions 2 and 3: four bytes of length
                head += f.read(2)
                header_bytes = struct.unpack("<I", head[8:12])[0] if len(head) == 12 else 0
            header_bytes = min(header_bytes, size - len(head))  # parse_npy says when it is cut
            require_memory(header_bytes, f"the header of {shown(path)} ({header_bytes} bytes)")
            head += f.read(header_bytes)
        descr, shape, offset, data_bytes = parse_npy(path, head, size, dtypes)
        require_memory(data_bytes, f"{shown(path)} (shape {npy_shape_text(shape)})")
        return NpyArray(descr, shape, read_exactly(f, path, offset, data_bytes))


# ---- IDX -----------------------------------------------------------------------------------------

class IdxArray:
    """An IDX file's unsigned bytes: `dims` (a tuple) and `data` (bytes, row-major)."""

    def __init__(self, dims, data):
        self.dims, self.data = dims, data


def parse_idx(name, head, total_size):
    """The dimensions and the data offset of an unsigned-byte IDX file from its first bytes (up to 20)
    and its size, checked as the course's read_idx checks them, before any data is read."""
    if len(head) < 4:
        fail(f"{shown(name)}: truncated: shorter than the 4-byte IDX header")
    if head[0] == 0x1f and head[1] == 0x8b:
        fail(f"{shown(name)}: is gzip-compressed; unpack it first (gunzip)")
    if head[0] != 0 or head[1] != 0:
        fail(f"{shown(name)}: not an IDX file (magic number must start with two zero bytes)")
    if head[2] != 0x08:
        fail(f"{shown(name)}: unsupported IDX element type 0x{head[2]:02x} (only 0x08, unsigned byte)")
    rank = head[3]
    if not 1 <= rank <= 4:
        fail(f"{shown(name)}: bad IDX rank {rank} (expected 1 to 4)")
    if len(head) < 4 + 4 * rank:
        fail(f"{shown(name)}: truncated inside the dimension list")
    dims = struct.unpack(f">{rank}I", head[4:4 + 4 * rank])
    count = 1
    for i, d in enumerate(dims):
        if d == 0:
            fail(f"{shown(name)}: dimension {i} is 0 (an empty or damaged file)")
        count *= d
    expected = 4 + 4 * rank + count
    if total_size != expected:
        fail(f"{shown(name)}: {'truncated' if total_size < expected else 'too long'}: {total_size} bytes, the "
             f"header promises {expected}")
    return tuple(dims), 4 + 4 * rank


def parse_idx_bytes(name, data):
    """An IDX file already in memory (the fuzz loop's entry point): an IdxArray, or ToolError."""
    dims, offset = parse_idx(name, data[:20], len(data))
    return IdxArray(dims, bytes(data[offset:]))


def read_idx(path, missing=None):
    """The IDX file `path`, checked (regular file, header, exact size) before its data is read, and its
    data held against the free memory."""
    f, size = open_input(path, "an IDX file", missing)
    with f:
        dims, offset = parse_idx(path, f.read(20), size)
        require_memory(size - offset, f"{shown(path)} ({' x '.join(map(str, dims))} bytes)")
        return IdxArray(dims, read_exactly(f, path, offset, size - offset))


def read_idx_split(dir_, split, missing=None):
    """A split of an MNIST-like folder ("train" or "test") as the course reads it: (images_path,
    images, labels_path, labels), checked: images N x rows x cols, one label an image, every label
    0..9 (also those a limit leaves out: a damaged file is refused whatever the limit)."""
    prefix = "train" if split == "train" else "t10k"
    images_path = os.path.join(dir_, f"{prefix}-images-idx3-ubyte")
    labels_path = os.path.join(dir_, f"{prefix}-labels-idx1-ubyte")
    images, labels = read_idx(images_path, missing), read_idx(labels_path, missing)
    if len(images.dims) != 3:
        fail(f"{shown(images_path)}: expected 3 dimensions (count, rows, cols), not {len(images.dims)}")
    if len(labels.dims) != 1:
        fail(f"{shown(labels_path)}: expected 1 dimension (count), not {len(labels.dims)}")
    if labels.dims[0] != images.dims[0]:
        fail(f"{shown(labels_path)}: {labels.dims[0]} labels for {images.dims[0]} images in {shown(images_path)}")
    if labels.data and max(labels.data) > 9:
        bad = next(i for i, v in enumerate(labels.data) if v > 9)
        fail(f"{shown(labels_path)}: label {labels.data[bad]} at index {bad} is outside 0..9")
    return images_path, images, labels_path, labels


# ---- outputs -------------------------------------------------------------------------------------

def check_output_path(path, flag=None):
    """Refuses an output name held by anything but a regular file (a folder, a FIFO, a device, a
    socket, a symbolic link: replacing it would break whoever made it), and one whose folder is
    missing or not a folder. Run for every output before any work."""
    where = f"{flag} {shown(path)}" if flag else shown(path)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError as e:
        fail(f"{where}: cannot be checked ({os_problem(e)})")
    if st is not None and stat.S_ISLNK(st.st_mode):
        fail(f"{where}: is a symbolic link: outputs replace only regular files (remove the link, or give the "
             "path it points to)")
    if st is not None and not stat.S_ISREG(st.st_mode):
        fail(f"{where}: is {kind_of(st.st_mode)}, not a regular file: outputs replace only regular files")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        what = "does not exist" if not os.path.lexists(folder) else "is not a folder"
        fail(f"{where}: its folder {shown(folder)} {what}")
    if not os.access(folder, os.W_OK | os.X_OK):
        fail(f"{where}: its folder {shown(folder)} is not writable")


def output_mode(path):
    """The permissions an output gets: those of the file it replaces, else the usual 0666 less the umask
    (mkstemp's 0600 would make a private file of an output)."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


class AtomicFiles:
    """Outputs written all or nothing. add(path, data) writes each to a temporary file in its folder
    (flushed to the disk); commit() renames them all over their final names. Until commit, and on
    any failure, the final names keep what they held and the temporary files are removed:

        with AtomicFiles() as out:
            out.add("a.bin", b"...")
            out.add("b.txt", "text")
            out.commit()
    """

    def __init__(self):
        self._pending = []  # (temporary path, final path)

    def __enter__(self):
        return self

    def __exit__(self, kind, value, trace):
        self.discard()
        return False

    def add(self, path, data):
        check_output_path(path)
        folder = os.path.dirname(os.path.abspath(path))
        if isinstance(data, str):
            data = data.encode("utf-8")
        try:
            fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
        except OSError as e:
            fail(f"{shown(path)}: cannot be written ({os_problem(e)})")
        self._pending.append((tmp, path))
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
            os.fchmod(fd, output_mode(path))
        except OSError as e:
            fail(f"{shown(path)}: write failed: {os_problem(e)}")
        finally:
            os.close(fd)

    def commit(self):
        folders = set()
        try:
            while self._pending:
                tmp, path = self._pending[0]
                os.replace(tmp, path)
                self._pending.pop(0)
                folders.add(os.path.dirname(os.path.abspath(path)))
        except OSError as e:
            fail(f"{shown(self._pending[0][1])}: cannot be put in place ({os_problem(e)})")
        for folder in folders:  # the renames themselves on the disk
            try:
                fd = os.open(folder, os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
            except OSError:
                pass

    def discard(self):
        for tmp, _ in self._pending:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        self._pending = []


def write_atomically(path, data):
    """One output, all or nothing (see AtomicFiles)."""
    with AtomicFiles() as out:
        out.add(path, data)
        out.commit()


def make_folder(path, flag=None):
    """Creates the output folder `path` (and its parents) or refuses in one line."""
    where = f"{flag} {shown(path)}" if flag else shown(path)
    if os.path.lexists(path) and not os.path.isdir(path):
        if not os.path.exists(path):
            fail(f"{where}: is a symbolic link to nothing (dangling), not a folder")
        fail(f"{where}: is {kind_of(os.stat(path).st_mode)}, not a folder")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        fail(f"{where}: cannot create the folder ({os_problem(e)})")
    if not os.access(path, os.W_OK | os.X_OK):
        fail(f"{where}: the folder is not writable")


# ---- a finished run's folder (run.txt) -------------------------------------------------------------

RUN_MANIFEST = "run.txt"


def finished_run(folder, needed, writer):
    """Checks that `folder` holds a finished run of `writer` (a C++ program of the course): its run.txt,
    written last, lists every file of `needed`, and each is there with the size run.txt gives. A
    folder without run.txt holds a run that stopped part-way, perhaps beside an earlier run's files."""
    if not os.path.isdir(folder):
        fail(f"{shown(folder)}: " + ("not found" if not os.path.lexists(folder) else "is not a folder")
             + f" ({writer} writes it)")
    manifest = os.path.join(folder, RUN_MANIFEST)
    text = read_text(manifest, "a run's manifest",
                     missing=f"not found: {shown(folder)} holds no finished run of {writer} (it writes run.txt "
                             "last; a run that stopped part-way leaves none, and its files may be mixed with "
                             "an earlier run's): run it again")
    sizes = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#") or line.startswith("finished "):
            continue
        parts = line.rsplit(" ", 2)
        if len(parts) != 3 or parts[2] != "bytes" or not parts[1].isascii() or not parts[1].isdigit():
            fail(f"{shown(manifest)}: line {number} is not '<file> <size> bytes': {shown(line, 80)}")
        sizes[parts[0]] = int(parts[1])
    for name in needed:
        if name not in sizes:
            fail(f"{shown(manifest)}: does not list {name}: not a run of {writer} that wrote it")
        path = os.path.join(folder, name)
        size = input_size(path, "a file of the run", missing=f"listed in {RUN_MANIFEST} but missing")
        if size != sizes[name]:
            fail(f"{shown(path)}: {size} bytes, {RUN_MANIFEST} lists {sizes[name]}: changed since the run "
                 "finished")
    return sizes
