// IDX files and data sets: round trip, every kind of damaged file, load_dataset.
#include "course/idx.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <future>
#include <thread>

#include "child_process.hpp"
#include "course_test.hpp"
#include "test_files.hpp"

using course::Split;
using course::test::contains;
using course::test::error_message;
using course::test::read_bytes;
using course::test::TempDir;
using course::test::write_bytes;

namespace {
std::vector<uint8_t> random_bytes(size_t n, uint64_t seed, int max_value = 255) {
  course::Rng rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng.uniform_int(max_value + 1));
  return v;
}

// The bytes of an IDX file written by hand (not by write_idx): magic, dims, data.
std::vector<uint8_t> idx_bytes(uint8_t type, const std::vector<uint32_t>& dims, size_t data_bytes) {
  std::vector<uint8_t> b = {0, 0, type, static_cast<uint8_t>(dims.size())};
  for (uint32_t d : dims)
    for (int shift = 24; shift >= 0; shift -= 8) b.push_back(static_cast<uint8_t>(d >> shift));
  b.resize(b.size() + data_bytes, 7);
  return b;
}

// The error read_idx gives for a file holding `bytes`; checks it names the file, and that
// parse_idx gives the same problem for the same bytes in memory.
std::string read_error(const TempDir& dir, const std::vector<uint8_t>& bytes) {
  const std::string path = dir.file("damaged-idx1-ubyte");
  write_bytes(path, bytes);
  const std::string msg = error_message([&] { course::read_idx(path); });
  INFO(msg);
  CHECK(msg.rfind(path + ": ", 0) == 0);  // "<file>: <problem>"
  const std::string from_memory = error_message([&] { course::parse_idx(bytes.data(), bytes.size(), "bytes"); });
  CHECK(from_memory == "bytes" + msg.substr(path.size()));
  return msg;
}

// read_idx on a FIFO while this thread offers `bytes` to it, as `cat file > fifo` would.
// A reader that waits for a writer gets one (so a wrong reader fails instead of hanging).
std::string fifo_error(const TempDir& dir, const std::vector<uint8_t>& bytes) {
  const std::string path = dir.file("fifo-idx1-ubyte");
  REQUIRE(mkfifo(path.c_str(), 0600) == 0);
  auto reader = std::async(std::launch::async, [&] { return error_message([&] { course::read_idx(path); }); });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (reader.wait_for(std::chrono::milliseconds(10)) != std::future_status::ready &&
         std::chrono::steady_clock::now() < deadline) {
    // Opening the write end without blocking succeeds only once a reader has opened it.
    const int fd = open(path.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd < 0) continue;
    FAIL_CHECK("read_idx opened a FIFO for reading");
    if (!bytes.empty()) CHECK(write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
    close(fd);
    break;
  }
  return reader.get();
}

// Writes a small data set (count images of h x w) into dir; returns the image bytes.
std::vector<uint8_t> write_set(const std::string& dir, Split split, int count, int h, int w,
                               const std::vector<uint8_t>& labels, uint64_t seed) {
  const auto pixels = random_bytes(static_cast<size_t>(count) * h * w, seed);
  course::write_idx(course::idx_images_path(dir, split), {count, h, w}, pixels);
  course::write_idx(course::idx_labels_path(dir, split), {static_cast<int>(labels.size())}, labels);
  return pixels;
}
}  // namespace

TEST_CASE("write_idx then read_idx gives back the dimensions and the bytes", "[idx]") {
  TempDir dir;
  for (const std::vector<int>& dims : {std::vector<int>{17}, std::vector<int>{3, 28, 28},
                                       std::vector<int>{2, 3, 5, 7}, std::vector<int>{1}}) {
    size_t n = 1;
    for (int d : dims) n *= static_cast<size_t>(d);
    const auto data = random_bytes(n, 100 + dims.size());
    const std::string path = dir.file("array-" + std::to_string(dims.size()));
    course::write_idx(path, dims, data);
    // The exact layout: 0 0 0x08 rank, big-endian dimensions, then the bytes.
    const auto raw = read_bytes(path);
    REQUIRE(raw.size() == 4 + 4 * dims.size() + n);
    CHECK(raw[0] == 0);
    CHECK(raw[1] == 0);
    CHECK(raw[2] == 0x08);
    CHECK(raw[3] == dims.size());
    CHECK(raw[4 + 3] == static_cast<uint8_t>(dims[0]));
    const course::IdxArray back = course::read_idx(path);
    CHECK(back.dims == dims);
    CHECK(back.data == data);
  }
}

