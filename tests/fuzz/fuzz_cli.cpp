// Fuzzes the command-line parser with a flag set like the lesson programs': the input is the
// arguments after the program name, separated by NUL bytes.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "course/cli.hpp"
#include "fuzz_check.hpp"

using course::fuzz::check_message;
using course::fuzz::expect;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args = {"train"};
  std::string current;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      args.push_back(current);
      current.clear();
    } else {
      current += static_cast<char>(data[i]);
    }
  }
  if (size > 0) args.push_back(current);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  course::ArgParser p("train", "Trains a small CNN.");
  p.add_flag("--quick", "small sizes, few repeats");
  p.add_flag("--cpu-only", "no GPU");
  p.add_int("--epochs", 3, 1, 1000, "passes over the data");
  p.add_int("--seed", 1, 0, 1LL << 62, "seed");
  p.add_int("--offset", 0, std::numeric_limits<long long>::min(), std::numeric_limits<long long>::max(), "offset");
  p.add_float("--lr", 0.05, 0.0, 1.0, "learning rate");
  p.add_float("--scale", 1.0, -1e300, 1e300, "scale");
  p.add_string("--out", "out/run", "output folder");
  p.add_choice("--optimizer", "sgd", {"sgd", "momentum", "adam"}, "update rule");
  try {
    if (!p.parse(static_cast<int>(args.size()), argv.data())) return 0;  // --help
  } catch (const course::Error& e) {
    check_message(e, "");
    return 0;
  }
  // What parse accepted is within the declared ranges, read back without throwing.
  const long long epochs = p.get_int("--epochs"), seed = p.get_int("--seed");
  expect(epochs >= 1 && epochs <= 1000, "--epochs in range", std::to_string(epochs));
  expect(seed >= 0 && seed <= (1LL << 62), "--seed in range", std::to_string(seed));
  (void)p.get_int("--offset");
  const double lr = p.get_float("--lr"), scale = p.get_float("--scale");
  expect(lr >= 0.0 && lr <= 1.0, "--lr in range", std::to_string(lr));
  expect(std::isfinite(scale) && std::fabs(scale) <= 1e300, "--scale in range", std::to_string(scale));
  const std::string& optimizer = p.get_string("--optimizer");
  expect(optimizer == "sgd" || optimizer == "momentum" || optimizer == "adam", "--optimizer is a choice", optimizer);
  expect(!p.get_string("--out").empty(), "--out is never empty");
  (void)p.flag("--quick");
  (void)p.flag("--cpu-only");
  (void)p.help();
  return 0;
}
