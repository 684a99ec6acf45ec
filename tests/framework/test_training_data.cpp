// Where a trainer's data comes from (training_data.hpp): a --data that is no folder this user can
// read is named with what is wrong with it, not reported as a folder without the data set.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "../common/test_files.hpp"
#include "child_process.hpp"
#include "course/error.hpp"
#include "course/idx.hpp"
#include "course_test.hpp"
#include "framework/training_data.hpp"

using course::test::contains;
using course::test::error_message;
using course::test::TempDir;

namespace {
// The message of loading the MNIST-like set in `dir`.
std::string load_error(const std::string& dir) {
  framework::TrainConfig config;
  config.data_dir = dir;
  return error_message([&] { framework::load_training_data(config); });
}

// Four small IDX files: a set that loads.
void write_set(const std::string& dir) {
  std::filesystem::create_directories(dir);
  for (course::Split split : {course::Split::train, course::Split::test}) {
    course::write_idx(course::idx_images_path(dir, split), {4, 6, 6}, std::vector<uint8_t>(4 * 36, 9));
    course::write_idx(course::idx_labels_path(dir, split), {4}, {0, 1, 2, 3});
  }
}
}  // namespace

TEST_CASE("a --data that is a file, a dangling link or a path through a file says so", "[training_data]") {
  TempDir dir;
  write_set(dir.file("good"));
  CHECK(load_error(dir.file("good")).empty());

  // Missing, or a folder without the files: how to fetch the set.
  CHECK(contains(load_error(dir.file("missing")), "no mnist data set in " + dir.file("missing") + " (run data/fetch_mnist.sh"));
  course::test::write_bytes(dir.file("a-file"), {1, 2, 3});
  std::string message = load_error(dir.file("a-file"));
  CHECK(contains(message, "no mnist data set in " + dir.file("a-file") + ": it is a regular file, not a folder"));
  CHECK(contains(message, "not a folder; pass --data DIR, the folder that holds the set's files"));
  REQUIRE(::symlink(dir.file("gone").c_str(), dir.file("dangling").c_str()) == 0);
  CHECK(contains(load_error(dir.file("dangling")), "no mnist data set in " + dir.file("dangling") +
                                                      ": it is a symbolic link to " + dir.file("gone") +
                                                      ", which does not exist"));
  CHECK(contains(load_error(dir.file("a-file/mnist")), "a part of its path is a file, not a folder"));
  // A link to a good folder is that folder.
  REQUIRE(::symlink(dir.file("good").c_str(), dir.file("link").c_str()) == 0);
  CHECK(load_error(dir.file("link")).empty());
}

TEST_CASE("a --data folder this user cannot read says so", "[training_data]") {
  TempDir dir;
  const std::string locked = dir.file("locked");
  write_set(locked);
  REQUIRE(::chmod(locked.c_str(), 0) == 0);
  std::string message;
  if (::geteuid() != 0) {
    message = load_error(locked);
  } else {  // root reads any folder: the user nobody tries it, in a child process
    REQUIRE(::chmod(dir.path().c_str(), 0755) == 0);
    const course::test::ChildResult nobody =
        course::test::run_in_child(course::test::become_nobody, [&] { return load_error(locked); });
    REQUIRE(nobody.exit_code == 0);
    message = nobody.text;
  }
  ::chmod(locked.c_str(), 0755);  // so that TempDir can remove it
  INFO(message);
  CHECK(contains(message, "no mnist data set in " + locked + ": the folder cannot be read: Permission denied (its mode is 0000"));
}
