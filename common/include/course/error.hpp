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

// Text the user gave (a flag's value, a path, a layer list), as an error message shows it: control
// characters escaped (\n, \t, \x1b, \x00), so the message stays one line and cannot move the
// terminal's cursor or colours; longer than max_chars, its start and "... (N more characters)".
std::string shown(const std::string& text, size_t max_chars = 200);

// An error message as a program prints it: every control character escaped (one line, whatever
// was echoed into it) and at most max_chars long.
std::string one_line(const std::string& message, size_t max_chars = 2000);

// Marks an unfinished exercise step: throws NotImplemented("TODO(NN.k): what").
// Delete the call when you write the step.
[[noreturn]] void todo(const char* step, const char* what);

}  // namespace course
