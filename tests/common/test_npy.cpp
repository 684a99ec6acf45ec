// .npy writer: the exact header NumPy expects, data bytes, atomic write, read-back.
#include "course/npy.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "course_test.hpp"
#include "test_files.hpp"

using course::test::contains;
using course::test::error_message;
using course::test::read_bytes;
using course::test::TempDir;

namespace {
struct NpyParts {
  std::string header;  // the dictionary text, padding and '\n' included
  std::vector<uint8_t> data;
};

// Splits a .npy file by the format's rules (magic, version 1.0, 2-byte little-endian length).
NpyParts split_npy(const std::string& path) {
  const auto b = read_bytes(path);
  REQUIRE(b.size() >= 10);
  CHECK(std::memcmp(b.data(), "\x93NUMPY", 6) == 0);
  CHECK(b[6] == 1);  // version 1.0
  CHECK(b[7] == 0);
  const size_t len = b[8] | (static_cast<size_t>(b[9]) << 8);
  REQUIRE(b.size() >= 10 + len);
  NpyParts p;
  p.header.assign(b.begin() + 10, b.begin() + 10 + static_cast<long>(len));
  p.data.assign(b.begin() + 10 + static_cast<long>(len), b.end());
  CHECK((10 + len) % 64 == 0);  // the data starts 64-byte aligned
  CHECK(p.header.back() == '\n');
  return p;
}

bool exists(const std::string& path) { return std::filesystem::exists(path); }

// A .npy file written by hand: version 1.0, the given header dictionary (padded with spaces
// and '\n' to a multiple of 64 like NumPy's), then `data_bytes` bytes of data.
std::vector<uint8_t> npy_bytes(const std::string& dict, size_t data_bytes) {
  std::string header = dict;
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string file("\x93NUMPY\x01\x00", 8);
  file += static_cast<char>(header.size() & 0xff);
  file += static_cast<char>(header.size() >> 8);
  file += header;
  file.append(data_bytes, '\0');
  return std::vector<uint8_t>(file.begin(), file.end());
}

std::string float_header(const std::string& shape) {
  return "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
}

// The error read_npy_float gives for a file holding `bytes`; checks that it is one line
// that starts with the file's name, and that the from-memory reader gives the same problem.
std::string npy_error(const TempDir& dir, const std::vector<uint8_t>& bytes) {
  const std::string path = dir.file("bad.npy");
  course::test::write_bytes(path, bytes);
  const std::string msg = error_message([&] { course::read_npy_float(path); });
  INFO(msg);
  CHECK(msg.rfind(path + ": ", 0) == 0);
  CHECK(msg.find('\n') == std::string::npos);
  const std::string from_memory =
      error_message([&] { course::parse_npy_float(bytes.data(), bytes.size(), "bytes"); });
  CHECK(from_memory == "bytes" + msg.substr(path.size()));
  return msg;
}

// The most memory this process has held so far, in MB.
long peak_memory_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024;  // Linux reports kB
}

// The names in a folder, sorted.
std::vector<std::string> files_in(const std::string& folder) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(folder)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST_CASE("write_npy float: NumPy's header, raw little-endian data, exact read-back", "[npy]") {
  TempDir dir;
  const std::string path = dir.file("out/acts.npy");  // the folder is created
  const std::vector<size_t> shape = {2, 3, 5};
  const auto values = course::test::random_vector(30, 31);
  course::write_npy(path, values.data(), shape);
  CHECK(files_in(dir.file("out")) == std::vector<std::string>{"acts.npy"});  // no temporary left

  const NpyParts p = split_npy(path);
  INFO(p.header);
  CHECK(contains(p.header, "'descr': '<f4'"));
  CHECK(contains(p.header, "'fortran_order': False"));
  CHECK(contains(p.header, "'shape': (2, 3, 5)"));
  REQUIRE(p.data.size() == 30 * sizeof(float));
  CHECK(std::memcmp(p.data.data(), values.data(), p.data.size()) == 0);  // x86/ARM are little-endian

  std::vector<size_t> back_shape;
  const auto back = course::read_npy_float(path, &back_shape);
  CHECK(back_shape == shape);
  CHECK(back == values);
}

TEST_CASE("write_npy shapes: 1-D has a trailing comma, 0-D is ()", "[npy]") {
  TempDir dir;
  const std::vector<float> five = {1, 2, 3, 4, 5};
  course::write_npy(dir.file("v.npy"), five.data(), {5});
  CHECK(contains(split_npy(dir.file("v.npy")).header, "'shape': (5,)"));  // (5) would be an int
  std::vector<size_t> shape;
  CHECK(course::read_npy_float(dir.file("v.npy"), &shape) == five);
  CHECK(shape == std::vector<size_t>{5});

  const float scalar = 2.5f;
  course::write_npy(dir.file("s.npy"), &scalar, {});
  CHECK(contains(split_npy(dir.file("s.npy")).header, "'shape': ()"));
  CHECK(course::read_npy_float(dir.file("s.npy")) == std::vector<float>{2.5f});

  course::write_npy(dir.file("empty.npy"), five.data(), {0, 3});
  CHECK(contains(split_npy(dir.file("empty.npy")).header, "'shape': (0, 3)"));
  CHECK(course::read_npy_float(dir.file("empty.npy")).empty());
}

