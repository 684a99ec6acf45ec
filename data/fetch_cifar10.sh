#!/usr/bin/env bash
# Puts CIFAR-10's binary version into data/cifar-10/ (or the folder given as $1): the six batch
# files data_batch_1.bin .. data_batch_5.bin and test_batch.bin, unpacked from
# cifar-10-binary.tar.gz. Safe to run again: when the files are already there and intact it
# says so and uses no network.
#
# What is checked (a copy that fails is rejected and never replaces anything):
#   - the archive's SHA-256 against data/SHA256SUMS;
#   - each unpacked file: 30730000 bytes (10000 records of 3073 bytes) and its MD5 against
#     data/MD5SUMS (also what "already there and intact" means).
# Where the checksums come from (the data set's site publishes only the archive's MD5,
# c32a1d4ab5d03f1284b67883e8d87530, which the two MD5 lists below also give):
#   - archive SHA-256 (170052171 bytes): tensorflow/datasets,
#     tensorflow_datasets/url_checksums/cifar10.txt;
#   - the six files' MD5: rai-project/dldataset, vision/cifar10.go, and prabhuomkar/pytorch-cpp,
#     cmake/fetch_cifar10.cmake (the same six values in both).
#
# Where the archive comes from, in order:
#   1. a copy on this machine (downloaded by hand, here or on another machine): $CIFAR10_ARCHIVE,
#      else data/cifar-10-binary.tar.gz or cifar-10-binary.tar.gz in the destination folder;
#   2. https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz (curl or wget, 162 MiB).
# Environment: FETCH_TIMEOUT (seconds, default 10), CIFAR10_ARCHIVE (path of the archive),
# CIFAR10_URLS (space-separated URLs of the archive instead of the one above), FETCH_SHA256SUMS
# and FETCH_MD5SUMS (other checksum lists than data/SHA256SUMS and data/MD5SUMS; for tests).
set -euo pipefail

SET_NAME=cifar-10
DEST=${1:-$(cd "$(dirname "$0")" && pwd)/cifar-10}
# shellcheck source-path=SCRIPTDIR source=fetch_lib.sh
source "$(dirname "$0")/fetch_lib.sh"

ARCHIVE=cifar-10-binary.tar.gz
ARCHIVE_FOLDER=cifar-10-batches-bin  # the folder inside the archive
URLS=(https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz)
if [[ -n ${CIFAR10_URLS:-} ]]; then
  read -r -a URLS <<<"$CIFAR10_URLS"
fi
MD5_FILE=${FETCH_MD5SUMS:-$DATA_DIR/MD5SUMS}
BATCH_FILES=(data_batch_1.bin data_batch_2.bin data_batch_3.bin data_batch_4.bin data_batch_5.bin test_batch.bin)
BATCH_BYTES=30730000

# What is wrong with batch file <path> (named <name> in MD5SUMS); nothing when it is intact.
batch_problem() {
  local path=$1 name=$2 size got want
  if [[ ! -f $path ]]; then
    echo "missing"
    return
  fi
  size=$(wc -c <"$path" | tr -d ' ')
  if [[ $size != "$BATCH_BYTES" ]]; then
    echo "$size bytes, expected $BATCH_BYTES"
    return
  fi
  got=$(md5_of "$path")
  want=$(looked_up "$MD5_FILE" "$SET_NAME/$name")
  if [[ $got != "$want" ]]; then
    echo "MD5 $got, expected $want"
  fi
}