TEST_CASE("write_idx refuses arrays read_idx could not read", "[idx]") {
  TempDir dir;
  const std::string path = dir.file("x");
  CHECK(contains(error_message([&] { course::write_idx(path, {2, 3}, std::vector<uint8_t>(5)); }),
                 "the dimensions give 6 elements, the data has 5"));
  CHECK(contains(error_message([&] { course::write_idx(path, {}, {}); }), "rank 0"));
  CHECK(contains(error_message([&] { course::write_idx(path, {0}, {}); }), "dimension 0"));
  CHECK(contains(error_message([&] { course::write_idx(dir.file("no/such/folder/x"), {1}, {1}); }),
                 "cannot be opened for writing"));
}

TEST_CASE("every damaged IDX file gives an error naming the file and the problem", "[idx]") {
  TempDir dir;
  SECTION("missing file") {
    const std::string path = dir.file("train-images-idx3-ubyte");
    const std::string msg = error_message([&] { course::read_idx(path); });
    CHECK(msg.rfind(path + ": file not found", 0) == 0);
    CHECK(contains(msg, "data/fetch_mnist.sh"));  // says what to do
  }
  SECTION("gzip file") {
    const std::vector<uint8_t> gz = {0x1f, 0x8b, 0x08, 0x08, 0, 0, 0, 0, 0, 3};
    CHECK(contains(read_error(dir, gz), "gzip"));
    CHECK(contains(read_error(dir, gz), "gunzip"));
  }
  SECTION("bad magic") {
    auto b = idx_bytes(0x08, {4}, 4);
    b[1] = 0x03;
    CHECK(contains(read_error(dir, b), "not an IDX file"));
    b = {'<', 'h', 't', 'm', 'l', '>'};  // an error page saved instead of the data
    CHECK(contains(read_error(dir, b), "not an IDX file"));
  }
  SECTION("bad element type") {
    const std::string msg = read_error(dir, idx_bytes(0x0D, {4}, 16));  // 0x0D: float
    CHECK(contains(msg, "unsupported IDX element type 0x0d"));
  }
  SECTION("bad rank") {
    CHECK(contains(read_error(dir, idx_bytes(0x08, {}, 0)), "bad IDX rank 0"));
    CHECK(contains(read_error(dir, idx_bytes(0x08, {1, 1, 1, 1, 1}, 1)), "bad IDX rank 5"));
  }
  SECTION("truncated header") {
    CHECK(contains(read_error(dir, {0, 0, 8}), "truncated"));
    CHECK(contains(read_error(dir, {}), "truncated"));
    auto b = idx_bytes(0x08, {3, 28, 28}, 0);
    b.resize(4 + 4 + 2);  // stops inside the second dimension
    CHECK(contains(read_error(dir, b), "truncated inside the dimension list"));
  }
  SECTION("truncated data") {
    // 4 + 3 * 4 header bytes and 3 * 5 * 7 = 105 data bytes, one missing.
    const std::string msg = read_error(dir, idx_bytes(0x08, {3, 5, 7}, 3 * 5 * 7 - 1));
    CHECK(contains(msg, "truncated"));
    CHECK(contains(msg, "120 bytes, the header promises 121"));
  }
  SECTION("too long") {
    const std::string msg = read_error(dir, idx_bytes(0x08, {10}, 11));  // 8 + 11 bytes
    CHECK(contains(msg, "too long: 19 bytes, the header promises 18"));
  }
  SECTION("a dimension of 0") {
    CHECK(contains(read_error(dir, idx_bytes(0x08, {5, 0, 3}, 0)), "dimension 1 is 0"));
  }
  SECTION("dimensions whose product would overflow") {
    // 2^28 x 2^28 x 2^28 x 2^28 overflows 64 bits; the reader must not trust it.
    const uint32_t big = 1u << 28;
    CHECK(contains(read_error(dir, idx_bytes(0x08, {big, big, big, big}, 100)), "truncated"));
    CHECK(contains(read_error(dir, idx_bytes(0x08, {big + 1}, 10)), "implausible dimension"));
  }
}

