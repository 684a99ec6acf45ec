// Fuzzes the IDX reader: parse_idx (the parsing behind read_idx) on the whole input, and
// dataset_from_idx (the checks behind load_dataset) on an image and a label file cut from it.
#include <cstddef>
#include <cstdint>

#include "course/idx.hpp"
#include "fuzz_check.hpp"

using course::fuzz::check_message;
using course::fuzz::expect;

namespace {
// Parses bytes as one IDX file; false when they are refused (with a good message).
bool parse(const uint8_t* data, size_t size, const char* name, course::IdxArray& out) {
  try {
    out = course::parse_idx(data, size, name);
  } catch (const course::Error& e) {
    check_message(e, name);
    return false;
  }
  uint64_t count = 1;
  for (int d : out.dims) {
    expect(d >= 1, "accepted IDX dimensions are at least 1");
    expect(!__builtin_mul_overflow(count, static_cast<uint64_t>(d), &count), "accepted IDX dimensions do not overflow");
  }
  expect(out.dims.size() >= 1 && out.dims.size() <= 4, "accepted IDX rank is 1 to 4");
  expect(count == out.data.size() && 4 + 4 * out.dims.size() + count == size,
         "accepted IDX data is exactly what the dimensions promise");
  return true;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  course::IdxArray whole;
  parse(data, size, "input", whole);

  // A data set: byte 0 is the limit (0: none), bytes 1-2 where the image file ends.
  if (size < 3) return 0;
  const int limit = data[0];
  const size_t rest = size - 3;
  const size_t split = (data[1] | (static_cast<size_t>(data[2]) << 8)) % (rest + 1);
  course::IdxArray images, labels;
  if (!parse(data + 3, split, "images", images) || !parse(data + 3 + split, rest - split, "labels", labels))
    return 0;
  try {
    const course::Dataset ds = course::dataset_from_idx(images, "images", labels, "labels", limit);
    expect(ds.images.size() == static_cast<size_t>(ds.count()) * images.dims[1] * images.dims[2],
           "a data set has count x rows x cols pixels");
    for (size_t i = 0; i < ds.images.size(); ++i)
      expect(ds.images[i] >= 0.0f && ds.images[i] <= 1.0f, "pixels are in [0, 1]");
    for (int label : ds.labels) expect(label >= 0 && label <= 9, "labels are in 0..9");
  } catch (const course::Error& e) {
    check_message(e, "");  // names either file
  }
  return 0;
}
