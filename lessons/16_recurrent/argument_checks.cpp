// Lesson 16 (given): the argument checks every function of recurrent.hpp runs first.
#include <cstdint>
#include <string>

#include "course/error.hpp"
#include "recurrent.hpp"

namespace recurrent {

void check_lstm(const char* function, const LstmShape& s) {
  const std::string where = std::string(function) + ": ";
  if (s.batch < 1 || s.steps < 1 || s.inputs < 1 || s.hidden < 1)
    throw course::Error(where + "batch, steps, inputs and hidden must be >= 1, got " + std::to_string(s.batch) +
                        ", " + std::to_string(s.steps) + ", " + std::to_string(s.inputs) + ", " +
                        std::to_string(s.hidden));
  const int64_t per_step = int64_t(s.batch) * 4 * s.hidden, limit = int64_t(1) << 31;
  const int64_t largest_row = int64_t(4) * s.hidden * (s.inputs > s.hidden ? s.inputs : s.hidden);
  if (per_step * s.steps >= limit || largest_row >= limit || int64_t(s.steps) * s.batch * s.inputs >= limit)
    throw course::Error(where + "a tensor of " + std::to_string(s.steps) + " steps x " + std::to_string(s.batch) +
                        " sequences x 4 x " + std::to_string(s.hidden) + " hidden has 2^31 elements or more");
}

void check_tensors(const char* function, bool all_given) {
  if (!all_given) throw course::Error(std::string(function) + ": a tensor is null");
}

}  // namespace recurrent
