#pragma once
// A trainer's quick look at one output of a learner's step before it trains (lesson 12's
// train_beyond, lesson 14's train_speedrun): an unwritten or wrong step stops the run with one line
// naming the step, the function and the file, instead of training a network that silently learns
// nothing (a kernel not written yet leaves its output unwritten: no error, just garbage).
#include <string>
#include <vector>

namespace course {

struct StepOutput {
  std::string step;      // "12.1"
  std::string function;  // "sigmoid_forward_gpu"
  std::string file;      // where it is written: "exercises/activations.cu"
  std::string output;    // which of its outputs: "y"
};

// Throws course::Error at the first i where got[i] and expected[i] disagree:
//   a NaN where a number is expected (poisoned outputs: an unwritten kernel leaves them so):
//     "TODO(12.1): sigmoid_forward_gpu left y[0] unwritten (NaN): write it in exercises/activations.cu
//      (check_12.1 tests it)"
//   a value off by more than atol + rtol * |expected| (atol = rtol = 0: must be equal):
//     "step 12.1 is not right yet: sigmoid_forward_gpu gives y[3] = 0.25, expected 0.5
//      (exercises/activations.cu; run check_12.1 for the details)"
// `against` names where expected comes from ("expected", "your host function gives"). NaN in both
// agrees. got and expected must have the same size.
// n NaNs: what an output starts as before a step runs, so that one the step does not write shows up.
std::vector<float> unwritten_floats(size_t n);

void expect_step_output(const StepOutput& what, const std::vector<float>& got, const std::vector<double>& expected,
                        double atol, double rtol, const std::string& against = "expected");

// Only that every value was written, a finite number (a host step checked before its kernel is
// compared with it).
void expect_step_written(const StepOutput& what, const std::vector<float>& got);

}  // namespace course
