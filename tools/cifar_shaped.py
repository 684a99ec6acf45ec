#!/usr/bin/env python3
"""Writes a CIFAR-10-shaped data set of random pictures: the six files of CIFAR-10's binary version
(data_batch_1.bin ... data_batch_5.bin, test_batch.bin), each record a label byte and 3 x 32 x 32 pixel
bytes, 10,000 records a file (--records), labels and pixels drawn from a seeded generator.

For timing where CIFAR-10 itself cannot be fetched: a network trains on these exactly as long as on
CIFAR-10 (the same sizes), but what it learns means nothing; report no accuracy from them.

usage: tools/cifar_shaped.py DIR [--seed N] [--records N]   (DIR must not hold CIFAR-10 files already)
The six files are written all or nothing: each to a temporary file in DIR, and only when all six are
whole are they renamed to their names (a full disk leaves none of them, so the next run can start
again). Exit 0 when written; 1 when DIR cannot be made or written; 2 for bad arguments or a folder
that already holds them.
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tool_io  # noqa: E402

RECORDS = 10000
RECORD_BYTES = 1 + 3 * 32 * 32
FILES = [f"data_batch_{i}.bin" for i in range(1, 6)] + ["test_batch.bin"]


def main():
    ap = tool_io.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--seed", type=tool_io.number(int, lambda v: 0 <= v < 2 ** 63, "an integer >= 0"), default=1)
    ap.add_argument("--records", type=tool_io.number(int, lambda v: 1 <= v <= 100000, "an integer in 1..100000"),
                    default=RECORDS, help=f"records a file (default {RECORDS}, CIFAR-10's)")
    args = ap.parse_args()
    folder = args.dir
    taken = [f for f in FILES if os.path.lexists(os.path.join(folder, f))]
    if taken:
        tool_io.fail(f"{tool_io.shown(folder)} already holds {taken[0]}: give an empty folder (real CIFAR-10 is "
                     "never overwritten)", tool_io.EXIT_USAGE)
    tool_io.make_folder(folder, "DIR")
    rng = random.Random(args.seed)
    with tool_io.AtomicFiles() as out:
        for name in FILES:
            records = bytearray()
            for _ in range(args.records):
                records.append(rng.randrange(10))
                records += rng.randbytes(RECORD_BYTES - 1)
            out.add(os.path.join(folder, name), records)
        out.commit()
    print(f"wrote {len(FILES)} CIFAR-10-shaped files of random pictures to {tool_io.shown(folder)}")
    return 0


if __name__ == "__main__":
    tool_io.run_tool(main)
