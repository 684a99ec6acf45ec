// The quick look at a learner's step output (step_output.hpp).
#include "course/step_output.hpp"

#include <limits>

#include <cmath>
#include <cstdio>

#include "course/error.hpp"

namespace course {

std::vector<float> unwritten_floats(size_t n) { return std::vector<float>(n, std::numeric_limits<float>::quiet_NaN()); }

namespace {
Error unwritten(const StepOutput& what, size_t i) {
  return Error("TODO(" + what.step + "): " + what.function + " left " + what.output + "[" + std::to_string(i) +
               "] unwritten (NaN): write it in " + what.file + " (check_" + what.step + " tests it)");
}
}  // namespace

void expect_step_output(const StepOutput& what, const std::vector<float>& got, const std::vector<double>& expected,
                        double atol, double rtol, const std::string& against) {
  if (got.size() != expected.size())
    throw Error("expect_step_output: " + std::to_string(got.size()) + " values against " +
                std::to_string(expected.size()));
  for (size_t i = 0; i < got.size(); ++i) {
    const double want = expected[i];
    if (std::isnan(want) && std::isnan(got[i])) continue;
    if (std::isnan(got[i])) throw unwritten(what, i);
    const double diff = std::fabs(double(got[i]) - want);
    if (!(diff <= atol + rtol * std::fabs(want))) {
      char values[160];
      std::snprintf(values, sizeof values, "%s[%zu] = %.7g, %s %.7g", what.output.c_str(), i, double(got[i]),
                    against.c_str(), want);
      throw Error("step " + what.step + " is not right yet: " + what.function + " gives " + values + " (" + what.file +
                  "; run check_" + what.step + " for the details)");
    }
  }
}

void expect_step_written(const StepOutput& what, const std::vector<float>& got) {
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i])) throw unwritten(what, i);
    if (std::isinf(got[i]))
      throw Error("step " + what.step + " is not right yet: " + what.function + " gives " + what.output + "[" +
                  std::to_string(i) + "] = " + (got[i] > 0 ? "inf" : "-inf") + " (" + what.file + "; run check_" + what.step + " for the details)");
  }
}

}  // namespace course
