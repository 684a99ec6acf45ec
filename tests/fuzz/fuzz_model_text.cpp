// Fuzzes the layer-list parser: the --model text itself, the same text as an @file (layers on lines
// or after commas, '#' comments), and the model names. The first byte picks which. What is accepted
// must print back to text that parses to the same network, and its sizes must plan or be refused
// with one line; what is refused must be refused with one line (no crash, no second line).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "framework/model.hpp"
#include "fuzz_check.hpp"

using course::fuzz::check_message;
using course::fuzz::expect;

namespace {

std::string description_file() {
  static const std::string path = "/tmp/fuzz_model_text_" + std::to_string(::getpid()) + ".txt";
  return path;
}

framework::ModelSpec parse(uint8_t mode, const std::string& text) {
  if (mode % 3 == 0) return framework::model_from_text(text);
  if (mode % 3 == 1) {
    FILE* f = std::fopen(description_file().c_str(), "wb");
    expect(f != nullptr, "the fuzz target can write its @file");
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
    return framework::model_from_text("@" + description_file());
  }
  return framework::model_by_name(text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  framework::ModelSpec spec;
  try {
    spec = parse(data[0], text);
  } catch (const course::Error& e) {
    check_message(e, "");
    return 0;
  }
  // Accepted: its text is a layer list that parses back to the same network.
  const std::string printed = framework::model_text(spec);
  framework::ModelSpec again;
  try {
    again = framework::model_from_text(printed);
  } catch (const course::Error& e) {
    expect(false, "an accepted network prints as text that parses", printed + " -> " + e.what());
  }
  expect(framework::model_text(again) == printed, "the printed text parses to the same network", printed);
  // Its sizes on MNIST's images plan, or are refused with one line.
  spec.in_channels = 1, spec.height = 28, spec.width = 28, spec.classes = 10;
  try {
    const auto plan = framework::plan_layers(spec);
    expect(!plan.empty() && plan.back().out_size() == 10, "a planned network gives the classes");
    (void)framework::training_bytes(plan, 64);
  } catch (const course::Error& e) {
    check_message(e, "");
  }
  return 0;
}