TEST_CASE("read_idx refuses folders, FIFOs and devices with one line naming the path", "[idx]") {
  TempDir dir;
  SECTION("a folder") {
    const std::string path = dir.file("train-images-idx3-ubyte");
    std::filesystem::create_directories(path);
    CHECK(error_message([&] { course::read_idx(path); }) == path + ": is a directory, not an IDX file");
  }
  SECTION("a FIFO with nobody writing (would block) and with a valid file behind it") {
    const std::string expected = dir.file("fifo-idx1-ubyte") + ": is not a regular file (a device, pipe or socket), not an IDX file";
    CHECK(fifo_error(dir, {}) == expected);
    std::filesystem::remove(dir.file("fifo-idx1-ubyte"));
    // Its size cannot be known: it must not turn into "too long: 18446744073709551615 bytes".
    CHECK(fifo_error(dir, idx_bytes(0x08, {4}, 4)) == expected);
  }
  SECTION("a device") {
    if (std::filesystem::exists("/dev/null"))
      CHECK(error_message([&] { course::read_idx("/dev/null"); }) ==
            "/dev/null: is not a regular file (a device, pipe or socket), not an IDX file");
  }
  SECTION("a path through a file") {
    write_bytes(dir.file("plain"), {0});
    const std::string path = dir.file("plain/train-images-idx3-ubyte");
    CHECK(error_message([&] { course::read_idx(path); }).rfind(path + ": file not found", 0) == 0);
  }
}

TEST_CASE("parse_idx reads an IDX file held in memory like read_idx", "[idx]") {
  const std::vector<uint8_t> bytes = {0, 0, 8, 2, 0, 0, 0, 2, 0, 0, 0, 3, 10, 11, 12, 13, 14, 15};
  const course::IdxArray arr = course::parse_idx(bytes.data(), bytes.size(), "mem");
  CHECK(arr.dims == std::vector<int>{2, 3});
  CHECK(arr.data == std::vector<uint8_t>{10, 11, 12, 13, 14, 15});
  CHECK(contains(error_message([&] { course::parse_idx(bytes.data(), 3, "mem"); }), "mem: truncated"));
  CHECK(contains(error_message([&] { course::parse_idx(nullptr, 0, "mem"); }), "mem: truncated"));
}

TEST_CASE("dataset_from_idx builds a data set from two arrays like load_dataset", "[idx]") {
  const course::IdxArray images{{2, 1, 2}, {0, 255, 51, 102}};
  const course::IdxArray labels{{2}, {7, 0}};
  const course::Dataset ds = course::dataset_from_idx(images, "img", labels, "lab");
  CHECK(ds.images.dims() == std::vector<int>{2, 1, 1, 2});
  CHECK(ds.images[1] == 1.0f);
  CHECK(ds.images[2] == 0.2f);
  CHECK(ds.labels == std::vector<int>{7, 0});
  CHECK(course::dataset_from_idx(images, "img", labels, "lab", 1).count() == 1);
  CHECK(error_message([&] { course::dataset_from_idx(labels, "lab", labels, "lab"); }) ==
        "lab: expected 3 dimensions (count, rows, cols)");
  CHECK(error_message([&] { course::dataset_from_idx(images, "img", course::IdxArray{{2}, {7, 10}}, "lab"); }) ==
        "lab: label 10 at index 1 is outside 0..9");
  // Arrays whose dims and data disagree (not made by parse_idx) are refused, not read past.
  CHECK(contains(error_message([&] { course::dataset_from_idx(course::IdxArray{{2, 1, 2}, {1}}, "img", labels, "lab"); }),
                 "img: "));
}

