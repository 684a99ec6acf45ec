#pragma once
// Errors the course throws. Every lesson program catches them in course::run_main
// (main.hpp) and prints one line, "error: ...", then exits non-zero.
#include <stdexcept>
#include <string>

namespace course {

// Bad input, a missing file, a failed CUDA call: anything the user can act on.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown by an exercise stub that the learner has not written yet.
class NotImplemented : public Error {
 public:
  using Error::Error;
};

// Marks an unfinished exercise step: throws NotImplemented("TODO(NN.k): what").
// Delete the call when you write the step.
[[noreturn]] void todo(const char* step, const char* what);

}  // namespace course
