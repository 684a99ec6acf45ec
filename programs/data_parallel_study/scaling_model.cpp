// Lesson 13's study (a program above the lessons): the scaling study against 13.4's model
// (scaling_model.hpp).
#include "scaling_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "allreduce_sweep.hpp"
#include "course/csv.hpp"
#include "course/error.hpp"

namespace data_parallel {

const char* const kScalingHeader =
    "network,parameters,batch_per_gpu,ranks,gflop_per_gpu_step,one_gpu_ms,no_overlap_ms,overlap_ms,"
    "one_gpu_images_per_s,no_overlap_images_per_s,overlap_images_per_s,speedup,speedup_same_step,"
    "predicted_no_overlap_ms,predicted_overlap_ms";

std::vector<MeasuredStep> parse_scaling_csv(const std::string& text, const std::string& path) {
  std::vector<MeasuredStep> steps;
  course::for_each_csv_row(text, path, kScalingHeader, "a scaling study CSV (scaling.csv)",
                           [&](const std::vector<std::string>& f, int) {
                             MeasuredStep s;
                             s.network = f[0];
                             if (s.network.empty()) throw course::Error("network is empty");
                             s.parameters = course::parse_csv_integer(f[1], "parameters", 1, 1L << 40);
                             s.batch_per_gpu = int(course::parse_csv_integer(f[2], "batch_per_gpu", 1, 65536));
                             s.ranks = int(course::parse_csv_integer(f[3], "ranks", 1, 64));
                             s.one_gpu_ms = course::parse_csv_number(f[5], "one_gpu_ms", 0, 1e9, true);
                             if (s.ranks >= 2) {
                               s.no_overlap_ms = course::parse_csv_number(f[6], "no_overlap_ms", 0, 1e9, true);
                               s.overlap_ms = course::parse_csv_number(f[7], "overlap_ms", 0, 1e9, true);
                             } else if (!f[6].empty() || !f[7].empty()) {
                               throw course::Error("no_overlap_ms and overlap_ms must be empty with one rank");
                             }
                             steps.push_back(s);
                           });
  if (steps.empty()) throw course::Error(path + ": no measurement in the file, only its header");
  return steps;
}

std::vector<MeasuredStep> read_scaling_csv(const std::string& path) {
  return parse_scaling_csv(course::read_text_file(path, "a scaling study CSV (scaling.csv)",
                                                  "file not found (lesson13_data_parallel writes scaling.csv; "
                                                  "docs/lesson13/ has recorded ones)"),
                           path);
}

double step_over_allreduce(const MeasuredStep& s, const AlphaBeta& model) {
  return s.one_gpu_ms / (allreduce_model_seconds(model, s.parameters * 4.0, s.ranks) * 1e3);
}

int study_ranks(const std::vector<MeasuredStep>& steps) {
  const int ranks = steps.empty() ? 0 : steps.front().ranks;
  for (const MeasuredStep& s : steps)
    if (s.ranks != ranks) throw course::Error("the study's rows are on different numbers of GPUs: one at a time");
  if (ranks < 2) throw course::Error("the study ran on one GPU: there is no N-GPU step to hold against the model");
  return ranks;
}

course::ChartSpec speedup_chart_frame(const std::string& title, const std::string& x_label, int ranks) {
  course::ChartSpec chart;
  chart.title = title;
  chart.x_label = x_label;
  chart.y_label = "SPEED-UP";
  chart.log_x = true;
  chart.y_lines = {{1.0, "NO GAIN"}, {double(ranks), std::to_string(ranks) + "X: PERFECT"}};
  return chart;
}

course::ChartSpec model_chart(const std::vector<MeasuredStep>& steps, const AlphaBeta& model, const std::string& link) {
  const int ranks = study_ranks(steps);
  course::ChartSpec chart = speedup_chart_frame(
      "THE ALPHA-BETA MODEL AGAINST " + std::to_string(ranks) + " GPUS" + (link.empty() ? "" : ", " + link) +
          ": SPEED-UP, ALL-REDUCE AFTER BACKWARD",
      "X = ONE GPU STEP / MODEL ALL-REDUCE OF THE GRADIENTS", ranks);
  double lo = 1e300, hi = 0;
  for (const MeasuredStep& s : steps) {
    const double x = step_over_allreduce(s, model);
    lo = std::min(lo, x), hi = std::max(hi, x);
    auto it = std::find_if(chart.series.begin(), chart.series.end(),
                           [&](const course::ChartSeries& c) { return c.label == s.network; });
    if (it == chart.series.end()) it = chart.series.insert(chart.series.end(), {s.network, {}, {}});
    it->x.push_back(x);
    it->y.push_back(ranks * s.one_gpu_ms / s.no_overlap_ms);
  }
  course::ChartSeries curve{"MODEL: " + std::to_string(ranks) + "X / (X + 1)", {}, {}};
  const int points = 48;
  for (int i = 0; i <= points; ++i) {
    const double x = lo * std::pow(hi / lo, double(i) / points);
    curve.x.push_back(x);
    curve.y.push_back(ranks * x / (x + 1));
  }
  chart.series.push_back(curve);
  return chart;
}

void print_model_table(const std::vector<MeasuredStep>& steps, const AlphaBeta& model) {
  const int ranks = study_ranks(steps);
  const bool buckets = std::all_of(steps.begin(), steps.end(), [](const MeasuredStep& s) { return !s.bucket_bytes.empty(); });
  std::printf("\n## The scaling study against the model: x = one GPU's step / the model's all-reduce of the gradients\n\n");
  std::printf("Model, all-reduce after backward, same batch a GPU: speed-up = %d x / (x + 1); %d GPUs pay once x > %.2f,\n"
              "that is once one GPU's step takes longer than %s.%s\n\n",
              ranks, ranks, 1.0 / (ranks - 1),
              ranks == 2 ? "the model's all-reduce of the gradients" : "1 / (N - 1) of the model's all-reduce of the gradients",
              buckets ? "\nOverlapped: predicted_step_ms (allreduce_sweep.hpp), an optimistic bound." : "");
  std::printf("| network | batch a GPU | 1 GPU step (us) | t(gradients), model (us) | x | after backward: measured | model |%s\n",
              buckets ? " overlapped: measured | model |" : "");
  std::printf("|---|---:|---:|---:|---:|---:|---:|%s\n", buckets ? "---:|---:|" : "");
  for (const MeasuredStep& s : steps) {
    const double t_us = allreduce_model_seconds(model, s.parameters * 4.0, ranks) * 1e6;
    const double x = step_over_allreduce(s, model);
    std::printf("| %s | %d | %.1f | %.1f | %.2f | %.2f | %.2f |", s.network.c_str(), s.batch_per_gpu,
                s.one_gpu_ms * 1e3, t_us, x, ranks * s.one_gpu_ms / s.no_overlap_ms, ranks * x / (x + 1));
    if (buckets)
      std::printf(" %.2f | %.2f |", ranks * s.one_gpu_ms / s.overlap_ms,
                  ranks * s.one_gpu_ms / predicted_step_ms(s.one_gpu_ms, s.bucket_bytes, model, ranks, true));
    std::printf("\n");
  }
  std::fflush(stdout);
}

}  // namespace data_parallel
