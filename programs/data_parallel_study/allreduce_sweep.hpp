#pragma once
// Lesson 13's study (a program above the lessons): the all-reduce sweep as a file (allreduce.csv), and the
// alpha-beta model of 13.4 held against the sweep it was fitted to and against the scaling study's step
// times. Host code only: `lesson13_data_parallel --fit allreduce.csv` runs it on any machine.
#include <string>
#include <vector>

#include "alpha_beta.hpp"

namespace data_parallel {

// An all-reduce sweep: NCCL all-reduces of growing size on `ranks` GPUs.
struct AllReduceSweep {
  int ranks = 0;
  std::vector<AllReduceTime> points;
};

// allreduce.csv: "ranks,bytes,microseconds,algbw_gb_per_s,busbw_gb_per_s", one row a size.
extern const char* const kAllReduceHeader;
std::string allreduce_csv(const AllReduceSweep& sweep);
// Reads what allreduce_csv writes. Throws course::Error "<path>: ..." or "<path>:<line>: ..." for a
// missing or unreadable file, another header, a row with the wrong number of fields, ranks outside
// 2..64 or not the same in every row, bytes outside 1..2^40, microseconds under 0.001, a bandwidth that
// is not a number >= 0, a size that appears twice, or no row at all.
AllReduceSweep parse_allreduce_csv(const std::string& text, const std::string& path);
AllReduceSweep read_allreduce_csv(const std::string& path);

// "4 KiB", "3.64 MiB": a size for the tables.
std::string bytes_text(double bytes);

// The fit and, size by size, the measured time beside the model's and the miss in %.
void print_alpha_beta_fit(const AllReduceSweep& sweep, const AlphaBeta& model, const std::string& source);

// The model's step time on `ranks` GPUs from one GPU's step at the same batch a GPU (one_gpu_ms)
// and the gradients' buckets (bytes each, in backward order: the last layers' bucket first).
// Without overlap the replica reduces all gradients in one call after the backward pass:
//     one_gpu_ms + t(all bytes).
// With overlap each bucket is reduced on its own stream as soon as its layers are done; the
// reductions run one after another. At best every reduction but the last hides behind the backward
// pass (the last bucket, the first layers, is ready only when the pass ends); and the reductions
// together cannot take less than their sum:
//     max(one_gpu_ms + t(last bucket), sum of t(bucket)).
// An optimistic figure: NCCL's kernels also take SMs from the backward pass they run beside.
double predicted_step_ms(double one_gpu_ms, const std::vector<double>& bucket_bytes, const AlphaBeta& model,
                         int ranks, bool overlap);

}  // namespace data_parallel
