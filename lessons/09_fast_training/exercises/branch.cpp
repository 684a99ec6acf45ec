// Lesson 09, step 09.12: fork and join two streams. YOUR FILE (branch.hpp says what each must do).
#include "branch.hpp"
#include "course/cuda_check.hpp"
#include "course/error.hpp"

namespace fast_training {

void Branch::fork() {
  // TODO(09.12): mark the point main_ has reached with an event, and make side_ wait for that mark.
  course::todo("09.12", "Branch::fork");
}

void Branch::join() {
  // TODO(09.12): the other way round: main_ waits for the point side_ has reached.
  course::todo("09.12", "Branch::join");
}

}  // namespace fast_training
