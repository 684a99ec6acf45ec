#!/usr/bin/env bash
# train_deeper --lr-drops on the GPU: a small network with batch norm and a block trains 3 epochs with
# the rate dropping at epochs 2 and 3. Its steps replayed from CUDA graphs (ONE set for every rate:
# the update reads the rate from device memory) and launched one by one must give the same losses
# epoch by epoch; a run without the drops must not (epoch 1 the same, epoch 2 not), so the replayed
# updates really use the new rates.
# usage: lr_drops_check.sh <train_deeper> <output folder>
set -uo pipefail
program=$1 out=$2
rm -rf "$out" && mkdir -p "$out"
run() {  # name, extra flags...
  local name=$1; shift
  "$program" --device gpu --dataset mnist --train-limit 2000 --test-limit 500 --epochs 3 --batch 64 --lr 0.05 \
    --model "conv3x3x8p1,bn,relu,res(conv3x3x8p1,bn,relu,conv3x3x8p1,bn),relu,pool2,dense10" \
    --out "$out/$name" "$@" > "$out/$name.txt" 2>&1
  local rc=$?
  cat "$out/$name.txt"
  return $rc
}
losses() { grep -o "^epoch [0-9]/3  train loss [0-9.]*" "$out/$1.txt"; }
fail() { echo "FAILED: $*"; exit 1; }

run graphs --lr-drops 2,3 || fail "the run with graphs stopped"
grep -qE "^captured [0-9]+ graph\(s\) of up to" "$out/graphs.txt" || fail "no graphs captured"
grep -q "learning rates" "$out/graphs.txt" && fail "graphs captured again for each rate: one set serves every rate"
for line in "from epoch 1: learning rate 0.05" "from epoch 2: learning rate 0.005" "from epoch 3: learning rate 0.0005"; do
  grep -q "^$line\$" "$out/graphs.txt" || fail "missing the line '$line'"
done
run launches --lr-drops 2,3 --graph off || fail "the run without graphs stopped"
run constant || fail "the run without drops stopped"
[ "$(losses graphs | wc -l)" = 3 ] || fail "expected 3 epoch lines"
[ "$(losses graphs)" = "$(losses launches)" ] || fail "graphs and launches differ: $(losses graphs) / $(losses launches)"
[ "$(losses graphs | head -1)" = "$(losses constant | head -1)" ] || fail "epoch 1 should not depend on the drops"
[ "$(losses graphs | sed -n 2p)" != "$(losses constant | sed -n 2p)" ] || fail "epoch 2 trained as if the rate had not dropped"
echo "lr drops: the same losses replayed and launched; epoch 2 differs from a constant rate"
