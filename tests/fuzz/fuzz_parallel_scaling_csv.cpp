// Fuzzes lesson 13's scaling-study reader (parse_scaling_csv, behind lesson13_data_parallel --fit
// --scaling): bad input is one course::Error line naming the file; what it accepts obeys its rules;
// the model's table and picture of it either refuse it with a course::Error or build.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "scaling_model.hpp"

using course::fuzz::check_message;
using course::fuzz::expect;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<data_parallel::MeasuredStep> steps;
  try {
    steps = data_parallel::parse_scaling_csv(text, "scaling.csv");
  } catch (const course::Error& e) {
    check_message(e, "");
    expect(std::string(e.what()).rfind("scaling.csv", 0) == 0, "error message starts with the file's name", e.what());
    return 0;
  }
  // A NUL byte would cut a number short ("12<NUL>9999" read as 12): no accepted file holds one.
  expect(text.find('\0') == std::string::npos, "an accepted CSV holds no NUL byte");
  expect(!steps.empty(), "an accepted study has a row");
  for (const data_parallel::MeasuredStep& s : steps) {
    expect(!s.network.empty() && s.parameters >= 1, "accepted rows name a network with parameters");
    expect(s.batch_per_gpu >= 1 && s.batch_per_gpu <= 65536 && s.ranks >= 1 && s.ranks <= 64, "accepted sizes in range");
    expect(s.one_gpu_ms > 0 && std::isfinite(s.one_gpu_ms), "an accepted one-GPU time is > 0");
    expect(s.ranks < 2 || (s.no_overlap_ms > 0 && s.overlap_ms > 0), "accepted N-GPU times are > 0");
  }
  // A model like a real link's: the picture of what was accepted is built (not drawn) or refused.
  const data_parallel::AlphaBeta model{15e-6, 250e9};
  try {
    const course::ChartSpec chart = data_parallel::model_chart(steps, model, "");
    for (const course::ChartSeries& series : chart.series)
      for (size_t i = 0; i < series.x.size(); ++i)
        expect(series.x[i] > 0 && std::isfinite(series.y[i]), "the picture's points are finite, x > 0");
  } catch (const course::Error& e) {
    check_message(e, "");
  }
  return 0;
}
