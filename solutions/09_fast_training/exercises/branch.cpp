// Lesson 09, step 09.12: fork and join two streams (branch.hpp).
#include "branch.hpp"
#include "course/cuda_check.hpp"
#include "course/error.hpp"

namespace fast_training {

// An event remembers the work its stream held when it was recorded; a wait makes the other stream's
// later work start after that work. Recording again moves the mark: one event serves every fork.
void Branch::fork() {
  CUDA_CHECK(cudaEventRecord(forked_, main_));
  CUDA_CHECK(cudaStreamWaitEvent(side_, forked_, 0));
}

void Branch::join() {
  CUDA_CHECK(cudaEventRecord(joined_, side_));
  CUDA_CHECK(cudaStreamWaitEvent(main_, joined_, 0));
}

}  // namespace fast_training
