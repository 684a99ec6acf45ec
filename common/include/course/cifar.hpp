#pragma once
// CIFAR-10 in its binary version (cifar-10-binary.tar.gz, unpacked by data/fetch_cifar10.sh):
// five training batches data_batch_1.bin .. data_batch_5.bin and one test batch test_batch.bin,
// 10000 records each. A record is 3073 bytes: 1 label byte (0..9), then the 32x32 colour image
// as three planes, red, green and blue (1024 bytes each, row by row). There is no header, so a
// batch file is nothing but records, and several files put one after another are still a valid
// list of records.
// The images come out as course::Dataset (idx.hpp) with N x 3 x 32 x 32 pixels / 255 in [0, 1]:
// the record's planes are already in the tensor's channel-first order.
// Every problem (missing file, a folder or FIFO instead of a file, an empty file, a size that is
// not a whole number of records, a label outside 0..9, a negative limit) throws course::Error
// with one line naming the file and the problem.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "course/idx.hpp"

namespace course {

constexpr int kCifarChannels = 3;
constexpr int kCifarSide = 32;  // height and width
constexpr size_t kCifarImageBytes = size_t(kCifarChannels) * kCifarSide * kCifarSide;  // 3072
constexpr size_t kCifarRecordBytes = 1 + kCifarImageBytes;                             // 3073
constexpr int kCifarRecordsPerBatch = 10000;  // in every file of the real data set

// The bytes of one or several batch files, one after another; `name` starts each error message.
// limit > 0 keeps only the first `limit` records; every label is checked either way.
Dataset parse_cifar10(const uint8_t* data, size_t size, const std::string& name, int limit = 0);

// The split's batch files inside dir, in the order they are loaded:
// train: data_batch_1.bin .. data_batch_5.bin; test: test_batch.bin.
std::vector<std::string> cifar10_batch_paths(const std::string& dir, Split split);
// True when all six batch files exist in dir (it does not validate them).
bool cifar10_present(const std::string& dir);
// Loads one split. Every file of the split must be there with a whole number of records; they
// are read in order, and limit > 0 stops reading once the first `limit` records are in.
Dataset load_cifar10(const std::string& dir, Split split, int limit = 0);

}  // namespace course
