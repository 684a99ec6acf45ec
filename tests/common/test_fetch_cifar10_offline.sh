#!/usr/bin/env bash
# Offline test of data/fetch_cifar10.sh on generated files (no real CIFAR-10 needed).
#   test_fetch_cifar10_offline.sh <path of fetch_cifar10.sh>
# The test makes its own six batch files (the real size, 30730000 bytes each, other contents)
# and a cifar-10-binary.tar.gz holding them, and points the script at checksum lists of those
# (FETCH_SHA256SUMS, FETCH_MD5SUMS). Network tools are fakes that log each call; the fake curl
# serves only file:// URLs, so local files act as download sites. Checks:
#   1. nothing there and the site unreachable: exit non-zero, one line saying so and what to do,
#      nothing left behind;
#   2. two URLs, the first serving a wrong archive: it is rejected by SHA-256, the second is used;
#   3. the files there and intact: "already in", exit 0, no tool called at all;
#   4. a cut and a changed batch file: both named, repaired from an archive in the folder, no
#      network;
#   5. an archive with the right SHA-256 holding a batch of the wrong size: rejected, nothing moved;
#   6. the Python version of the archive: rejected, and the message says so;
#   7. CIFAR10_ARCHIVE naming a missing file: said, and the download is tried.
set -euo pipefail

script=$1
batches=(data_batch_1.bin data_batch_2.bin data_batch_3.bin data_batch_4.bin data_batch_5.bin test_batch.bin)
batch_bytes=30730000

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# ---- generated data ------------------------------------------------------------------------
# Batch file k: every byte k (k = 1..6), so each file has its own checksum; gzip packs it small.
make_batches() {  # make_batches <folder> [size of data_batch_2.bin]
  mkdir -p "$1/cifar-10-batches-bin"
  local k=1 f size
  for f in "${batches[@]}"; do
    size=$batch_bytes
    [[ $f == data_batch_2.bin && -n ${2:-} ]] && size=$2
    head -c "$size" /dev/zero | tr '\000' "\\$(printf '%03o' "$k")" >"$1/cifar-10-batches-bin/$f"
    k=$((k + 1))
  done
  tar -czf "$1/cifar-10-binary.tar.gz" -C "$1" cifar-10-batches-bin
}
make_batches "$work/good"
make_batches "$work/odd" 100                      # data_batch_2.bin of 100 bytes
mkdir -p "$work/bad/cifar-10-batches-bin"         # a wrong archive: other contents
echo "not CIFAR-10" >"$work/bad/cifar-10-batches-bin/data_batch_1.bin"
tar -czf "$work/bad/cifar-10-binary.tar.gz" -C "$work/bad" cifar-10-batches-bin
mkdir -p "$work/python/cifar-10-batches-py"       # what cifar-10-python.tar.gz holds
echo "pickled arrays" >"$work/python/cifar-10-batches-py/data_batch_1"
tar -czf "$work/python/cifar-10-binary.tar.gz" -C "$work/python" cifar-10-batches-py

# The checksum lists of the generated files, in the format of data/SHA256SUMS and data/MD5SUMS.
sums_of() {  # sums_of <folder> <SHA-256 list to write>
  echo "$(sha256sum "$1/cifar-10-binary.tar.gz" | cut -d' ' -f1)  cifar-10-binary.tar.gz" >"$2"
}
sums_of "$work/good" "$work/SHA256SUMS"
sums_of "$work/odd" "$work/SHA256SUMS-odd"
: >"$work/MD5SUMS"
for f in "${batches[@]}"; do
  echo "$(md5sum "$work/good/cifar-10-batches-bin/$f" | cut -d' ' -f1)  cifar-10/$f" >>"$work/MD5SUMS"
done

# ---- fake network tools ----------------------------------------------------------------------
# shellcheck source-path=SCRIPTDIR source=offline_fetch_support.sh
source "$(dirname "${BASH_SOURCE[0]}")/offline_fetch_support.sh"
fake_network_tools "$work"
export FETCH_SHA256SUMS="$work/SHA256SUMS" FETCH_MD5SUMS="$work/MD5SUMS"
unset CIFAR10_URLS CIFAR10_ARCHIVE

dest="$work/dest"
run() { run_fetch "$@"; }  # run <log name> <folder> [env assignments...]
same_as_generated() {  # same_as_generated <folder>: all six files equal the generated ones
  local f
  for f in "${batches[@]}"; do cmp -s "$1/$f" "$work/good/cifar-10-batches-bin/$f" || return 1; done
}
no_scratch_left() { ! compgen -G "$1/.fetch.*" >/dev/null; }

