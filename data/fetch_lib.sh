# shellcheck shell=bash
# Shared by fetch_mnist.sh and fetch_fashion_mnist.sh (fetch_cifar10.sh uses the general helpers:
# say, warn, sha256_of, download, new_scratch): sourced, not run.
# The caller sets, before sourcing:
#   SET_NAME  the data set's folder name in SHA256SUMS ("mnist", "fashion-mnist")
#   DEST      the folder the four raw IDX files go to
# Every source puts its files into a scratch folder inside DEST; only files whose
# SHA-256 matches SHA256SUMS are moved into DEST, so a bad download never
# replaces anything and a half-finished run leaves nothing behind.

DATA_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SUMS_FILE=${FETCH_SHA256SUMS:-$DATA_DIR/SHA256SUMS}  # FETCH_SHA256SUMS: another list, for tests
IDX_FILES=(train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte)
# Seconds to wait for a connection (and for a stalled transfer): an unreachable
# mirror must fail fast so that the next source is tried.
FETCH_TIMEOUT=${FETCH_TIMEOUT:-10}
SCRIPT_NAME=$(basename "$0")

say() { printf '%s: %s\n' "$SCRIPT_NAME" "$*"; }
warn() { printf '%s: %s\n' "$SCRIPT_NAME" "$*" >&2; }

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d' ' -f1
  else
    warn "neither sha256sum nor shasum is installed: cannot verify the files"
    exit 2
  fi
}

md5_of() {
  if command -v md5sum >/dev/null 2>&1; then
    md5sum "$1" | cut -d' ' -f1
  elif command -v md5 >/dev/null 2>&1; then
    md5 -q "$1"
  else
    warn "neither md5sum nor md5 is installed: cannot verify the files"
    exit 2
  fi
}

# looked_up <checksum list> <name>: the checksum the list gives for name.
looked_up() {
  local want
  want=$(awk -v name="$2" '$2 == name { print $1 }' "$1")
  if [[ -z $want ]]; then
    warn "$1 has no line for $2"
    exit 2
  fi
  printf '%s\n' "$want"
}

# The SHA-256 that SHA256SUMS lists for $SET_NAME/<file>.
expected_sum() { looked_up "$SUMS_FILE" "$SET_NAME/$1"; }

# Fills the array NEEDED with the files of DEST that are missing or whose
# checksum is wrong (saying which are wrong).
find_needed() {
  NEEDED=()
  local f got
  for f in "${IDX_FILES[@]}"; do
    if [[ ! -f $DEST/$f ]]; then
      NEEDED+=("$f")
      continue
    fi
    got=$(sha256_of "$DEST/$f")
    if [[ $got != "$(expected_sum "$f")" ]]; then
      say "$DEST/$f is damaged (SHA-256 $got, expected $(expected_sum "$f")); fetching it again"
      NEEDED+=("$f")
    fi
  done
}

# A fresh, empty scratch folder inside DEST; removed when the script exits.
SCRATCH=""
new_scratch() {
  if [[ -z $SCRATCH ]]; then
    SCRATCH=$(mktemp -d "$DEST/.fetch.XXXXXX")
    trap 'rm -rf "$SCRATCH"' EXIT
  fi
  rm -rf "${SCRATCH:?}"/*
}

# download <url> <output file>: curl or wget, short timeouts, no retries.
download() {
  local url=$1 out=$2
  if command -v curl >/dev/null 2>&1; then
    curl --fail --silent --show-error --location --connect-timeout "$FETCH_TIMEOUT" \
         --speed-limit 1024 --speed-time "$FETCH_TIMEOUT" --output "$out" "$url"
  elif command -v wget >/dev/null 2>&1; then
    wget --quiet --tries=1 --timeout="$FETCH_TIMEOUT" --output-document="$out" "$url"
  else
    warn "neither curl nor wget is installed"
    return 1
  fi
}

# accept <source name>: every file in NEEDED must be in SCRATCH with the right
# checksum; then they are moved into DEST. Otherwise the source is rejected.
accept() {
  local source=$1 f got want
  for f in "${NEEDED[@]}"; do
    if [[ ! -f $SCRATCH/$f ]]; then
      warn "$source: $f is missing; source rejected"
      return 1
    fi
    got=$(sha256_of "$SCRATCH/$f")
    want=$(expected_sum "$f")
    if [[ $got != "$want" ]]; then
      warn "$source: $f has SHA-256 $got, expected $want; source rejected"
      return 1
    fi
  done
  for f in "${NEEDED[@]}"; do
    mv -f "$SCRATCH/$f" "$DEST/$f"
  done
  say "got ${NEEDED[*]} from $source; all checksums match"
  return 0
}

# from_gz_mirror <base url>: downloads <base>/<file>.gz for each needed file and unpacks it.
from_gz_mirror() {
  local base=$1 f
  new_scratch
  for f in "${NEEDED[@]}"; do
    if ! download "$base/$f.gz" "$SCRATCH/$f.gz" 2>"$SCRATCH/error.log"; then
      warn "$base: cannot download $f.gz ($(tail -n 1 "$SCRATCH/error.log"))"
      return 1
    fi
    if ! gzip -dc "$SCRATCH/$f.gz" >"$SCRATCH/$f" 2>/dev/null; then
      warn "$base: $f.gz is not a valid gzip file; source rejected"
      return 1
    fi
  done
  accept "$base"
}

# from_gz_folder <folder>: the same from .gz files already on this machine.
from_gz_folder() {
  local dir=$1 f
  new_scratch
  for f in "${NEEDED[@]}"; do
    if ! gzip -dc "$dir/$f.gz" >"$SCRATCH/$f" 2>/dev/null; then
      warn "$dir: cannot unpack $f.gz; source rejected"
      return 1
    fi
  done
  accept "$dir"
}

# Checks DEST first: when all four files are there and intact, there is nothing to do.
# Returns 0 in that case, 1 when files are needed (listed in NEEDED).
check_existing() {
  local f
  for f in "${IDX_FILES[@]}"; do
    [[ -n $(expected_sum "$f") ]] || exit 2
  done
  mkdir -p "$DEST"
  DEST=$(cd "$DEST" && pwd)
  find_needed
  if [[ ${#NEEDED[@]} -eq 0 ]]; then
    say "$SET_NAME is already in $DEST (all four files match SHA-256 in $SUMS_FILE)"
    return 0
  fi
  say "need ${NEEDED[*]} in $DEST"
  return 1
}

# Printed when no source worked: what to download by hand and where to put it.
# Arguments: lines naming the places the files can be found.
print_manual_steps() {
  local f line
  {
    printf '%s: could not get %s from any source.\n' "$SCRIPT_NAME" "$SET_NAME"
    echo "To install it by hand, get these files:"
    for f in "${NEEDED[@]}"; do echo "    $f"; done
    echo "from one of these places:"
    for line in "$@"; do echo "    $line"; done
    echo "unpack any .gz file with 'gunzip FILE.gz', and put the unpacked files into"
    echo "    $DEST/"
    echo "Their SHA-256 must be:"
    for f in "${NEEDED[@]}"; do echo "    $(expected_sum "$f")  $f"; done
    echo "Then run $0 again: it checks them and says when all is well."
  } >&2
}
