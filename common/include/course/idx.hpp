#pragma once
// IDX files (the format MNIST and Fashion-MNIST ship in) and the data sets built from them.
// IDX: 2 zero bytes, a type byte (0x08 = unsigned byte, the only type these sets use),
// a byte with the number of dimensions, each dimension as a big-endian uint32, then the data.
// Every problem (missing file, a folder, FIFO or device instead of a file, wrong magic, a size
// that does not match the file length, a label outside 0..9, image and label counts that
// differ) throws course::Error with one line naming the file and the problem.
#include <cstdint>
#include <string>
#include <vector>

#include "course/tensor.hpp"

namespace course {

struct IdxArray {
  std::vector<int> dims;
  std::vector<uint8_t> data;
};

// The whole array; max_rows > 0 reads only the first max_rows entries of the first dimension (the
// first images of an image file: dims[0] is then that count). The header is always checked against
// the whole file's size first.
IdxArray read_idx(const std::string& path, int max_rows = 0);
// Only the dimensions, from the header (checked against the file's size); no data is read.
std::vector<int> read_idx_dims(const std::string& path);
// The same checks for the bytes of an IDX file in memory; `name` starts each error message.
IdxArray parse_idx(const void* bytes, size_t size, const std::string& name);
void write_idx(const std::string& path, const std::vector<int>& dims, const std::vector<uint8_t>& data);

enum class Split { train, test };

struct Dataset {
  HostTensor images;        // N x C x H x W, pixel / 255 in [0, 1]: N x 1 x 28 x 28 from IDX files,
                            // N x 3 x 32 x 32 from CIFAR-10 (course/cifar.hpp)
  std::vector<int> labels;  // N values in 0..9
  int count() const { return static_cast<int>(labels.size()); }
};

// The four standard file names inside a data set folder.
std::string idx_images_path(const std::string& dir, Split split);
std::string idx_labels_path(const std::string& dir, Split split);
// True when all four files exist in dir (it does not validate them).
bool dataset_present(const std::string& dir);
// Loads one split; limit > 0 keeps only the first `limit` examples, and reads only their images
// (every label is read and checked). Images that would not fit in the host memory available
// (course/host_memory.hpp) are refused before they are allocated.
Dataset load_dataset(const std::string& dir, Split split, int limit = 0);
// What load_dataset does with the two arrays it read: checks that they are images (count, rows,
// cols) and labels (count) in 0..9 of the same count; the names start each error message.
Dataset dataset_from_idx(const IdxArray& images, const std::string& image_name, const IdxArray& labels,
                         const std::string& label_name, int limit = 0);

// The built-in data folder (CMake's COURSE_DATA_DIR), e.g. default_data_dir("mnist").
std::string default_data_dir(const std::string& dataset);

}  // namespace course