# 1. Nothing there, the site unreachable.
if run unreachable "$dest"; then fail "exit code 0 although the site was unreachable"; fi
what_to_do=$(grep "by hand" "$work/unreachable.out" || true)
[[ $(grep -c "by hand" "$work/unreachable.out") == 1 ]] || fail "not exactly one line says what to do"
[[ $(tail -n 1 "$work/unreachable.out") == "$what_to_do" ]] || fail "the last line does not say what to do"
[[ $what_to_do == *"cannot reach https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz"* ]] ||
  fail "the line does not say that the site cannot be reached"
[[ $what_to_do == *"CIFAR10_ARCHIVE"* && $what_to_do == *"run $script again"* ]] ||
  fail "the line does not say where to put the file and what to run"
grep -q "^curl .*cifar-10-binary.tar.gz" "$work/calls.log" || fail "no download was tried"
no_scratch_left "$dest" || fail "a scratch folder was left behind"
[[ -z $(ls -A "$dest") ]] || fail "files were left in $dest: $(ls -A "$dest")"

# 2. The first URL serves a wrong archive, the second the right one.
urls="file://$work/bad/cifar-10-binary.tar.gz file://$work/good/cifar-10-binary.tar.gz"
if ! run mirrors "$dest" CIFAR10_URLS="$urls"; then fail "exit code is not 0 although the second URL serves the archive"; fi
grep -q "file://$work/bad/cifar-10-binary.tar.gz: cifar-10-binary.tar.gz has SHA-256 .* source rejected" \
  "$work/mirrors.out" || fail "the wrong archive was not rejected"
grep -q "from file://$work/good/cifar-10-binary.tar.gz" "$work/mirrors.out" || fail "the second URL was not used"
same_as_generated "$dest" || fail "the files in $dest are not the archive's"
no_scratch_left "$dest" || fail "a scratch folder was left behind"

# 3. Already there: nothing to do, no tool called.
if ! run intact "$dest"; then fail "exit code is not 0 with intact files"; fi
grep -q "already in $dest" "$work/intact.out" || fail "no 'already in' message"
[[ ! -s $work/calls.log ]] || fail "network tools were called: $(cat "$work/calls.log")"

# 4. A cut file and a changed one; the archive lies in the folder: repaired without the network.
truncate -s -1 "$dest/data_batch_3.bin"
printf '\x07' | dd of="$dest/test_batch.bin" bs=1 seek=500 conv=notrunc status=none
cp "$work/good/cifar-10-binary.tar.gz" "$dest/"
if ! run repair "$dest"; then fail "exit code is not 0 although the archive was in the folder"; fi
grep -q "data_batch_3.bin is damaged (30729999 bytes, expected 30730000)" "$work/repair.out" ||
  fail "the cut file is not named with its size"
grep -q "test_batch.bin is damaged (MD5 .*, expected " "$work/repair.out" || fail "the changed file is not named"
grep -q "got data_batch_3.bin test_batch.bin from $dest/cifar-10-binary.tar.gz" "$work/repair.out" ||
  fail "only the two damaged files should be taken from the archive"
same_as_generated "$dest" || fail "the files were not repaired"
[[ ! -s $work/calls.log ]] || fail "network tools were called: $(cat "$work/calls.log")"
rm "$dest/cifar-10-binary.tar.gz"

# 5. An archive whose SHA-256 matches but which holds a batch of the wrong size.
odd_dest="$work/odd-dest"
if run odd "$odd_dest" FETCH_SHA256SUMS="$work/SHA256SUMS-odd" CIFAR10_ARCHIVE="$work/odd/cifar-10-binary.tar.gz"; then
  fail "exit code 0 although a batch in the archive had the wrong size"
fi
grep -q "data_batch_2.bin in the archive: 100 bytes, expected 30730000; source rejected" "$work/odd.out" ||
  fail "the batch of the wrong size was not named"
[[ -z $(ls -A "$odd_dest") ]] || fail "files were moved from a rejected archive: $(ls -A "$odd_dest")"

# 6. The Python version.
if run python "$work/python-dest" CIFAR10_ARCHIVE="$work/python/cifar-10-binary.tar.gz"; then
  fail "exit code 0 with the Python version"
fi
grep -q "it is the Python version" "$work/python.out" || fail "the Python version is not recognised"

# 7. CIFAR10_ARCHIVE naming no file.
if run missing "$work/missing-dest" CIFAR10_ARCHIVE="$work/nowhere.tar.gz"; then fail "exit code 0 without any archive"; fi
grep -q "CIFAR10_ARCHIVE=$work/nowhere.tar.gz: no such file" "$work/missing.out" || fail "the missing archive is not named"
grep -q "^curl " "$work/calls.log" || fail "the download was not tried after the missing archive"

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
