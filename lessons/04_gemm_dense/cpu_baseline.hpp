#pragma once
// Lesson 04's CPU part, the baseline the GPU table compares with: lesson 01's dense forward
// (y = x * W^T + bias, a matmul A*B^T as plain loops) at a few of the benchmark's shapes,
// checked against double, then timed with the host clock. It is all that runs without a GPU
// (or with --cpu-only).
namespace lesson04 {

// Prints a Markdown table (ms and GFLOP/s per shape); throws course::Error when a product is
// wrong. quick: the smaller shapes and one repeat.
void run_cpu_baseline(bool quick);

}  // namespace lesson04