TEST_CASE("header length stays a multiple of 64 for every shape length", "[npy]") {
  TempDir dir;
  std::vector<size_t> shape;
  std::vector<float> data(1, 0.5f);
  for (int rank = 1; rank <= 12; ++rank) {  // the header grows past 64 and 128 characters
    shape.push_back(rank == 7 ? 1000001 : 1);
    data.resize(rank >= 7 ? 1000001 : 1, 0.5f);
    CAPTURE(rank);
    course::write_npy(dir.file("r.npy"), data.data(), shape);
    split_npy(dir.file("r.npy"));  // checks the alignment
  }
}

TEST_CASE("write_npy int32 writes '<i4', which read_npy_float refuses", "[npy]") {
  TempDir dir;
  const std::vector<int32_t> labels = {3, -1, 7, 2147483647};
  course::write_npy(dir.file("labels.npy"), labels.data(), {2, 2});
  const NpyParts p = split_npy(dir.file("labels.npy"));
  CHECK(contains(p.header, "'descr': '<i4'"));
  CHECK(contains(p.header, "'shape': (2, 2)"));
  REQUIRE(p.data.size() == 16);
  CHECK(std::memcmp(p.data.data(), labels.data(), 16) == 0);
  CHECK(contains(error_message([&] { course::read_npy_float(dir.file("labels.npy")); }), "not float32"));
}

TEST_CASE("write_npy over an old file replaces it; failures leave no .tmp", "[npy]") {
  TempDir dir;
  const std::string path = dir.file("w.npy");
  const std::vector<float> a = {1, 2, 3}, b = {9, 8};
  course::write_npy(path, a.data(), {3});
  course::write_npy(path, b.data(), {2});
  CHECK(course::read_npy_float(path) == b);

  // The target is a folder that is not empty: the rename fails.
  std::filesystem::create_directories(dir.file("taken.npy/inside"));
  const std::string msg = error_message([&] { course::write_npy(dir.file("taken.npy"), a.data(), {3}); });
  CHECK(contains(msg, "taken.npy"));
  CHECK(files_in(dir.path()) == std::vector<std::string>{"taken.npy", "w.npy"});  // no temporary left
  // The folder cannot be created (its parent is a file).
  course::test::write_bytes(dir.file("file"), {0});
  CHECK(contains(error_message([&] { course::write_npy(dir.file("file/x.npy"), a.data(), {3}); }),
                 "cannot be opened for writing"));
}

