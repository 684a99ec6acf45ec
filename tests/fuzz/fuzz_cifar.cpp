// Fuzzes the CIFAR-10 batch reader: parse_cifar10 (the parsing behind load_cifar10) on the whole
// input without a limit, then on the input after its first byte with that byte as a signed limit
// (so negative limits are tried too).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "course/cifar.hpp"
#include "fuzz_check.hpp"

using course::fuzz::check_message;
using course::fuzz::expect;

namespace {
void parse(const uint8_t* data, size_t size, int limit) {
  course::Dataset ds;
  try {
    ds = course::parse_cifar10(data, size, "input", limit);
  } catch (const course::Error& e) {
    check_message(e, "input");
    return;
  }
  expect(limit >= 0, "a negative limit is refused", std::to_string(limit));
  expect(size > 0 && size % course::kCifarRecordBytes == 0, "accepted input is a whole number of records",
         std::to_string(size));
  const size_t records = size / course::kCifarRecordBytes;
  const size_t kept = limit > 0 ? std::min(records, static_cast<size_t>(limit)) : records;
  expect(static_cast<size_t>(ds.count()) == kept, "the count is the number of records, or the limit");
  expect(ds.images.dims() == std::vector<int>{ds.count(), 3, 32, 32}, "images are N x 3 x 32 x 32");
  for (size_t i = 0; i < ds.images.size(); ++i)
    expect(ds.images[i] >= 0.0f && ds.images[i] <= 1.0f, "pixels are in [0, 1]");
  for (size_t r = 0; r < kept; ++r) {
    const uint8_t* record = data + r * course::kCifarRecordBytes;
    expect(ds.labels[r] >= 0 && ds.labels[r] <= 9, "labels are in 0..9");
    expect(ds.labels[r] == record[0], "a label is its record's first byte");
    // The first red and the last blue pixel: the record's planes keep their order.
    expect(ds.images.at(static_cast<int>(r), 0, 0, 0) == record[1] / 255.0f, "red comes first");
    expect(ds.images.at(static_cast<int>(r), 2, 31, 31) == record[course::kCifarImageBytes] / 255.0f,
           "blue comes last");
  }
  // Every record's label was checked, not only those a limit keeps.
  for (size_t r = 0; r < records; ++r)
    expect(data[r * course::kCifarRecordBytes] <= 9, "an accepted input has no label above 9");
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  parse(data, size, 0);
  if (size >= 1) parse(data + 1, size - 1, static_cast<int8_t>(data[0]));
  return 0;
}