# Fills NEEDED with the batch files DEST lacks or holds damaged (naming the damaged ones).
# Returns 0 when there is nothing to do.
check_existing_batches() {
  local f problem
  for f in "${BATCH_FILES[@]}"; do looked_up "$MD5_FILE" "$SET_NAME/$f" >/dev/null; done
  looked_up "$SUMS_FILE" "$ARCHIVE" >/dev/null
  mkdir -p "$DEST"
  DEST=$(cd "$DEST" && pwd)
  NEEDED=()
  for f in "${BATCH_FILES[@]}"; do
    problem=$(batch_problem "$DEST/$f" "$f")
    if [[ -n $problem && $problem != missing ]]; then
      say "$DEST/$f is damaged ($problem); getting it again"
    fi
    [[ -z $problem ]] || NEEDED+=("$f")
  done
  if [[ ${#NEEDED[@]} -eq 0 ]]; then
    say "$SET_NAME is already in $DEST (all six batch files have the size and MD5 of $MD5_FILE)"
    return 0
  fi
  say "need ${NEEDED[*]} in $DEST"
  return 1
}

# unpack_archive <archive> <source name>: checks the archive, unpacks the six files into SCRATCH,
# checks them and moves the needed ones into DEST. Returns 1 (saying why) when the source is rejected.
unpack_archive() {
  local archive=$1 source=$2 got want f problem members=()
  got=$(sha256_of "$archive")
  want=$(looked_up "$SUMS_FILE" "$ARCHIVE")
  if [[ $got != "$want" ]]; then
    local hint=""
    # grep reads the whole listing (no -q): with pipefail, a grep that stops early could end tar
    # with SIGPIPE and make the test fail at random.
    if tar -tzf "$archive" 2>/dev/null | grep '^cifar-10-batches-py/' >/dev/null; then
      hint=" (it is the Python version; the course reads the binary version, $ARCHIVE)"
    fi
    warn "$source: $ARCHIVE has SHA-256 $got, expected $want$hint; source rejected"
    return 1
  fi
  for f in "${BATCH_FILES[@]}"; do members+=("$ARCHIVE_FOLDER/$f"); done
  if ! tar --no-same-owner -xzf "$archive" -C "$SCRATCH" "${members[@]}" 2>"$SCRATCH/error.log"; then
    warn "$source: cannot unpack $ARCHIVE ($(tail -n 1 "$SCRATCH/error.log")); source rejected"
    return 1
  fi
  for f in "${BATCH_FILES[@]}"; do
    problem=$(batch_problem "$SCRATCH/$ARCHIVE_FOLDER/$f" "$f")
    if [[ -n $problem ]]; then
      warn "$source: $f in the archive: $problem; source rejected"
      return 1
    fi
  done
  for f in "${NEEDED[@]}"; do
    mv -f "$SCRATCH/$ARCHIVE_FOLDER/$f" "$DEST/$f"
  done
  say "got ${NEEDED[*]} from $source; the archive's SHA-256 and every file's size and MD5 match"
}

if check_existing_batches; then exit 0; fi

# 1. A copy of the archive on this machine.
failures=()
if [[ -n ${CIFAR10_ARCHIVE:-} ]]; then
  local_copies=("$CIFAR10_ARCHIVE")
  [[ -f $CIFAR10_ARCHIVE ]] || warn "CIFAR10_ARCHIVE=$CIFAR10_ARCHIVE: no such file"
else
  local_copies=("$DATA_DIR/$ARCHIVE" "$DEST/$ARCHIVE")
fi
for copy in "${local_copies[@]}"; do
  [[ -f $copy ]] || continue
  new_scratch
  say "unpacking $copy"
  if unpack_archive "$copy" "$copy"; then exit 0; fi
  failures+=("$copy is not the right file")
done

# 2. The download.
for url in "${URLS[@]}"; do
  new_scratch
  say "downloading $url"
  if ! download "$url" "$SCRATCH/$ARCHIVE" 2>"$SCRATCH/download.log"; then
    error=$(tail -n 1 "$SCRATCH/download.log")
    failures+=("cannot reach $url (${error:-no answer})")
    continue
  fi
  if unpack_archive "$SCRATCH/$ARCHIVE" "$url"; then exit 0; fi
  failures+=("$url served a damaged archive")
done

# Nothing worked: one line that says why and what to do.
reasons=$(printf '%s; ' "${failures[@]}")
warn "${reasons%; }: get ${URLS[0]} by hand (a browser on any machine will do)," \
     "put the file in $DATA_DIR/ (or set CIFAR10_ARCHIVE to its path), then run $0 again"
exit 1
