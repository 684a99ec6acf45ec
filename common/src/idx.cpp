#include "course/idx.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "course/atomic_file.hpp"
#include "course/error.hpp"
#include "course/host_memory.hpp"
#include "course/input_file.hpp"

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

// The longest IDX header: 4 bytes of magic and rank, then 4 bytes per dimension, at most 4.
constexpr size_t kMaxHeaderBytes = 4 + 4 * 4;

struct IdxLayout {
  std::vector<int> dims;
  uint64_t data_offset = 0;  // the header's length
  uint64_t count = 0;        // the data's length: the product of the dimensions
};

// Checks an IDX file from its first bytes (its whole header, or all of it when it is shorter)
// and its total size, before anything is allocated for the data. Shared by read_idx and
// parse_idx, so a file on disk and the same bytes in memory give the same answer.
IdxLayout idx_layout(const std::string& name, const unsigned char* head, size_t head_size, uint64_t total_size) {
  if (head_size < 4) fail(name, "truncated: shorter than the 4-byte IDX header");
  if (head[0] == 0x1f && head[1] == 0x8b) fail(name, "is gzip-compressed; unpack it first (gunzip)");
  if (head[0] != 0 || head[1] != 0)
    fail(name, "not an IDX file (magic number must start with two zero bytes)");
  if (head[2] != 0x08) {
    char type[8];
    std::snprintf(type, sizeof type, "0x%02x", static_cast<unsigned>(head[2]));
    fail(name, std::string("unsupported IDX element type ") + type + " (only 0x08, unsigned byte)");
  }
  const int rank = head[3];
  if (rank < 1 || rank > 4) fail(name, "bad IDX rank " + std::to_string(rank) + " (expected 1 to 4)");
  if (head_size < 4 + 4 * static_cast<size_t>(rank)) fail(name, "truncated inside the dimension list");

  IdxLayout layout;
  layout.data_offset = 4 + 4 * static_cast<uint64_t>(rank);
  uint64_t count = 1;
  for (int i = 0; i < rank; ++i) {
    const uint32_t d = big_endian(head + 4 + 4 * i);
    if (d == 0) fail(name, "dimension " + std::to_string(i) + " is 0 (an empty or damaged file)");
    if (d > (1u << 28)) fail(name, "implausible dimension " + std::to_string(i) + " of " + std::to_string(d));
    layout.dims.push_back(static_cast<int>(d));
    count *= d;
    // Stop before the product can overflow: it can never exceed the file size.
    if (count > total_size)
      fail(name, "truncated: " + std::to_string(total_size) + " bytes, the header promises more than " +
                     std::to_string(count));
  }
  const uint64_t expected = layout.data_offset + count;
  if (total_size != expected)
    fail(name, (total_size < expected ? "truncated: " : "too long: ") + std::to_string(total_size) +
                   " bytes, the header promises " + std::to_string(expected));
  layout.count = count;
  return layout;
}

// The number of elements that dims describe; refuses a dimension below 1 and an overflow.
uint64_t element_count(const std::string& name, const std::vector<int>& dims) {
  uint64_t count = 1;
  for (int d : dims) {
    if (d < 1) fail(name, "dimension " + std::to_string(d) + " is below 1");
    if (count > UINT64_MAX / static_cast<uint64_t>(d)) fail(name, "the dimensions' product overflows");
    count *= static_cast<uint64_t>(d);
  }
  return count;
}
}  // namespace

IdxArray parse_idx(const void* bytes, size_t size, const std::string& name) {
  const auto* b = static_cast<const unsigned char*>(bytes);
  IdxLayout layout = idx_layout(name, b, std::min(size, kMaxHeaderBytes), size);
  IdxArray arr;
  arr.dims = std::move(layout.dims);
  if (layout.count > 0) arr.data.assign(b + layout.data_offset, b + layout.data_offset + layout.count);
  return arr;
}

namespace {
// Opens an IDX file and checks its header against its size; `in` is left at the data.
IdxLayout open_idx(const std::string& path, std::ifstream& in) {
  const uint64_t file_size = regular_file_size(path, "an IDX file", std::string("file not found; ") + kFetchHint);
  in.open(path, std::ios::binary);
  if (!in) fail(path, std::string("cannot be opened for reading: ") + std::strerror(errno));
  unsigned char head[kMaxHeaderBytes];
  const size_t head_size = static_cast<size_t>(std::min<uint64_t>(file_size, kMaxHeaderBytes));
  if (!in.read(reinterpret_cast<char*>(head), static_cast<std::streamsize>(head_size)))
    fail(path, "read error (did the file change while it was read?)");
  IdxLayout layout = idx_layout(path, head, head_size, file_size);
  in.seekg(static_cast<std::streamoff>(layout.data_offset));
  return layout;
}
}  // namespace

std::vector<int> read_idx_dims(const std::string& path) {
  std::ifstream in;
  return open_idx(path, in).dims;
}

