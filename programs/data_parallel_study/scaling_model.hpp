#pragma once
// Lesson 13's study (a program above the lessons): the scaling study's measurements held against
// 13.4's model, on any machine.
// The study's scaling.csv is read back; each row's one-GPU step and its step on N GPUs (all-reduce
// after backward) are set against the model's all-reduce of the row's gradients.
//
// At the same batch a GPU the model's N-GPU step is t1 + t(gradients), so its speed-up is
//     N t1 / (t1 + t) = N x / (x + 1)      with x = t1 / t(gradients),
// one curve for every network and every link: x alone decides, and N GPUs pay (speed-up > 1)
// once x > 1 / (N - 1): on two GPUs, once one GPU's step outlasts the all-reduce.
#include <string>
#include <vector>

#include "alpha_beta.hpp"
#include "course/chart.hpp"

namespace data_parallel {

// One row of scaling.csv, the columns the model needs.
struct MeasuredStep {
  std::string network;
  long parameters = 0;
  int batch_per_gpu = 0, ranks = 0;
  double one_gpu_ms = 0;     // one GPU, batch_per_gpu examples
  double no_overlap_ms = 0;  // `ranks` GPUs, all-reduce after backward (0: not measured, one GPU)
  double overlap_ms = 0;     // ... bucket by bucket during backward (13.3)
  std::vector<double> bucket_bytes;  // the buckets in backward order, where known (not in scaling.csv)
};

// scaling.csv's first line (report_scaling writes it).
extern const char* const kScalingHeader;
// Reads what report_scaling writes. Throws course::Error "<path>: ..." or "<path>:<line>: ..." for
// a missing or unreadable file, another header, a row with the wrong number of fields, an empty
// network name, parameters < 1, a batch outside 1..65536, ranks outside 1..64, a one-GPU time not
// > 0, N-GPU times not > 0 where ranks >= 2 (or given where ranks is 1), or no row at all.
std::vector<MeasuredStep> parse_scaling_csv(const std::string& text, const std::string& path);
std::vector<MeasuredStep> read_scaling_csv(const std::string& path);

// A speed-up chart on `ranks` GPUs: the title, the x label, a log x axis, and the lines "no gain"
// (1) and "perfect" (ranks) that every speed-up picture of the lesson has.
course::ChartSpec speedup_chart_frame(const std::string& title, const std::string& x_label, int ranks);

// The number of GPUs every row of the study ran on; a course::Error when the rows differ in it or
// when it is one (nothing to hold against the model).
int study_ranks(const std::vector<MeasuredStep>& steps);

// x = t1 / t(gradients of 4-byte floats): where the row sits on the model's curve.
double step_over_allreduce(const MeasuredStep& s, const AlphaBeta& model);
// The picture: measured speed-up (all-reduce after backward) against x, one line per network, and
// the model's curve N x / (x + 1) over the same range; log x. Throws course::Error when no row has
// two GPUs or more, or when the rows are on different numbers of GPUs.
course::ChartSpec model_chart(const std::vector<MeasuredStep>& steps, const AlphaBeta& model, const std::string& link);
// The table of the same: each row's x and the measured and predicted speed-up after backward; where
// every row knows its buckets, also the overlapped speed-up against predicted_step_ms's.
void print_model_table(const std::vector<MeasuredStep>& steps, const AlphaBeta& model);

}  // namespace data_parallel