TEST_CASE("load_dataset scales pixels to [0, 1] and keeps the labels", "[idx]") {
  TempDir dir;
  const std::vector<uint8_t> labels = {3, 0, 9, 1, 1, 7, 2};
  const int n = 7, h = 28, w = 28;
  const auto pixels = write_set(dir.path(), Split::test, n, h, w, labels, 5);
  const course::Dataset ds = course::load_dataset(dir.path(), Split::test);
  CHECK(ds.count() == n);
  CHECK(ds.images.dims() == std::vector<int>{n, 1, h, w});
  CHECK(ds.labels == std::vector<int>(labels.begin(), labels.end()));
  for (size_t i = 0; i < pixels.size(); ++i) REQUIRE(ds.images[i] == pixels[i] / 255.0f);
  CHECK(ds.images.at(6, 0, 27, 27) == pixels.back() / 255.0f);
}

TEST_CASE("load_dataset with a limit keeps the first examples", "[idx]") {
  TempDir dir;
  const std::vector<uint8_t> labels = {4, 4, 8, 0, 5};
  const auto pixels = write_set(dir.path(), Split::train, 5, 3, 4, labels, 6);
  const auto first3 = course::load_dataset(dir.path(), Split::train, 3);
  CHECK(first3.count() == 3);
  CHECK(first3.images.dims() == std::vector<int>{3, 1, 3, 4});
  CHECK(first3.labels == std::vector<int>{4, 4, 8});
  for (size_t i = 0; i < first3.images.size(); ++i) REQUIRE(first3.images[i] == pixels[i] / 255.0f);
  CHECK(course::load_dataset(dir.path(), Split::train, 99).count() == 5);  // more than there is
  CHECK(course::load_dataset(dir.path(), Split::train, 0).count() == 5);   // 0: no limit
}

TEST_CASE("load_dataset rejects bad labels and mismatched files", "[idx]") {
  TempDir dir;
  const std::string labels_path = course::idx_labels_path(dir.path(), Split::train);
  SECTION("a label above 9") {
    write_set(dir.path(), Split::train, 4, 28, 28, {1, 2, 10, 3}, 7);
    const std::string msg = error_message([&] { course::load_dataset(dir.path(), Split::train); });
    CHECK(msg.rfind(labels_path + ": ", 0) == 0);
    CHECK(contains(msg, "label 10 at index 2 is outside 0..9"));
  }
  SECTION("a label above 9 past the limit: the file is refused whatever the limit") {
    write_set(dir.path(), Split::train, 4, 28, 28, {1, 2, 3, 12}, 9);
    const std::string msg = error_message([&] { course::load_dataset(dir.path(), Split::train, 2); });
    CHECK(msg.rfind(labels_path + ": ", 0) == 0);
    CHECK(contains(msg, "label 12 at index 3 is outside 0..9"));
  }
  SECTION("image and label counts differ") {
    write_set(dir.path(), Split::train, 4, 28, 28, {1, 2, 3}, 8);
    const std::string msg = error_message([&] { course::load_dataset(dir.path(), Split::train); });
    CHECK(msg.rfind(labels_path + ": ", 0) == 0);
    CHECK(contains(msg, "3 labels for 4 images"));
  }
  SECTION("images of the wrong rank") {
    const std::string images_path = course::idx_images_path(dir.path(), Split::train);
    course::write_idx(images_path, {4, 784}, std::vector<uint8_t>(4 * 784));
    course::write_idx(labels_path, {4}, {0, 1, 2, 3});
    const std::string msg = error_message([&] { course::load_dataset(dir.path(), Split::train); });
    CHECK(msg.rfind(images_path + ": expected 3 dimensions", 0) == 0);
  }
  SECTION("missing files") {
    const std::string msg = error_message([&] { course::load_dataset(dir.path(), Split::test); });
    CHECK(contains(msg, "t10k-images-idx3-ubyte: file not found"));
  }
}

