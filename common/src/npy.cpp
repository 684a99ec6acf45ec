#include "course/npy.hpp"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "course/error.hpp"

namespace course {

namespace {
template <typename T>
void write_npy_impl(const std::string& path, const T* data, const std::vector<size_t>& shape,
                    const char* descr) {
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (";
  size_t count = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    header += std::to_string(shape[i]) + (shape.size() == 1 ? "," : (i + 1 < shape.size() ? ", " : ""));
    count *= shape[i];
  }
  header += "), }";
  // Magic (6) + version (2) + length (2) + header + '\n' is padded to a multiple of 64.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';

  std::error_code ec;
  const auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  const std::string tmp = path + ".tmp";
  bool written = false;
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) throw Error(tmp + ": cannot be opened for writing");
    out.write("\x93NUMPY\x01\x00", 8);
    const unsigned char len[2] = {static_cast<unsigned char>(header.size() & 0xff),
                                  static_cast<unsigned char>(header.size() >> 8)};
    out.write(reinterpret_cast<const char*>(len), 2);
    out << header;
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(count * sizeof(T)));
    out.close();  // flushes: a full disk shows here
    written = static_cast<bool>(out);
  }
  if (!written) {
    std::filesystem::remove(tmp, ec);  // never leave a half-written file behind
    throw Error(tmp + ": write failed");
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    const std::string why = ec.message();
    std::filesystem::remove(tmp, ec);
    throw Error(path + ": rename from " + tmp + " failed: " + why);
  }
}
}  // namespace

void write_npy(const std::string& path, const float* data, const std::vector<size_t>& shape) {
  write_npy_impl(path, data, shape, "<f4");
}
void write_npy(const std::string& path, const int32_t* data, const std::vector<size_t>& shape) {
  write_npy_impl(path, data, shape, "<i4");
}

std::vector<float> read_npy_float(const std::string& path, std::vector<size_t>* shape) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot be opened");
  char magic[10];
  if (!in.read(magic, 10) || std::memcmp(magic, "\x93NUMPY\x01\x00", 8) != 0)
    throw Error(path + ": not a version 1.0 .npy file");
  const size_t len = static_cast<unsigned char>(magic[8]) | (static_cast<unsigned char>(magic[9]) << 8);
  std::string header(len, ' ');
  if (!in.read(header.data(), static_cast<std::streamsize>(len))) throw Error(path + ": truncated header");
  if (header.find("'<f4'") == std::string::npos) throw Error(path + ": not float32");
  if (header.find("'fortran_order': False") == std::string::npos)
    throw Error(path + ": Fortran order is not supported");
  const size_t open = header.find('('), close = header.find(')');
  if (open == std::string::npos || close == std::string::npos || close < open)
    throw Error(path + ": no shape in the header");
  std::vector<size_t> dims;
  size_t count = 1;
  for (size_t pos = open + 1; pos < close;) {
    const size_t end = header.find_first_of(",)", pos);
    const std::string item = header.substr(pos, end - pos);
    if (item.find_first_not_of(' ') != std::string::npos) {
      dims.push_back(std::stoul(item));
      count *= dims.back();
    }
    pos = end + 1;
  }
  std::vector<float> data(count);
  if (!in.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(count * sizeof(float))))
    throw Error(path + ": truncated");
  if (shape) *shape = dims;
  return data;
}

}  // namespace course
