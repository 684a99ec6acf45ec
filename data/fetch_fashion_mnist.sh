#!/usr/bin/env bash
# Puts the four raw Fashion-MNIST IDX files into data/fashion-mnist/ (or the folder
# given as $1) and verifies each against data/SHA256SUMS. Safe to run again: when the
# files are already there and intact it says so and uses no network.
#
# Sources, in order (a source whose files fail the checksum is rejected, the next is tried):
#   1. the Debian/Ubuntu package dataset-fashion-mnist (/usr/share/datasets/fashion-mnist/*.gz);
#      when it is not installed and this runs as root with apt-get, it tries to install it;
#   2. the .gz files on the Fashion-MNIST mirrors (curl or wget, then gunzip).
# Environment: FETCH_TIMEOUT (seconds, default 10), FASHION_MNIST_MIRRORS (space-separated
# base URLs replacing the list below), FASHION_MNIST_PACKAGE_DIR (where the package's .gz
# files are), FETCH_NO_APT=1 (never run apt-get).
set -euo pipefail

SET_NAME=fashion-mnist
DEST=${1:-$(cd "$(dirname "$0")" && pwd)/fashion-mnist}
# shellcheck source-path=SCRIPTDIR source=fetch_lib.sh
source "$(dirname "$0")/fetch_lib.sh"

DEBIAN_PACKAGE=dataset-fashion-mnist
PACKAGE_DIR=${FASHION_MNIST_PACKAGE_DIR:-/usr/share/datasets/fashion-mnist}
MIRRORS=(
  http://fashion-mnist.s3-website.eu-central-1.amazonaws.com
  https://raw.githubusercontent.com/zalandoresearch/fashion-mnist/master/data/fashion
)
if [[ -n ${FASHION_MNIST_MIRRORS:-} ]]; then
  read -r -a MIRRORS <<<"$FASHION_MNIST_MIRRORS"
fi

package_installed() { [[ -f $PACKAGE_DIR/train-images-idx3-ubyte.gz ]]; }

try_apt_install() {
  if [[ ${FETCH_NO_APT:-0} == 1 ]] || ! command -v apt-get >/dev/null 2>&1; then return 1; fi
  if [[ $(id -u) != 0 ]]; then
    say "the package $DEBIAN_PACKAGE is not installed; 'sudo apt-get install $DEBIAN_PACKAGE' would provide the files"
    return 1
  fi
  say "installing the package $DEBIAN_PACKAGE (apt-get; set FETCH_NO_APT=1 to skip this)"
  local install=(apt-get install -y --no-install-recommends "$DEBIAN_PACKAGE")
  if command -v timeout >/dev/null 2>&1; then install=(timeout 300 "${install[@]}"); fi
  if ! DEBIAN_FRONTEND=noninteractive "${install[@]}" >/dev/null 2>&1; then
    warn "apt-get could not install $DEBIAN_PACKAGE (try 'apt-get update' first, or no network)"
    return 1
  fi
}

if check_existing; then exit 0; fi

if package_installed || try_apt_install; then
  say "trying the package $DEBIAN_PACKAGE in $PACKAGE_DIR"
  if from_gz_folder "$PACKAGE_DIR"; then exit 0; fi
fi
for mirror in "${MIRRORS[@]}"; do
  say "trying $mirror"
  if from_gz_mirror "$mirror"; then exit 0; fi
done

places=("the Debian/Ubuntu package $DEBIAN_PACKAGE: $PACKAGE_DIR/<file>.gz")
for mirror in "${MIRRORS[@]}"; do places+=("$mirror/<file>.gz"); done
print_manual_steps "${places[@]}"
exit 1
