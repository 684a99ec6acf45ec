// CIFAR-10 batch files: records written here read back pixel for pixel, limits, several batches in
// order, and every refusal with its message.
#include "course/cifar.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include "course_test.hpp"
#include "test_files.hpp"

using course::Split;
using course::test::contains;
using course::test::error_message;
using course::test::TempDir;
using course::test::write_bytes;

namespace {
using Bytes = std::vector<uint8_t>;

// Records with the given labels and random pixels: 1 label byte, then 1024 red, 1024 green and
// 1024 blue bytes, each plane row by row.
Bytes records(const std::vector<uint8_t>& labels, uint64_t seed) {
  course::Rng rng(seed);
  Bytes b;
  for (uint8_t label : labels) {
    b.push_back(label);
    for (size_t i = 0; i < course::kCifarImageBytes; ++i) b.push_back(static_cast<uint8_t>(rng.uniform_int(256)));
  }
  return b;
}

Bytes joined(const std::vector<Bytes>& parts) {
  Bytes all;
  for (const Bytes& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

// Checks that ds holds exactly the records in `bytes` (from record `first` on), pixel for pixel:
// the red plane is channel 0, green 1, blue 2, and row h, column w of a plane is byte h * 32 + w.
void check_same_records(const course::Dataset& ds, const Bytes& bytes, size_t first = 0) {
  const size_t n = static_cast<size_t>(ds.count());
  REQUIRE(ds.images.dims() == std::vector<int>{ds.count(), 3, 32, 32});
  REQUIRE(bytes.size() >= (first + n) * course::kCifarRecordBytes);
  size_t wrong = 0;
  for (size_t r = 0; r < n; ++r) {
    const uint8_t* record = bytes.data() + (first + r) * course::kCifarRecordBytes;
    if (ds.labels[r] != record[0]) ++wrong;
    for (int c = 0; c < 3; ++c)
      for (int h = 0; h < 32; ++h)
        for (int w = 0; w < 32; ++w)
          if (ds.images.at(static_cast<int>(r), c, h, w) != record[1 + c * 1024 + h * 32 + w] / 255.0f) ++wrong;
  }
  CHECK(wrong == 0);
}

// The error load_cifar10 gives for a training batch holding `bytes` (the other files are whole);
// checks that it names the file and that parse_cifar10 gives the same problem for the same bytes.
std::string file_error(const TempDir& dir, const Bytes& bytes) {
  for (const std::string& path : course::cifar10_batch_paths(dir.path(), Split::train)) write_bytes(path, records({1}, 3));
  const std::string path = dir.file("data_batch_2.bin");
  write_bytes(path, bytes);
  const std::string msg = error_message([&] { course::load_cifar10(dir.path(), Split::train); });
  INFO(msg);
  CHECK(msg.rfind(path + ": ", 0) == 0);
  const std::string from_memory = error_message([&] { course::parse_cifar10(bytes.data(), bytes.size(), "bytes"); });
  CHECK(from_memory == "bytes" + msg.substr(path.size()));
  return msg;
}

// Writes the six batch files with the given record counts (train batches 1-5, then test).
std::vector<Bytes> write_batches(const std::string& dir, const std::vector<int>& counts, uint64_t seed) {
  std::vector<std::string> paths = course::cifar10_batch_paths(dir, Split::train);
  paths.push_back(course::cifar10_batch_paths(dir, Split::test).at(0));
  REQUIRE(counts.size() == paths.size());
  course::Rng rng(seed);
  std::vector<Bytes> files;
  for (size_t f = 0; f < paths.size(); ++f) {
    std::vector<uint8_t> labels;
    for (int i = 0; i < counts[f]; ++i) labels.push_back(static_cast<uint8_t>(rng.uniform_int(10)));
    files.push_back(records(labels, seed + 1 + f));
    write_bytes(paths[f], files.back());
  }
  return files;
}
}  // namespace

TEST_CASE("parse_cifar10 gives back the records pixel for pixel, red plane first", "[cifar]") {
  const std::vector<uint8_t> labels = {6, 9, 0, 3, 3, 7, 1};
  const Bytes bytes = records(labels, 11);
  const course::Dataset ds = course::parse_cifar10(bytes.data(), bytes.size(), "mem");
  REQUIRE(ds.count() == 7);
  CHECK(ds.labels == std::vector<int>(labels.begin(), labels.end()));
  check_same_records(ds, bytes);
  // The layout spelt out on the second record: byte 1 is red at (0, 0), byte 1 + 1024 green at
  // (0, 0), byte 1 + 2048 + 32 * 5 + 7 blue at row 5, column 7, the last byte blue at (31, 31).
  const uint8_t* second = bytes.data() + course::kCifarRecordBytes;
  CHECK(ds.images.at(1, 0, 0, 0) == second[1] / 255.0f);
  CHECK(ds.images.at(1, 1, 0, 0) == second[1 + 1024] / 255.0f);
  CHECK(ds.images.at(1, 2, 5, 7) == second[1 + 2048 + 5 * 32 + 7] / 255.0f);
  CHECK(ds.images.at(1, 2, 31, 31) == second[course::kCifarRecordBytes - 1] / 255.0f);
  // The test's own data is not uniform: the planes differ, and pixels span [0, 1].
  CHECK(ds.images.at(1, 0, 0, 0) != ds.images.at(1, 1, 0, 0));
  float lo = 1, hi = 0;
  for (size_t i = 0; i < ds.images.size(); ++i) lo = std::min(lo, ds.images[i]), hi = std::max(hi, ds.images[i]);
  CHECK(lo == 0.0f);
  CHECK(hi == 1.0f);
}

TEST_CASE("parse_cifar10 with a limit keeps the first records", "[cifar]") {
  const Bytes bytes = records({4, 2, 8, 8, 0}, 12);
  const course::Dataset first2 = course::parse_cifar10(bytes.data(), bytes.size(), "mem", 2);
  CHECK(first2.labels == std::vector<int>{4, 2});
  check_same_records(first2, bytes);
  CHECK(course::parse_cifar10(bytes.data(), bytes.size(), "mem", 99).count() == 5);  // more than there is
  CHECK(course::parse_cifar10(bytes.data(), bytes.size(), "mem", 0).count() == 5);   // 0: no limit
  CHECK(course::parse_cifar10(bytes.data(), bytes.size(), "mem", 1).count() == 1);
}

TEST_CASE("load_cifar10 reads the batch files in order", "[cifar]") {
  TempDir dir;
  // Batches of different lengths (the real ones hold 10000 records each), so that an order or
  // offset mistake shows.
  const std::vector<Bytes> files = write_batches(dir.path(), {3, 1, 4, 2, 5, 6}, 20);
  const Bytes train = joined({files[0], files[1], files[2], files[3], files[4]});
  std::set<int> labels_seen;

  SECTION("the training split: data_batch_1.bin .. data_batch_5.bin one after another") {
    const course::Dataset ds = course::load_cifar10(dir.path(), Split::train);
    REQUIRE(ds.count() == 15);
    check_same_records(ds, train);
    labels_seen.insert(ds.labels.begin(), ds.labels.end());
    CHECK(labels_seen.size() > 3);  // random labels, not all alike
    // The same bytes in memory, as one buffer, give the same data set.
    const course::Dataset whole = course::parse_cifar10(train.data(), train.size(), "train");
    CHECK(whole.labels == ds.labels);
    CHECK(whole.images.vec() == ds.images.vec());
  }
  SECTION("the test split: test_batch.bin") {
    const course::Dataset ds = course::load_cifar10(dir.path(), Split::test);
    REQUIRE(ds.count() == 6);
    check_same_records(ds, files[5]);
  }
  SECTION("a limit that ends inside the third batch") {
    const course::Dataset ds = course::load_cifar10(dir.path(), Split::train, 6);
    REQUIRE(ds.count() == 6);
    check_same_records(ds, train);
    CHECK(course::load_cifar10(dir.path(), Split::train, 1000).count() == 15);
    CHECK(course::load_cifar10(dir.path(), Split::test, 2).count() == 2);
  }
  SECTION("a label above 9 in a batch past the limit: refused whatever the limit") {
    const std::string last = dir.file("data_batch_5.bin");
    Bytes bad = files[4];
    bad[2 * 3073] = 10;  // record 2's label byte (each record: 1 label byte, 3072 pixels)
    write_bytes(last, bad);
    const std::string msg = error_message([&] { course::load_cifar10(dir.path(), Split::train, 2); });
    CHECK(msg.rfind(last + ": ", 0) == 0);
    CHECK(contains(msg, "label 10 in record 2"));
  }
  SECTION("a limit still needs every batch whole: sizes are checked before anything is read") {
    const std::string last = dir.file("data_batch_5.bin");
    Bytes cut = files[4];
    cut.resize(cut.size() - 100);
    write_bytes(last, cut);
    CHECK(contains(error_message([&] { course::load_cifar10(dir.path(), Split::train, 2); }), last + ": "));
  }
}

TEST_CASE("every damaged CIFAR-10 batch gives one line naming the file and the problem", "[cifar]") {
  TempDir dir;
  SECTION("missing files say how to get them") {
    const std::string msg = error_message([&] { course::load_cifar10(dir.path(), Split::test); });
    CHECK(msg == dir.file("test_batch.bin") + ": file not found; run data/fetch_cifar10.sh, or pass --data DIR");
    write_batches(dir.path(), {1, 1, 1, 1, 1, 1}, 30);
    std::filesystem::remove(dir.file("data_batch_4.bin"));
    CHECK(error_message([&] { course::load_cifar10(dir.path(), Split::train); })
              .rfind(dir.file("data_batch_4.bin") + ": file not found; run data/fetch_cifar10.sh", 0) == 0);
  }
  SECTION("an empty file") {
    CHECK(contains(file_error(dir, {}), ": empty file (0 bytes)"));
    CHECK(error_message([&] { course::parse_cifar10(nullptr, 0, "mem"); }) ==
          "mem: empty file (0 bytes); a CIFAR-10 batch is a list of 3073-byte records");
  }
  SECTION("a size that is not a whole number of records") {
    Bytes b = records({1, 2}, 31);
    b.resize(b.size() + 5, 0);
    const std::string msg = file_error(dir, b);
    CHECK(contains(msg, "6151 bytes is not a whole number of 3073-byte CIFAR-10 records"));
    CHECK(contains(msg, "5 bytes left over after 2 records"));
    CHECK(contains(msg, "Python version"));
    CHECK(contains(msg, "cut download"));
    b = records({3}, 32);
    b.pop_back();  // a download cut inside the first record
    CHECK(contains(file_error(dir, b), "3072 bytes left over after 0 records"));
  }
  SECTION("a label above 9, with the record that holds it") {
    Bytes b = records({0, 9, 4, 5}, 33);
    b[3 * course::kCifarRecordBytes] = 10;
    CHECK(contains(file_error(dir, b), ": label 10 in record 3 (counting from 0) is outside 0..9"));
    // Also where a limit leaves that record out: the file is damaged either way.
    CHECK(contains(error_message([&] { course::parse_cifar10(b.data(), b.size(), "mem", 1); }), "label 10 in record 3"));
    b[0] = 255;
    CHECK(contains(file_error(dir, b), ": label 255 in record 0 (counting from 0)"));
  }
  SECTION("a negative limit") {
    const Bytes b = records({1}, 34);
    CHECK(error_message([&] { course::parse_cifar10(b.data(), b.size(), "mem", -1); }) ==
          "mem: limit -1 is negative (0 keeps every record)");
    write_batches(dir.path(), {1, 1, 1, 1, 1, 1}, 35);
    CHECK(error_message([&] { course::load_cifar10(dir.path(), Split::train, -3); }) ==
          dir.path() + ": limit -3 is negative (0 keeps every record)");
  }
  SECTION("a folder instead of a file") {
    std::filesystem::create_directories(dir.file("test_batch.bin"));
    CHECK(error_message([&] { course::load_cifar10(dir.path(), Split::test); }) ==
          dir.file("test_batch.bin") + ": is a directory, not a CIFAR-10 batch file");
  }
}

TEST_CASE("cifar10_present needs all six batch files", "[cifar]") {
  TempDir dir;
  const std::string d = dir.path();
  CHECK(course::cifar10_batch_paths(d, Split::train) ==
        std::vector<std::string>{d + "/data_batch_1.bin", d + "/data_batch_2.bin", d + "/data_batch_3.bin",
                                 d + "/data_batch_4.bin", d + "/data_batch_5.bin"});
  CHECK(course::cifar10_batch_paths(d, Split::test) == std::vector<std::string>{d + "/test_batch.bin"});
  CHECK_FALSE(course::cifar10_present(d));
  write_batches(d, {1, 1, 1, 1, 1, 1}, 40);
  CHECK(course::cifar10_present(d));
  std::filesystem::remove(d + "/test_batch.bin");
  CHECK_FALSE(course::cifar10_present(d));
  CHECK_FALSE(course::cifar10_present(d + "/does-not-exist"));
}