IdxArray read_idx(const std::string& path, int max_rows) {
  std::ifstream in;
  IdxLayout layout = open_idx(path, in);
  IdxArray arr;
  arr.dims = std::move(layout.dims);
  // Only the rows asked for are read (the whole file was checked against its header above).
  uint64_t bytes = layout.count;
  if (max_rows > 0 && max_rows < arr.dims[0]) {
    bytes = layout.count / static_cast<uint64_t>(arr.dims[0]) * static_cast<uint64_t>(max_rows);
    arr.dims[0] = max_rows;
  }
  arr.data.resize(static_cast<size_t>(bytes));
  if (!in.read(reinterpret_cast<char*>(arr.data.data()), static_cast<std::streamsize>(bytes)))
    fail(path, "read error (did the file change while it was read?)");
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
  std::vector<uint8_t> bytes = {0, 0, 0x08, static_cast<uint8_t>(dims.size())};
  for (int d : dims)
    for (int shift : {24, 16, 8, 0}) bytes.push_back(static_cast<uint8_t>(d >> shift));  // big-endian
  bytes.insert(bytes.end(), data.begin(), data.end());
  write_file_atomically(path, bytes.data(), bytes.size());  // checked, all or nothing
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

namespace {
// The checks of an image file's dimensions and its labels, before any image is read: 3 dimensions,
// 1 dimension, as many labels as images, every label in 0..9 (also those a limit leaves out: a
// damaged file is refused whatever the limit).
void check_labels_for(const std::vector<int>& image_dims, const std::string& image_name, const IdxArray& labels,
                      const std::string& label_name) {
  if (image_dims.size() != 3) fail(image_name, "expected 3 dimensions (count, rows, cols)");
  if (labels.dims.size() != 1) fail(label_name, "expected 1 dimension (count)");
  const uint64_t count = element_count(label_name, labels.dims);
  if (count != labels.data.size())
    fail(label_name, "holds " + std::to_string(labels.data.size()) + " bytes, its dimensions give " + std::to_string(count));
  if (image_dims[0] != labels.dims[0])
    fail(label_name, std::to_string(labels.dims[0]) + " labels for " + std::to_string(image_dims[0]) +
                         " images in " + image_name);
  for (size_t i = 0; i < labels.data.size(); ++i)
    if (labels.data[i] > 9)
      fail(label_name, "label " + std::to_string(labels.data[i]) + " at index " + std::to_string(i) + " is outside 0..9");
}

// Refuses n images of h x w before they are allocated when the host cannot hold them: `per_pixel`
// bytes each (a float, and the byte read from the file while it is converted).
void check_room(const std::string& image_name, int n, int h, int w, uint64_t per_pixel) {
  require_room_for_images(image_name, uint64_t(n), std::to_string(h) + "x" + std::to_string(w),
                          uint64_t(n) * uint64_t(h) * uint64_t(w) * per_pixel);
}

// The first n images as floats and their labels (their room checked by the caller).
Dataset dataset_of(const IdxArray& images, const IdxArray& labels, int n) {
  const int h = images.dims[1], w = images.dims[2];
  const size_t pixels = static_cast<size_t>(n) * h * w;
  Dataset ds;
  ds.images = HostTensor({n, 1, h, w});
  for (size_t i = 0; i < pixels; ++i) ds.images[i] = images.data[i] / 255.0f;
  ds.labels.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) ds.labels[static_cast<size_t>(i)] = labels.data[static_cast<size_t>(i)];
  return ds;
}
}  // namespace

Dataset dataset_from_idx(const IdxArray& images, const std::string& image_name, const IdxArray& labels,
                         const std::string& label_name, int limit) {
  check_labels_for(images.dims, image_name, labels, label_name);
  // Arrays built by hand may disagree with their dims; never read past their data.
  const uint64_t count = element_count(image_name, images.dims);
  if (count != images.data.size())
    fail(image_name, "holds " + std::to_string(images.data.size()) + " bytes, its dimensions give " + std::to_string(count));
  int n = images.dims[0];
  if (limit > 0 && limit < n) n = limit;
  check_room(image_name, n, images.dims[1], images.dims[2], sizeof(float));
  return dataset_of(images, labels, n);
}

Dataset load_dataset(const std::string& dir, Split split, int limit) {
  const std::string image_path = idx_images_path(dir, split);
  const std::string label_path = idx_labels_path(dir, split);
  // The image file's header (checked against its size) and every label first; then only the
  // images the limit keeps are read: --train-limit 64 reads 64 images of a file of any size.
  const std::vector<int> image_dims = read_idx_dims(image_path);
  const IdxArray labels = read_idx(label_path);
  check_labels_for(image_dims, image_path, labels, label_path);
  const int n = limit > 0 && limit < image_dims[0] ? limit : image_dims[0];
  check_room(image_path, n, image_dims[1], image_dims[2], 1 + sizeof(float));
  const IdxArray images = read_idx(image_path, n);
  if (images.dims != std::vector<int>{n, image_dims[1], image_dims[2]})
    fail(image_path, "changed while it was read");
  return dataset_of(images, labels, n);
}

std::string default_data_dir(const std::string& dataset) { return std::string(COURSE_DATA_DIR) + "/" + dataset; }

}  // namespace course
