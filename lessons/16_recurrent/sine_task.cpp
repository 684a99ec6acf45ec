// Lesson 16 (given): the sine-wave sequences (sine_task.hpp).
#include "sine_task.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "course/error.hpp"
#include "course/rng.hpp"

namespace recurrent {

float sine_value(const SineSpec& spec, int offset, long t) {
  return float(std::sin(double(t + offset) / spec.period));
}

long chart_stride(const SineSpec& spec, long horizon) {
  const long longer = std::max(long(spec.length), horizon);
  return std::max(1L, std::min(longer / 250, long(spec.period) / 4));
}

namespace {

SineSet make_set(const SineSpec& spec, const std::vector<int>& offsets) {
  SineSet set;
  set.count = int(offsets.size());
  set.steps = spec.length - 1;
  set.offsets = offsets;
  set.inputs.resize(size_t(set.steps) * set.count);
  set.targets.resize(set.inputs.size());
  for (int t = 0; t < set.steps; ++t)
    for (int b = 0; b < set.count; ++b) {
      set.inputs[size_t(t) * set.count + b] = sine_value(spec, offsets[b], t);
      set.targets[size_t(t) * set.count + b] = sine_value(spec, offsets[b], t + 1);
    }
  return set;
}

}  // namespace

void slice_sequences(const SineSet& set, int begin, int end, SineSet& part) {
  part.count = end - begin, part.steps = set.steps;
  part.offsets.assign(set.offsets.begin() + begin, set.offsets.begin() + end);
  part.inputs.resize(size_t(part.steps) * part.count), part.targets.resize(part.inputs.size());
  for (int t = 0; t < set.steps; ++t)
    for (int b = 0; b < part.count; ++b) {
      part.inputs[size_t(t) * part.count + b] = set.inputs[size_t(t) * set.count + begin + b];
      part.targets[size_t(t) * part.count + b] = set.targets[size_t(t) * set.count + begin + b];
    }
}

SineData make_sine_data(const SineSpec& spec) {
  if (spec.test < 1 || spec.sequences <= spec.test)
    throw course::Error("sine data: " + std::to_string(spec.sequences) + " sequences with " +
                        std::to_string(spec.test) + " held out leave none to train on (or none to test)");
  if (spec.length < 3) throw course::Error("sine data: sequences of " + std::to_string(spec.length) +
                                           " values are too short (at least 3: two steps to predict)");
  if (spec.period < 1) throw course::Error("sine data: the period must be >= 1");
  course::Rng rng(spec.seed, 16);
  std::vector<int> offsets(size_t(spec.sequences));
  for (int& o : offsets) o = rng.uniform_int(8 * spec.period) - 4 * spec.period;
  SineData data;
  data.spec = spec;
  data.test = make_set(spec, std::vector<int>(offsets.begin(), offsets.begin() + spec.test));
  data.train = make_set(spec, std::vector<int>(offsets.begin() + spec.test, offsets.end()));
  return data;
}

}  // namespace recurrent
