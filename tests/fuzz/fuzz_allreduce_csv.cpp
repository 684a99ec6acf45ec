// Fuzzes lesson 13's all-reduce sweep reader (parse_allreduce_csv, behind lesson13_data_parallel
// --fit): bad input is one course::Error line naming the file; what it accepts obeys its rules,
// survives a round trip through allreduce_csv, and 13.4's fit of it either refuses it with a
// course::Error or gives a positive alpha and beta whose predictions are finite.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "allreduce_sweep.hpp"
#include "fuzz_check.hpp"

using course::fuzz::check_message;
using course::fuzz::expect;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  data_parallel::AllReduceSweep sweep;
  try {
    sweep = data_parallel::parse_allreduce_csv(text, "allreduce.csv");
  } catch (const course::Error& e) {
    check_message(e, "");
    expect(std::string(e.what()).rfind("allreduce.csv", 0) == 0, "error message starts with the file's name", e.what());
    return 0;
  }
  // A NUL byte would cut a number short ("12<NUL>9999" read as 12): no accepted file holds one.
  expect(text.find('\0') == std::string::npos, "an accepted CSV holds no NUL byte");
  expect(sweep.ranks >= 2 && sweep.ranks <= 64, "accepted ranks are 2..64");
  expect(!sweep.points.empty(), "an accepted sweep has a row");
  std::set<double> sizes;
  for (const data_parallel::AllReduceTime& p : sweep.points) {
    expect(p.bytes >= 1 && p.bytes <= double(1L << 40), "accepted sizes are 1..2^40");
    expect(p.seconds >= 1e-9 && std::isfinite(p.seconds), "accepted times are finite and >= 1 ns");
    expect(sizes.insert(p.bytes).second, "no size twice");
  }
  // What was accepted, written again, reads back: same ranks, same sizes, times within the
  // writer's rounding (3 decimals of a microsecond).
  const data_parallel::AllReduceSweep back =
      data_parallel::parse_allreduce_csv(data_parallel::allreduce_csv(sweep), "again.csv");
  expect(back.ranks == sweep.ranks && back.points.size() == sweep.points.size(), "a round trip keeps every row");
  for (size_t i = 0; i < back.points.size(); ++i) {
    expect(back.points[i].bytes == sweep.points[i].bytes, "a round trip keeps every size");
    expect(std::abs(back.points[i].seconds - sweep.points[i].seconds) <= 0.51e-9, "a round trip keeps every time");
  }
  try {
    const data_parallel::AlphaBeta model = data_parallel::fit_alpha_beta(sweep.points, sweep.ranks);
    expect(model.alpha_s > 0 && model.beta_bytes_per_s > 0 && std::isfinite(model.beta_bytes_per_s),
           "a fit that is returned has alpha and beta > 0");
    const double step = data_parallel::predicted_step_ms(1.0, {4096, 1 << 20}, model, sweep.ranks, true);
    expect(std::isfinite(step) && step >= 1.0, "a prediction is finite and no shorter than the step it adds to");
  } catch (const course::Error& e) {
    check_message(e, "");
  }
  return 0;
}
