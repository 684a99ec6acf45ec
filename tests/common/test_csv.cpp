// CSV reading (course/csv.hpp), shared by every program that reads a CSV (lesson 11's scaling
// study, lesson 13's study, chart_csv): a NUL byte anywhere is refused naming the file and the line,
// since C's number parsers would stop at it and read "12<NUL>9999" as 12.
#include <string>
#include <vector>

#include "course/csv.hpp"
#include "course/error.hpp"
#include "course_test.hpp"
#include "test_files.hpp"

using course::test::contains;
using course::test::error_message;
using course::test::TempDir;

namespace {
const std::string kHeader = "ranks,bytes,microseconds";

// The third column of every row, read like the programs read it.
std::vector<double> times_in(const std::string& text) {
  std::vector<double> times;
  course::for_each_csv_row(text, "n.csv", kHeader, "a sweep", [&](const std::vector<std::string>& f, int) {
    course::parse_csv_integer(f[0], "ranks", 1, 64);
    times.push_back(course::parse_csv_number(f[2], "microseconds", 0, 1e12, false));
  });
  return times;
}
}  // namespace

TEST_CASE("a CSV with a NUL byte inside a number is refused, naming the file, the line and the place", "[csv]") {
  const std::string good = kHeader + "\n2,4096,12\n2,8192,20\n";
  CHECK(times_in(good) == std::vector<double>{12, 20});

  const std::string nul = kHeader + "\n2,4096,12" + std::string(1, '\0') + "9999\n2,8192,20\n";
  const std::string message = error_message([&] { times_in(nul); });
  INFO(message);
  CHECK(contains(message, "n.csv:2: a NUL byte at character 10"));
  CHECK(contains(message, "not a text file"));

  // In the header, and in a field given to the number parser directly (chart_csv's cells).
  CHECK(contains(error_message([&] { times_in("ranks" + std::string(1, '\0') + ",bytes,microseconds\n2,1,1\n"); }),
                 "n.csv:1: a NUL byte at character 6"));
  const std::string cell = "12" + std::string(1, '\0') + "9";
  const std::string parsed = error_message([&] { course::parse_csv_number(cell, "microseconds", 0, 1e12, false); });
  CHECK(contains(parsed, "microseconds must be a number >= 0"));
  CHECK(contains(parsed, "got '12\\x009'"));  // the byte shown, not a message cut at it
  CHECK_FALSE(error_message([&] { course::parse_csv_integer(cell, "ranks", 1, 64); }).empty());
}

TEST_CASE("read_text_file refuses a file with a NUL byte before any reader splits it", "[csv]") {
  TempDir dir;
  const std::string path = dir.file("n.csv");
  course::test::write_bytes(path, {'a', ',', 'b', '\n', '1', '\0', '2', ',', '3', '\n'});
  const std::string message =
      error_message([&] { course::read_text_file(path, "a CSV file", "file not found"); });
  CHECK(contains(message, path + ":2: a NUL byte at character 2"));
  course::test::write_bytes(path, {'a', ',', 'b', '\n', '1', ',', '3', '\n'});
  CHECK(course::read_text_file(path, "a CSV file", "file not found") == "a,b\n1,3\n");
}
