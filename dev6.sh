set -u
for set in mnist fashion-mnist; do mkdir -p data/$set; for f in .gpu_data/$set/*.gz; do gunzip -c "$f" > data/$set/$(basename "$f" .gz); done; done
S=-DSTB_INCLUDE_DIR=$PWD/.stb/usr/include/stb
echo "== learner build"
(cmake --preset lessons $S >/dev/null && cmake --build --preset lessons -j16 --target test_15_deeper_cnns_gpu test_15_networks_gpu train_deeper 2>&1 | grep -E "error|warning:" | head)
L=build/lessons/bin
for tag in 15.2 15.4 15.5 15.6; do $L/test_15_deeper_cnns_gpu "[$tag]" >/dev/null 2>&1; echo "stub $tag rc=$?"; done
$L/train_deeper --dataset mnist --epochs 1 2>&1 | tail -1
echo "== solutions"
(cmake --preset solutions $S >/dev/null && cmake --build --preset solutions -j16 2>&1 | grep -E "error|warning:" | head)
cd build/solutions && ctest -L gpu -j4 2>&1 | grep -E "tests passed|\*\*\*Failed|Skipped" | head; ctest -R badinput 2>&1 | grep -E "tests passed|Failed"; cp bad_input_table.md $OUT/ 2>/dev/null; cd ../..
grep -c "train_deeper --device gpu" $OUT/bad_input_table.md
