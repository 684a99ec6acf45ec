#!/usr/bin/env python3
"""Writes a CIFAR-10-shaped data set of random pictures: the six files of CIFAR-10's binary version
(data_batch_1.bin ... data_batch_5.bin, test_batch.bin), each record a label byte and 3 x 32 x 32 pixel
bytes, 10,000 records a file, labels and pixels drawn from a seeded generator.

For timing where CIFAR-10 itself cannot be fetched: a network trains on these exactly as long as on
CIFAR-10 (the same sizes), but what it learns means nothing; report no accuracy from them.

usage: tools/cifar_shaped.py DIR [--seed N]      (DIR must not hold CIFAR-10 files already)
Exit 0 when written; 2 for bad arguments or a folder that already holds them.
"""
import argparse
import os
import random
import sys

RECORDS = 10000
RECORD_BYTES = 1 + 3 * 32 * 32
FILES = [f"data_batch_{i}.bin" for i in range(1, 6)] + ["test_batch.bin"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    taken = [f for f in FILES if os.path.exists(os.path.join(args.dir, f))]
    if taken:
        print(f"error: {args.dir} already holds {taken[0]}: give an empty folder (real CIFAR-10 is never "
              f"overwritten)", file=sys.stderr)
        return 2
    os.makedirs(args.dir, exist_ok=True)
    rng = random.Random(args.seed)
    for name in FILES:
        records = bytearray()
        for _ in range(RECORDS):
            records.append(rng.randrange(10))
            records += rng.randbytes(RECORD_BYTES - 1)
        with open(os.path.join(args.dir, name), "wb") as f:
            f.write(records)
    print(f"wrote {len(FILES)} CIFAR-10-shaped files of random pictures to {args.dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
