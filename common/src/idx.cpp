#include "course/idx.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "course/error.hpp"

#ifndef COURSE_DATA_DIR
#define COURSE_DATA_DIR "data"
#endif

namespace course {

namespace {
const char* kFetchHint =
    "run data/fetch_mnist.sh (MNIST) or data/fetch_fashion_mnist.sh (Fashion-MNIST), or pass --data DIR";

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  throw Error(path + ": " + problem);
}

uint32_t big_endian(const unsigned char* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

const char* split_prefix(Split split) { return split == Split::train ? "train" : "t10k"; }
}  // namespace

IdxArray read_idx(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) fail(path, std::string("file not found; ") + kFetchHint);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot be opened for reading");
  const auto file_size = static_cast<uint64_t>(std::filesystem::file_size(path, ec));

  unsigned char head[4];
  if (!in.read(reinterpret_cast<char*>(head), 4)) fail(path, "truncated: shorter than the 4-byte IDX header");
  if (head[0] == 0x1f && head[1] == 0x8b) fail(path, "is gzip-compressed; unpack it first (gunzip)");
  if (head[0] != 0 || head[1] != 0)
    fail(path, "not an IDX file (magic number must start with two zero bytes)");
  if (head[2] != 0x08) {
    char type[8];
    std::snprintf(type, sizeof type, "0x%02x", static_cast<unsigned>(head[2]));
    fail(path, std::string("unsupported IDX element type ") + type + " (only 0x08, unsigned byte)");
  }
  const int rank = head[3];
  if (rank < 1 || rank > 4) fail(path, "bad IDX rank " + std::to_string(rank) + " (expected 1 to 4)");

  IdxArray arr;
  uint64_t count = 1;
  for (int i = 0; i < rank; ++i) {
    unsigned char b[4];
    if (!in.read(reinterpret_cast<char*>(b), 4)) fail(path, "truncated inside the dimension list");
    const uint32_t d = big_endian(b);
    if (d == 0) fail(path, "dimension " + std::to_string(i) + " is 0 (an empty or damaged file)");
    if (d > (1u << 28)) fail(path, "implausible dimension " + std::to_string(i) + " of " + std::to_string(d));
    arr.dims.push_back(static_cast<int>(d));
    count *= d;
    // Stop before the product can overflow: it can never exceed the file size.
    if (count > file_size)
      fail(path, "truncated: " + std::to_string(file_size) + " bytes, the header promises more than " +
                     std::to_string(count));
  }
  const uint64_t expected = 4 + 4 * static_cast<uint64_t>(rank) + count;
  if (file_size != expected)
    fail(path, (file_size < expected ? "truncated: " : "too long: ") + std::to_string(file_size) +
                   " bytes, the header promises " + std::to_string(expected));
  arr.data.resize(count);
  if (!in.read(reinterpret_cast<char*>(arr.data.data()), static_cast<std::streamsize>(count)))
    fail(path, "read error");
  return arr;
}

void write_idx(const std::string& path, const std::vector<int>& dims, const std::vector<uint8_t>& data) {
  // Refuse what read_idx would refuse, so a written file always reads back.
  if (dims.empty() || dims.size() > 4)
    throw Error(path + ": cannot write an IDX array of rank " + std::to_string(dims.size()) + " (1 to 4)");
  size_t count = 1;
  for (int d : dims) {
    if (d < 1) throw Error(path + ": cannot write an IDX array with dimension " + std::to_string(d));
    count *= static_cast<size_t>(d);
  }
  if (count != data.size())
    throw Error(path + ": the dimensions give " + std::to_string(count) + " elements, the data has " +
                std::to_string(data.size()));
  std::ofstream out(path, std::ios::binary);
  if (!out) throw Error(path + ": cannot be opened for writing");
  const unsigned char head[4] = {0, 0, 0x08, static_cast<unsigned char>(dims.size())};
  out.write(reinterpret_cast<const char*>(head), 4);
  for (int d : dims) {
    const unsigned char b[4] = {static_cast<unsigned char>(d >> 24), static_cast<unsigned char>(d >> 16),
                                static_cast<unsigned char>(d >> 8), static_cast<unsigned char>(d)};
    out.write(reinterpret_cast<const char*>(b), 4);
  }
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  if (!out) throw Error(path + ": write failed");
}

std::string idx_images_path(const std::string& dir, Split split) {
  return dir + "/" + split_prefix(split) + "-images-idx3-ubyte";
}
std::string idx_labels_path(const std::string& dir, Split split) {
  return dir + "/" + split_prefix(split) + "-labels-idx1-ubyte";
}

bool dataset_present(const std::string& dir) {
  std::error_code ec;
  for (Split s : {Split::train, Split::test})
    if (!std::filesystem::exists(idx_images_path(dir, s), ec) ||
        !std::filesystem::exists(idx_labels_path(dir, s), ec))
      return false;
  return true;
}

Dataset load_dataset(const std::string& dir, Split split, int limit) {
  const std::string image_path = idx_images_path(dir, split);
  const std::string label_path = idx_labels_path(dir, split);
  IdxArray images = read_idx(image_path);
  IdxArray labels = read_idx(label_path);
  if (images.dims.size() != 3) fail(image_path, "expected 3 dimensions (count, rows, cols)");
  if (labels.dims.size() != 1) fail(label_path, "expected 1 dimension (count)");
  if (images.dims[0] != labels.dims[0])
    fail(label_path, std::to_string(labels.dims[0]) + " labels for " + std::to_string(images.dims[0]) +
                         " images in " + image_path);
  int n = images.dims[0];
  if (limit > 0 && limit < n) n = limit;
  const int h = images.dims[1], w = images.dims[2];

  Dataset ds;
  ds.images = HostTensor({n, 1, h, w});
  const size_t pixels = static_cast<size_t>(n) * h * w;
  for (size_t i = 0; i < pixels; ++i) ds.images[i] = images.data[i] / 255.0f;
  ds.labels.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const int label = labels.data[static_cast<size_t>(i)];
    if (label > 9)
      fail(label_path, "label " + std::to_string(label) + " at index " + std::to_string(i) + " is outside 0..9");
    ds.labels[static_cast<size_t>(i)] = label;
  }
  return ds;
}

std::string default_data_dir(const std::string& dataset) { return std::string(COURSE_DATA_DIR) + "/" + dataset; }

}  // namespace course
