#pragma once
// Checks that need no tolerance, for any lesson's tests: the message a refused call throws, and
// the first element whose bits differ (for results the contract fixes to the bit).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "course/error.hpp"

namespace course::test {

// The message of the course::Error that f() throws, or "" when it throws none.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const course::Error& e) {
    return e.what();
  }
  return "";
}

// Index of the first element whose bits differ, or -1 (a tolerance of 0 would let -0 pass for 0,
// and NaN fail against itself). A size mismatch counts as a difference at the shorter size.
template <typename T>
long long first_bit_difference(const std::vector<T>& a, const std::vector<T>& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) return static_cast<long long>(i);
  return a.size() == b.size() ? -1 : static_cast<long long>(std::min(a.size(), b.size()));
}

}  // namespace course::test
