set -u
for set in mnist fashion-mnist; do mkdir -p data/$set; for f in .gpu_data/$set/*.gz; do gunzip -c "$f" > data/$set/$(basename "$f" .gz); done; done
S=-DSTB_INCLUDE_DIR=$PWD/.stb/usr/include/stb
(cmake --preset solutions $S >/dev/null && cmake --build --preset solutions -j16 --target train_deeper 2>&1 | grep -E "error|warning:" | head)
B=build/solutions/bin
for seed in 1 2 3; do $B/train_deeper --epochs 3 --seed $seed 2>&1 | tr "\r" "\n" | grep -aE "^epoch [0-9]+/[0-9]+ +train" | tail -1 | sed "s/^/course seed $seed: /"; done
for seed in 1 2 3; do timeout 120 python3 tools/pytorch_layers.py --mode graph --model resnet20 --dataset fashion --optimizer sgd --lr 0.05 --momentum 0.9 --batch 128 --seed $seed --epochs 3 2>&1 | grep "epoch 3" | sed "s/^/pytorch graph seed $seed: /"; done
$B/train_deeper --epochs 1 --train-limit 12800 --profile --profile-steps 100 --model conv3x3x16p1,bn,relu,conv3x3x16p1,bn,relu,conv3x3x16p1,bn,relu,conv3x3x32p1s2,bn,relu,conv3x3x32p1,bn,relu,conv3x3x64p1s2,bn,relu,conv3x3x64p1,bn,relu,globalavg,dense10 2>&1 | tr "\r" "\n" | grep -aE "^(conv|bn|relu|avg|fc|loss|sum|step|gather)" | cut -c1-100
