// Fuzzes the .npy reader: parse_npy_float, the parsing behind read_npy_float.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "course/npy.hpp"
#include "fuzz_check.hpp"

using course::fuzz::check_message;
using course::fuzz::expect;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<size_t> shape;
  std::vector<float> values;
  try {
    values = course::parse_npy_float(data, size, "input", &shape);
  } catch (const course::Error& e) {
    check_message(e, "input");
    return 0;
  }
  // An accepted shape's product fits 64 bits (a wrapped product would hide a huge shape).
  size_t count = 1;
  for (size_t d : shape)
    expect(!__builtin_mul_overflow(count, d, &count), "an accepted shape's product does not overflow");
  expect(count == values.size(), "an accepted .npy file has as many values as its shape says");
  expect(size >= 10 && size - values.size() * sizeof(float) >= 10, "the data follows a header");
  return 0;
}
