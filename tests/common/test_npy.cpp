// .npy writer: the exact header NumPy expects, data bytes, atomic write, read-back.
#include "course/npy.hpp"

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
}  // namespace

TEST_CASE("write_npy float: NumPy's header, raw little-endian data, exact read-back", "[npy]") {
  TempDir dir;
  const std::string path = dir.file("out/acts.npy");  // the folder is created
  const std::vector<size_t> shape = {2, 3, 5};
  const auto values = course::test::random_vector(30, 31);
  course::write_npy(path, values.data(), shape);
  CHECK_FALSE(exists(path + ".tmp"));  // written to .tmp, then renamed

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
  CHECK_FALSE(exists(dir.file("taken.npy.tmp")));
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
