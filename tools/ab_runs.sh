#!/usr/bin/env bash
# Two builds of the course on one GPU, the same training runs alternated: is a change as fast as
# the tree before it? OLD is that tree's source (a folder, or a .tar.gz of it, e.g. from
# `git archive <commit> | gzip`); this tree's build/solutions must be built (gpu_check.sh build).
# OLD's trainers are built in OLD/build/solutions (once; kept for the next call) with this tree's
# data sets and stb. Each run prints its timing lines; ROUNDS (default 2) rounds, old then new.
#
# usage: tools/ab_runs.sh OLD [ROUNDS]
#   e.g. git archive 8081c2a | gzip > /tmp/old.tgz && tools/ab_runs.sh /tmp/old.tgz 2
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
[ $# -ge 1 ] || { echo "error: usage: tools/ab_runs.sh OLD [ROUNDS] (OLD: the tree before, a folder or a .tar.gz)" >&2; exit 2; }
OLD_SOURCE=$1; ROUNDS=${2:-2}
case $ROUNDS in ''|*[!0-9]*|0) echo "error: ROUNDS must be a whole number >= 1, got '$ROUNDS'" >&2; exit 2 ;; esac
[ -x build/solutions/bin/train_sine ] || { echo "error: build/solutions/bin/train_sine not found; build this tree first (tools/gpu_check.sh build)" >&2; exit 1; }
[ -f data/mnist/train-images-idx3-ubyte ] && [ -f data/fashion-mnist/train-images-idx3-ubyte ] ||
  { echo "error: the runs need MNIST and Fashion-MNIST in data/ (data/fetch_mnist.sh, data/fetch_fashion_mnist.sh)" >&2; exit 1; }
if [ -d "$OLD_SOURCE" ]; then
  OLD=$(cd "$OLD_SOURCE" && pwd)
elif [ -f "$OLD_SOURCE" ]; then
  # Unpacked once; another archive (its checksum differs) is unpacked afresh, build and all.
  OLD=${TMPDIR:-/tmp}/ab_old
  sum=$(sha256sum < "$OLD_SOURCE" | cut -c1-64)
  if [ "$(cat "$OLD/.ab_source" 2>/dev/null)" != "$sum" ]; then
    rm -rf "$OLD" && mkdir -p "$OLD" && tar xzf "$OLD_SOURCE" -C "$OLD" 2>/dev/null && echo "$sum" > "$OLD/.ab_source" ||
      { echo "error: cannot unpack $OLD_SOURCE into $OLD" >&2; rm -rf "$OLD"; exit 1; }
  fi
else
  echo "error: $OLD_SOURCE is neither a folder nor a file" >&2; exit 2
fi
programs=(train_fast train_mixed train_speedrun train_deeper train_sine)
if [ ! -x "$OLD/build/solutions/bin/train_sine" ]; then
  echo "ab_runs: building the old tree's trainers in $OLD/build/solutions"
  mkdir -p "$OLD/data"
  for set in mnist fashion-mnist; do [ -e "$OLD/data/$set" ] || ln -s "$ROOT/data/$set" "$OLD/data/$set"; done
  stb=(); [ -d "$ROOT/.stb/usr/include/stb" ] && stb=(-DSTB_INCLUDE_DIR="$ROOT/.stb/usr/include/stb")
  (cd "$OLD" && cmake --preset solutions "${stb[@]}" > build.log 2>&1 &&
    cmake --build build/solutions -j "$(nproc)" --target "${programs[@]}" >> build.log 2>&1) ||
    { tail -30 "$OLD/build.log"; echo "error: the old tree did not build (above; all of it in $OLD/build.log)" >&2; exit 1; }
fi

runs=(
  "train_fast --epochs 3"
  "train_mixed --precision bf16 --epochs 3"
  "train_speedrun --precision bf16 --seeds 1"
  "train_deeper --device gpu --epochs 2"
  "train_deeper --device gpu --precision bf16 --epochs 2"
  "train_deeper --device gpu --epochs 3 --lr-drops 2,3 --train-limit 12800"
  "train_sine --device gpu --hidden 51 --epochs 30"
)
status=0
for round in $(seq "$ROUNDS"); do
  for run in "${runs[@]}"; do
    for tree in old new; do
      dir=$ROOT; [ $tree = old ] && dir=$OLD
      read -r -a words <<< "$run"
      echo "== round $round, $tree: $run"
      if ! out=$(cd "$dir" && "build/solutions/bin/${words[0]}" "${words[@]:1}" --out "${TMPDIR:-/tmp}/ab_out_$tree" 2>&1); then
        echo "$out" | tail -5; status=1; continue
      fi
      # The lines that carry the figures: the summary, the captures, the speedrun's table rows.
      echo "$out" | grep -E "^summary|^captured|^from epoch|median|^ *seed|^ *mean" | grep -v "img/s" | tail -6
    done
  done
done
exit $status
