// course::expect_step_output: the one line a trainer prints when a learner's step is unwritten or wrong.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "course/error.hpp"
#include "course/step_output.hpp"
#include "course_test.hpp"

namespace {

const course::StepOutput kWhat{"12.1", "sigmoid_forward_gpu", "exercises/activations.cu", "y"};

std::string message_of(const std::vector<float>& got, const std::vector<double>& expected, double atol, double rtol,
                       const std::string& against = "expected") {
  try {
    course::expect_step_output(kWhat, got, expected, atol, rtol, against);
  } catch (const course::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("expect_step_output: values within the bound pass, NaN in both agrees", "[step_output]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(message_of({1.0f, 2.00001f, nan}, {1.0, 2.0, std::nan("")}, 1e-5, 1e-4).empty());
  CHECK(message_of({}, {}, 0, 0).empty());
}

TEST_CASE("expect_step_output: an unwritten output names the step, the function, the index and the file",
          "[step_output]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(message_of({0.5f, nan, nan}, {0.5, 0.7, 0.9}, 1e-5, 1e-4) ==
        "TODO(12.1): sigmoid_forward_gpu left y[1] unwritten (NaN): write it in exercises/activations.cu "
        "(check_12.1 tests it)");
}

TEST_CASE("expect_step_output: a wrong value names both numbers and where they come from", "[step_output]") {
  CHECK(message_of({0.5f, 0.25f}, {0.5, 0.5}, 1e-5, 1e-4, "your host function gives") ==
        "step 12.1 is not right yet: sigmoid_forward_gpu gives y[1] = 0.25, your host function gives 0.5 "
        "(exercises/activations.cu; run check_12.1 for the details)");
  // atol = rtol = 0: equal or wrong (a copy, such as a shift); the bound is atol + rtol * |expected|.
  CHECK_FALSE(message_of({1.0f}, {1.0000001}, 0, 0).empty());
  CHECK(message_of({101.0f}, {100.0}, 0.5, 0.01).empty());
  CHECK_FALSE(message_of({101.6f}, {100.0}, 0.5, 0.01).empty());
  CHECK_FALSE(message_of({std::numeric_limits<float>::infinity()}, {1.0}, 1e-5, 1e-4).empty());
  CHECK(message_of({1.0f}, {1.0, 2.0}, 0, 0) == "expect_step_output: 1 values against 2");
}

TEST_CASE("expect_step_written: finite numbers pass, NaN is unwritten, infinity is wrong", "[step_output]") {
  const course::StepOutput what{"15.1", "batch_norm_forward_train", "exercises/batch_norm.cpp", "y"};
  const auto message = [&](const std::vector<float>& got) {
    try {
      course::expect_step_written(what, got);
    } catch (const course::Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(message({-3.0e38f, 0.0f, 2.0f}).empty());
  CHECK(message({1.0f, std::numeric_limits<float>::quiet_NaN()}) ==
        "TODO(15.1): batch_norm_forward_train left y[1] unwritten (NaN): write it in exercises/batch_norm.cpp "
        "(check_15.1 tests it)");
  CHECK(message({-std::numeric_limits<float>::infinity()}) ==
        "step 15.1 is not right yet: batch_norm_forward_train gives y[0] = -inf (exercises/batch_norm.cpp; run "
        "check_15.1 for the details)");
}
