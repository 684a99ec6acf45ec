#pragma once
// What every fuzz target checks besides the sanitizers: bad input throws course::Error with one
// line that starts with the input's name (any other exception escapes and libFuzzer reports it),
// and what a parser accepts obeys its own rules.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "course/error.hpp"

namespace course::fuzz {

// Stops the run with a message: libFuzzer saves the input as a crash file.
[[noreturn]] inline void broken(const char* rule, const std::string& detail) {
  std::fprintf(stderr, "fuzz check failed: %s: %s\n", rule, detail.c_str());
  std::abort();
}

inline void expect(bool ok, const char* rule, const std::string& detail = "") {
  if (!ok) broken(rule, detail);
}

// An error message the course prints as "error: <message>": one line, naming the input first.
inline void check_message(const course::Error& e, const std::string& name) {
  const std::string msg = e.what();
  expect(msg.find('\n') == std::string::npos, "error message is one line", msg);
  if (!name.empty()) expect(msg.rfind(name + ": ", 0) == 0, "error message starts with the input's name", msg);
}

}  // namespace course::fuzz
