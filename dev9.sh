#!/bin/bash
S=-DSTB_INCLUDE_DIR=$PWD/.stb/usr/include/stb
(cmake --preset solutions $S && cmake --build --preset solutions -j16 --target test_15_deeper_cnns_gpu test_15_box_task_gpu) > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
B=build/solutions/bin
$B/test_15_deeper_cnns_gpu "[15.6],[15.7]" 2>&1 | tail -2
$B/test_15_box_task_gpu 2>&1 | tail -2
for t in "test_15_deeper_cnns_gpu [15.6],[15.7]" "test_15_box_task_gpu"; do
  set -- $t
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --report-api-errors no --error-exitcode 9 $B/$1 $2 > $OUT/san.log 2>&1; echo "$tool $t rc=$? $(tail -1 $OUT/san.log)"
  done
done