TEST_CASE("read_npy_float rejects what is not a complete float32 .npy file", "[npy]") {
  TempDir dir;
  CHECK(contains(error_message([&] { course::read_npy_float(dir.file("missing.npy")); }), "cannot be opened"));
  course::test::write_bytes(dir.file("text.npy"), {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd'});
  CHECK(contains(error_message([&] { course::read_npy_float(dir.file("text.npy")); }), "not a version 1.0"));

  const std::vector<float> v(10, 1.0f);
  course::write_npy(dir.file("full.npy"), v.data(), {10});
  auto bytes = read_bytes(dir.file("full.npy"));
  bytes.resize(bytes.size() - 4);  // one float short
  course::test::write_bytes(dir.file("short.npy"), bytes);
  CHECK(contains(error_message([&] { course::read_npy_float(dir.file("short.npy")); }), "truncated"));
  bytes.resize(40);  // stops inside the header
  course::test::write_bytes(dir.file("header.npy"), bytes);
  CHECK(contains(error_message([&] { course::read_npy_float(dir.file("header.npy")); }), "truncated header"));
}

TEST_CASE("read_npy_float reads any spelling NumPy can write of a float32 header", "[npy]") {
  TempDir dir;
  const std::string path = dir.file("spelled.npy");
  for (const std::string& dict :
       {std::string("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"),
        std::string("{'shape': (2,3), 'fortran_order': False, 'descr': '<f4'}"),  // any key order
        std::string("{\"descr\":\"<f4\",\"fortran_order\":False,\"shape\":( 2 , 3 , )}")}) {
    CAPTURE(dict);
    course::test::write_bytes(path, npy_bytes(dict, 6 * sizeof(float)));
    std::vector<size_t> shape;
    CHECK(course::read_npy_float(path, &shape) == std::vector<float>(6, 0.0f));
    CHECK(shape == std::vector<size_t>{2, 3});
  }
}

TEST_CASE("parse_npy_float reads a .npy file held in memory like read_npy_float", "[npy]") {
  TempDir dir;
  const auto values = course::test::random_vector(15, 32);
  course::write_npy(dir.file("m.npy"), values.data(), {3, 5});
  const auto bytes = read_bytes(dir.file("m.npy"));
  std::vector<size_t> shape;
  CHECK(course::parse_npy_float(bytes.data(), bytes.size(), "m", &shape) == values);
  CHECK(shape == std::vector<size_t>{3, 5});
}

TEST_CASE("read_npy_float: a shape that is not a tuple of sizes is a course error", "[npy]") {
  TempDir dir;
  CHECK(contains(npy_error(dir, npy_bytes(float_header("(abc,)"), 0)), "shape"));
  CHECK(contains(npy_error(dir, npy_bytes(float_header("(-1,)"), 0)), "shape"));
  CHECK(contains(npy_error(dir, npy_bytes(float_header("(3, 4.5)"), 0)), "shape"));
  CHECK(contains(npy_error(dir, npy_bytes(float_header("(1 2,)"), 0)), "shape"));
  CHECK(contains(npy_error(dir, npy_bytes(float_header("(,)"), 0)), "shape"));
  CHECK(contains(npy_error(dir, npy_bytes(float_header("(4)"), 16)), "shape"));  // an int, not a tuple
  CHECK(contains(npy_error(dir, npy_bytes(float_header("[4]"), 16)), "shape"));
  // A size beyond 64 bits, and sizes whose product (or its bytes) overflows 64 bits.
  CHECK(contains(npy_error(dir, npy_bytes(float_header("(99999999999999999999999,)"), 0)), "too large"));
  CHECK(contains(npy_error(dir, npy_bytes(float_header("(4611686018427387904, 4)"), 0)), "too large"));
  CHECK(contains(npy_error(dir, npy_bytes(float_header("(4611686018427387904,)"), 0)), "too large"));
}

TEST_CASE("read_npy_float checks the data size against the shape before it allocates", "[npy]") {
  TempDir dir;
  // 138 bytes that promise 100,000,000 floats (400 MB): a 128-byte preamble and header, 10 of data.
  auto bytes = npy_bytes(float_header("(100000000,)"), 0);
  REQUIRE(bytes.size() == 128);
  bytes.resize(138, 0);
  const long before_mb = peak_memory_mb();
  const std::string msg = npy_error(dir, bytes);
  CHECK(contains(msg, "truncated: 10 bytes of data, the shape (100000000,) needs 400000000"));
  CHECK(peak_memory_mb() - before_mb < 100);  // never reserved the 400 MB

  CHECK(contains(npy_error(dir, npy_bytes(float_header("(3,)"), 13)),
                 "1 byte after the data (the shape (3,) needs 12 bytes)"));
  CHECK(contains(npy_error(dir, npy_bytes(float_header("()"), 8)), "4 bytes after the data"));
}

TEST_CASE("read_npy_float reads the header dictionary key by key", "[npy]") {
  TempDir dir;
  // Big-endian float32 is refused, also when '<f4' appears elsewhere in the header.
  CHECK(contains(npy_error(dir, npy_bytes("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8)),
                 "data type '>f4' is big-endian"));
  CHECK(contains(npy_error(dir, npy_bytes("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), 'x': '<f4'}", 8)),
                 "unexpected key 'x'"));
  CHECK(contains(npy_error(dir, npy_bytes("{'descr': '>f4', '<f4': '<f4', 'fortran_order': False, 'shape': (2,)}", 8)),
                 "unexpected key '<f4'"));
  CHECK(contains(npy_error(dir, npy_bytes("{'descr': '>f4', 'fortran_order': False, 'shape': (2,)} '<f4'", 8)),
                 "unexpected text after the header dictionary: ''<f4'"));
  CHECK(contains(npy_error(dir, npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", 8)),
                 "not float32"));
  // The layout key must say False: True, or a False only inside a string, is refused.
  CHECK(contains(npy_error(dir, npy_bytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", 8)),
                 "Fortran order"));
  CHECK(contains(
      npy_error(dir, npy_bytes("{'descr': '<f4', 'fortran_order': 'False', 'shape': (2,), }", 8)),
      "fortran_order"));
  // Keys: each of the three exactly once, nothing else.
  CHECK(contains(npy_error(dir, npy_bytes("{'descr': '<f4', 'fortran_order': False, }", 0)),
                 "no 'shape'"));
  CHECK(contains(
      npy_error(dir, npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'shape': (1,)}", 4)),
      "'shape' twice"));
  CHECK(contains(
      npy_error(dir, npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}", 8)),
      "unexpected key 'extra'"));
  // Not a dictionary, or something after it.
  CHECK(contains(npy_error(dir, npy_bytes("descr <f4 shape 2", 8)), "header"));
  CHECK(contains(npy_error(dir, npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", 8)),
                 "header"));
  CHECK(contains(npy_error(dir, npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x", 8)),
                 "after the header dictionary"));
}

TEST_CASE("read_npy_float refuses folders and other files that are not regular files", "[npy]") {
  TempDir dir;
  std::filesystem::create_directories(dir.file("folder.npy"));
  CHECK(error_message([&] { course::read_npy_float(dir.file("folder.npy")); }) ==
        dir.file("folder.npy") + ": is a directory, not a .npy file");
  if (exists("/dev/null"))
    CHECK(error_message([&] { course::read_npy_float("/dev/null"); }) ==
          "/dev/null: is not a regular file (a device, pipe or socket), not a .npy file");
}
