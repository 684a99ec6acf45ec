// Fuzzes lesson 11's scaling-study CSV reader (parse_results, behind --plot): bad input is one
// course::Error line naming the file; what it accepts obeys its rules and survives a round trip
// through results_csv, and the charts can be built from it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "scaling_results.hpp"

using course::fuzz::check_message;
using course::fuzz::expect;

namespace {
// The CSV reader names the file, and the line when there is one: "input.csv: ..." or
// "input.csv:7: ...". One line either way.
void check_csv_message(const course::Error& e) {
  const std::string msg = e.what();
  check_message(e, "");
  expect(msg.rfind("input.csv:", 0) == 0, "error message starts with the file's name", msg);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<scaling_study::Result> rows;
  try {
    rows = scaling_study::parse_results(text, "input.csv");
  } catch (const course::Error& e) {
    check_csv_message(e);
    return 0;
  }
  // A NUL byte would cut a number short ("12<NUL>9999" read as 12): no accepted file holds one.
  expect(text.find('\0') == std::string::npos, "an accepted CSV holds no NUL byte");
  for (const scaling_study::Result& r : rows) {
    expect(r.filters > 0 && r.batch > 0 && r.images_timed > 0, "accepted sizes are positive");
    expect(r.seconds_timed > 0 && r.seconds_per_epoch > 0, "accepted times are positive");
    expect(r.test_accuracy <= 1, "an accepted accuracy is at most 1");
  }
  // What was accepted, written again, reads back as the same rows.
  const std::string again = scaling_study::results_csv(rows);
  const std::vector<scaling_study::Result> back = scaling_study::parse_results(again, "again.csv");
  expect(back.size() == rows.size(), "a round trip keeps every row");
  for (size_t i = 0; i < rows.size(); ++i) {
    expect(back[i].system == rows[i].system && back[i].machine == rows[i].machine &&
               back[i].filters == rows[i].filters && back[i].batch == rows[i].batch &&
               back[i].setup == rows[i].setup,
           "a round trip keeps every field", rows[i].system);
  }
  // The charts of accepted rows are specs only (nothing drawn here): building them must not fail
  // other than with course::Error.
  try {
    (void)scaling_study::study_charts(rows);
  } catch (const course::Error& e) {
    check_message(e, "");
  }
  return 0;
}
