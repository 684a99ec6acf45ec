#pragma once
// .npy writer (NumPy's format, version 1.0, little-endian, C order), so results
// can be read with numpy.load. Writes all or nothing through course::AtomicFile (a
// temporary file in the same folder, then a rename): a reader never sees a half-written file.
#include <cstdint>
#include <string>
#include <vector>

namespace course {

void write_npy(const std::string& path, const float* data, const std::vector<size_t>& shape);
void write_npy(const std::string& path, const int32_t* data, const std::vector<size_t>& shape);
void write_npy(const std::string& path, const uint8_t* data, const std::vector<size_t>& shape);  // bytes ('|u1')

// Reads a float32 .npy file (version 1.0, '<f4', C order), such as write_npy writes; for tests
// and tools. The header dictionary is parsed key by key and the file's size is checked against
// the shape before anything is allocated: every problem (not a regular file, a bad header, a
// shape that is not a tuple of sizes or overflows, too few or too many data bytes) throws
// course::Error with one line naming the file and what is wrong.
std::vector<float> read_npy_float(const std::string& path, std::vector<size_t>* shape = nullptr);
// The same for the bytes of a .npy file in memory; `name` starts each error message.
std::vector<float> parse_npy_float(const void* bytes, size_t size, const std::string& name,
                                   std::vector<size_t>* shape = nullptr);

}  // namespace course
