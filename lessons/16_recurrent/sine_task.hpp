#pragma once
// Lesson 16 (given): the sine-wave task of PyTorch's time_sequence_prediction example. Each sequence
// is sin((t + offset) / period) for t = 0 .. length-1, its offset a whole number drawn from
// [-4 period, 4 period): the same wave at random phases. The network reads a sequence one value at a
// time and predicts the next one; afterwards it runs on, fed its own predictions.
#include <cstdint>
#include <vector>

namespace recurrent {

struct SineSpec {
  int sequences = 100, length = 1000, period = 20;
  int test = 3;  // the first `test` sequences are held out (PyTorch's example: 3)
  uint64_t seed = 1;
};

// One set of sequences, time-major as lstm_forward reads them: inputs[t][b] = the sequence's value at
// t, targets[t][b] = its value at t + 1, for t < length - 1 (steps = length - 1).
struct SineSet {
  int count = 0, steps = 0;
  std::vector<float> inputs, targets;
  std::vector<int> offsets;  // each sequence's offset: its true continuation (sine_value)
};

struct SineData {
  SineSpec spec;
  SineSet train, test;
};

// Sequences [begin, end) of a set as a set of their own (time-major as well), into `part`.
void slice_sequences(const SineSet& set, int begin, int end, SineSet& part);

// Throws course::Error unless sequences > test >= 1, length >= 3 and period >= 1.
SineData make_sine_data(const SineSpec& spec);
// The true wave of a sequence with this offset at time t (t may run past the data's length).
float sine_value(const SineSpec& spec, int offset, long t);
// Every how many steps sine.png takes a point of its lines, for `horizon` steps of continuation:
// about 250 points for the longer of the data and the continuation, and at least 4 a period (fewer
// would draw another wave). So a line holds at most about (length + horizon) / stride + 1 points.
long chart_stride(const SineSpec& spec, long horizon);

}  // namespace recurrent
