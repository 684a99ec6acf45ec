// Lesson 13's study (a program above the lessons): the all-reduce sweep's file and the alpha-beta model's
// figures (allreduce_sweep.hpp).
#include "allreduce_sweep.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <set>

#include "course/csv.hpp"
#include "course/error.hpp"

namespace data_parallel {

const char* const kAllReduceHeader = "ranks,bytes,microseconds,algbw_gb_per_s,busbw_gb_per_s";

std::string bytes_text(double bytes) {
  char text[32];
  if (bytes >= 1 << 20)
    std::snprintf(text, sizeof text, "%.3g MiB", bytes / (1 << 20));
  else if (bytes >= 1 << 10)
    std::snprintf(text, sizeof text, "%.3g KiB", bytes / (1 << 10));
  else
    std::snprintf(text, sizeof text, "%.3g B", bytes);
  return text;
}

std::string allreduce_csv(const AllReduceSweep& sweep) {
  std::string csv = std::string(kAllReduceHeader) + "\n";
  for (const AllReduceTime& p : sweep.points) {
    const double alg = p.bytes / p.seconds * 1e-9;
    char line[160];
    std::snprintf(line, sizeof line, "%d,%.0f,%.3f,%.3f,%.3f\n", sweep.ranks, p.bytes, p.seconds * 1e6, alg,
                  alg * ring_link_share(sweep.ranks));
    csv += line;
  }
  return csv;
}

AllReduceSweep parse_allreduce_csv(const std::string& text, const std::string& path) {
  AllReduceSweep sweep;
  std::set<double> sizes;
  course::for_each_csv_row(text, path, kAllReduceHeader, "an all-reduce sweep (allreduce.csv)",
                           [&](const std::vector<std::string>& f, int) {
                             const int ranks = int(course::parse_csv_integer(f[0], "ranks", 2, 64));
                             if (sweep.ranks != 0 && ranks != sweep.ranks)
                               throw course::Error("ranks is " + f[0] + " here and " + std::to_string(sweep.ranks) +
                                                   " above: one sweep is on one number of GPUs");
                             sweep.ranks = ranks;
                             AllReduceTime p;
                             p.bytes = double(course::parse_csv_integer(f[1], "bytes", 1, 1L << 40));
                             // Written with 3 decimals: a time under a nanosecond would come back as 0.
                             p.seconds = course::parse_csv_number(f[2], "microseconds", 0.001, 1e12, false) * 1e-6;
                             course::parse_csv_number(f[3], "algbw_gb_per_s", 0, 1e12, false);
                             course::parse_csv_number(f[4], "busbw_gb_per_s", 0, 1e12, false);
                             if (!sizes.insert(p.bytes).second) throw course::Error("bytes " + f[1] + " appears twice");
                             sweep.points.push_back(p);
                           });
  if (sweep.points.empty()) throw course::Error(path + ": no all-reduce in the file, only its header");
  return sweep;
}

AllReduceSweep read_allreduce_csv(const std::string& path) {
  return parse_allreduce_csv(
      course::read_text_file(path, "an all-reduce sweep (allreduce.csv)",
                             "file not found (lesson13_data_parallel writes allreduce.csv on two GPUs; "
                             "docs/lesson13/ has recorded ones)"),
      path);
}

void print_alpha_beta_fit(const AllReduceSweep& sweep, const AlphaBeta& model, const std::string& source) {
  std::printf("\n## The alpha-beta model of the all-reduce (13.4), fitted to %s\n\n", source.c_str());
  std::printf("t(S) = alpha + 2 (n-1)/n * S / beta on n = %d GPUs: alpha = %.1f us (the fixed cost of a call), "
              "beta = %.1f GB/s (each link's bandwidth).\n",
              sweep.ranks, model.alpha_s * 1e6, model.beta_bytes_per_s * 1e-9);
  std::printf("Half the time is alpha at S = %s: below that a call costs mostly alpha, above it mostly bytes.\n\n",
              bytes_text(model.alpha_s * model.beta_bytes_per_s / ring_link_share(sweep.ranks)).c_str());
  std::printf("| size | measured (us) | model (us) | model / measured |\n|---:|---:|---:|---:|\n");
  std::vector<AllReduceTime> points = sweep.points;
  std::sort(points.begin(), points.end(), [](const AllReduceTime& a, const AllReduceTime& b) { return a.bytes < b.bytes; });
  for (const AllReduceTime& p : points) {
    const double m = allreduce_model_seconds(model, p.bytes, sweep.ranks);
    std::printf("| %s | %.1f | %.1f | %.2f |\n", bytes_text(p.bytes).c_str(), p.seconds * 1e6, m * 1e6, m / p.seconds);
  }
  std::fflush(stdout);
}

double predicted_step_ms(double one_gpu_ms, const std::vector<double>& bucket_bytes, const AlphaBeta& model,
                         int ranks, bool overlap) {
  if (ranks < 2 || bucket_bytes.empty()) return one_gpu_ms;
  auto t_ms = [&](double bytes) { return allreduce_model_seconds(model, bytes, ranks) * 1e3; };
  if (!overlap) return one_gpu_ms + t_ms(std::accumulate(bucket_bytes.begin(), bucket_bytes.end(), 0.0));
  double all = 0;
  for (double b : bucket_bytes) all += t_ms(b);
  return std::max(one_gpu_ms + t_ms(bucket_bytes.back()), all);
}

}  // namespace data_parallel
