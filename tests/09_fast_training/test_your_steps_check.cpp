// Lesson 09: train_fast's quick look at 09.10, 09.11 and 09.13 before it trains (your_steps_check.hpp)
// passes on the course's kernels. (On unwritten ones it stops the learner's train_fast: the learner
// build's trainer is the check of that.)
#include "course_test.hpp"
#include "your_steps_check.hpp"

TEST_CASE("train_fast's quick look passes on written kernels", "[09-your_steps]") {
  CHECK_NOTHROW(fast_training::check_tiled_steps());
  CHECK_NOTHROW(fast_training::check_thin_step());
}