TEST_CASE("dataset_present needs all four standard files", "[idx]") {
  TempDir dir;
  const std::string d = dir.path();
  CHECK(course::idx_images_path(d, Split::train) == d + "/train-images-idx3-ubyte");
  CHECK(course::idx_labels_path(d, Split::train) == d + "/train-labels-idx1-ubyte");
  CHECK(course::idx_images_path(d, Split::test) == d + "/t10k-images-idx3-ubyte");
  CHECK(course::idx_labels_path(d, Split::test) == d + "/t10k-labels-idx1-ubyte");
  CHECK_FALSE(course::dataset_present(d));
  write_set(d, Split::train, 2, 28, 28, {0, 1}, 9);
  CHECK_FALSE(course::dataset_present(d));
  write_set(d, Split::test, 2, 28, 28, {2, 3}, 10);
  CHECK(course::dataset_present(d));
  std::filesystem::remove(course::idx_labels_path(d, Split::test));
  CHECK_FALSE(course::dataset_present(d));
  CHECK_FALSE(course::dataset_present(d + "/does-not-exist"));

  const std::string def = course::default_data_dir("mnist");
  CHECK(def.size() > 6);
  CHECK(def.compare(def.size() - 6, 6, "/mnist") == 0);
}

TEST_CASE("load_dataset with a limit reads only those images of a 3 GB file; without one it refuses", "[idx]") {
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer reserves terabytes of address space for its shadow: a limit on the address
  // space, which this check stands on, means nothing there.
  WARN("built with AddressSanitizer: no address-space limit can hold; the check is skipped");
  return;
#endif
  // A training-image file of 3.8 million 28x28 images (3 GB) as a sparse file: its header and its
  // first 64 images written, the rest a hole that takes no disk. A child process with 512 MiB of
  // address space beyond what it uses now loads it: reading the whole file would not fit.
  TempDir dir;
  const uint32_t n = 3800000, side = 28, kept = 64;
  std::vector<uint8_t> head = idx_bytes(0x08, {n, side, side}, 0);
  const std::vector<uint8_t> first = random_bytes(size_t(kept) * side * side, 31);
  head.insert(head.end(), first.begin(), first.end());
  const std::string images = course::idx_images_path(dir.path(), Split::train);
  write_bytes(images, head);
  REQUIRE(::truncate(images.c_str(), off_t(16) + off_t(n) * side * side) == 0);
  std::vector<uint8_t> labels = idx_bytes(0x08, {n}, 0);
  labels.resize(labels.size() + n, 3);
  write_bytes(course::idx_labels_path(dir.path(), Split::train), labels);

  const auto limit_address_space = [] {  // 512 MiB beyond what the child uses now
    long pages = 0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
      std::fclose(f);
    }
    const rlim_t room = rlim_t(pages) * rlim_t(::sysconf(_SC_PAGESIZE)) + (rlim_t(512) << 20);
    const rlimit limit{room, room};
    return pages > 0 && ::setrlimit(RLIMIT_AS, &limit) == 0;
  };
  const course::test::ChildResult child = course::test::run_in_child(limit_address_space, [&] {
    std::string report;
    try {
      const course::Dataset ds = course::load_dataset(dir.path(), Split::train, int(kept));
      bool same = ds.count() == int(kept) && ds.labels == std::vector<int>(kept, 3);
      for (size_t i = 0; same && i < first.size(); ++i) same = ds.images[i] == first[i] / 255.0f;
      report = same ? "loaded" : "wrong images";
    } catch (const std::exception& e) {
      report = std::string("limit 64: ") + e.what();
    }
    return report + "\n" + error_message([&] { course::load_dataset(dir.path(), Split::train); });
  });
  const std::string& report = child.text;
  INFO(report);
  REQUIRE(child.exit_code == 0);
  CHECK(report.rfind("loaded\n", 0) == 0);
  // The whole file, as floats, is refused before it is allocated, naming the file and what to do.
  CHECK(contains(report, "\n" + images + ": 3800000 images of 28x28 take 13.9 GiB to load, more than the "));
  CHECK(contains(report, "load fewer (a limit such as --train-limit)"));
}
