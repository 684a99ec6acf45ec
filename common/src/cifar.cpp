#include "course/cifar.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "course/error.hpp"
#include "course/host_memory.hpp"
#include "course/input_file.hpp"

namespace course {

namespace {
const char* kMissingHint = "file not found; run data/fetch_cifar10.sh, or pass --data DIR";

[[noreturn]] void fail(const std::string& name, const std::string& problem) { throw Error(name + ": " + problem); }

void check_limit(const std::string& name, int limit) {
  if (limit < 0) fail(name, "limit " + std::to_string(limit) + " is negative (0 keeps every record)");
}

// The number of records in `size` bytes. The format has no header to check, so the size is the
// one thing that tells a batch file from something else: the Python version of the data set
// (pickled arrays) and a cut download are both caught here.
size_t whole_records(const std::string& name, uint64_t size) {
  if (size == 0) fail(name, "empty file (0 bytes); a CIFAR-10 batch is a list of 3073-byte records");
  const uint64_t records = size / kCifarRecordBytes, left_over = size % kCifarRecordBytes;
  if (left_over != 0)
    fail(name, std::to_string(size) + " bytes is not a whole number of 3073-byte CIFAR-10 records (" +
                   std::to_string(left_over) + " bytes left over after " + std::to_string(records) +
                   " records): the Python version of the data set, or a cut download? "
                   "data/fetch_cifar10.sh gets the binary version");
  // A Dataset counts its examples in an int.
  if (records > static_cast<uint64_t>(INT_MAX))
    fail(name, std::to_string(records) + " records, more than a data set can hold (" + std::to_string(INT_MAX) + ")");
  return static_cast<size_t>(records);
}

// Every record's label, also those a limit leaves out: a damaged file is refused whatever the limit.
// `first`: the number in its file of the first record given.
void check_labels(const std::string& name, const uint8_t* data, size_t records, size_t first = 0) {
  for (size_t r = 0; r < records; ++r) {
    const int label = data[r * kCifarRecordBytes];
    if (label > 9)
      fail(name, "label " + std::to_string(label) + " in record " + std::to_string(first + r) +
                     " (counting from 0) is outside 0..9");
  }
}

// Copies `count` records into ds from example `first` on. A record's three planes are laid out
// like one image of an N x 3 x 32 x 32 tensor, so its pixels go over in their order.
void copy_records(const uint8_t* data, size_t count, Dataset& ds, size_t first) {
  float* out = ds.images.data() + first * kCifarImageBytes;
  for (size_t r = 0; r < count; ++r) {
    const uint8_t* record = data + r * kCifarRecordBytes;
    ds.labels[first + r] = record[0];
    for (size_t i = 0; i < kCifarImageBytes; ++i) *out++ = record[1 + i] / 255.0f;
  }
}

Dataset empty_dataset(size_t count) {
  Dataset ds;
  ds.images = HostTensor({static_cast<int>(count), kCifarChannels, kCifarSide, kCifarSide});
  ds.labels.resize(count);
  return ds;
}
}  // namespace

Dataset parse_cifar10(const uint8_t* data, size_t size, const std::string& name, int limit) {
  check_limit(name, limit);
  const size_t records = whole_records(name, size);
  check_labels(name, data, records);
  const size_t kept = limit > 0 ? std::min(records, static_cast<size_t>(limit)) : records;
  Dataset ds = empty_dataset(kept);
  copy_records(data, kept, ds, 0);
  return ds;
}

std::vector<std::string> cifar10_batch_paths(const std::string& dir, Split split) {
  if (split == Split::test) return {dir + "/test_batch.bin"};
  std::vector<std::string> paths;
  for (int i = 1; i <= 5; ++i) paths.push_back(dir + "/data_batch_" + std::to_string(i) + ".bin");
  return paths;
}

bool cifar10_present(const std::string& dir) {
  std::error_code ec;
  for (Split s : {Split::train, Split::test})
    for (const std::string& path : cifar10_batch_paths(dir, s))
      if (!std::filesystem::exists(path, ec)) return false;
  return true;
}

Dataset load_cifar10(const std::string& dir, Split split, int limit) {
  check_limit(dir, limit);
  const std::vector<std::string> paths = cifar10_batch_paths(dir, split);
  // Every file's size first: a missing or cut batch is reported before anything is read, and
  // the whole split's examples are allocated once.
  std::vector<size_t> records;
  uint64_t total = 0;
  for (const std::string& path : paths) {
    records.push_back(whole_records(path, regular_file_size(path, "a CIFAR-10 batch file", kMissingHint)));
    total += records.back();
  }
  if (total > static_cast<uint64_t>(INT_MAX))
    fail(dir, std::to_string(total) + " records, more than a data set can hold (" + std::to_string(INT_MAX) + ")");
  const size_t kept = limit > 0 ? std::min<size_t>(total, static_cast<size_t>(limit)) : static_cast<size_t>(total);

  require_room_for_images(dir, kept, "3x32x32", uint64_t(kept) * kCifarImageBytes * sizeof(float));
  Dataset ds = empty_dataset(kept);
  // Every file is read, also those past a limit: each label is checked whatever the limit. A piece
  // of records at a time, so a file of any size takes no more memory than that.
  constexpr size_t kPiece = 4096;
  std::vector<uint8_t> bytes;
  size_t done = 0;
  for (size_t f = 0; f < paths.size(); ++f) {
    std::ifstream in(paths[f], std::ios::binary);
    if (!in) fail(paths[f], std::string("cannot be opened for reading: ") + std::strerror(errno));
    for (size_t first = 0; first < records[f]; first += kPiece) {
      const size_t count = std::min(kPiece, records[f] - first);
      bytes.resize(count * kCifarRecordBytes);
      if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size())))
        fail(paths[f], "read error (did the file change while it was read?)");
      check_labels(paths[f], bytes.data(), count, first);
      const size_t take = std::min(count, kept - done);  // 0 past the limit
      copy_records(bytes.data(), take, ds, done);
      done += take;
    }
  }
  return ds;
}

}  // namespace course
