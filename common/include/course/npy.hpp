#pragma once
// .npy writer (NumPy's format, version 1.0, little-endian, C order), so results
// can be read with numpy.load. Writes to "<path>.tmp" then renames: a reader
// never sees a half-written file.
#include <cstdint>
#include <string>
#include <vector>

namespace course {

void write_npy(const std::string& path, const float* data, const std::vector<size_t>& shape);
void write_npy(const std::string& path, const int32_t* data, const std::vector<size_t>& shape);

// Reads back what write_npy wrote (float32 only); for tests and tools.
std::vector<float> read_npy_float(const std::string& path, std::vector<size_t>* shape = nullptr);

}  // namespace course
