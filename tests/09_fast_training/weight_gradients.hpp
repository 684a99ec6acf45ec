#pragma once
// Lesson 09's tests: running a conv weight-gradient function the way every test does (outputs and
// workspace poisoned with NaN, the workspace exactly the size asked for: memcheck catches a write
// past it), and comparing two runs bit for bit.
#include <cstddef>
#include <vector>

#include "conv_cases.hpp"
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"

namespace course::test {

struct WeightGrads {
  std::vector<float> dW, dbias;
};

// run(x, dy, dW, dbias, workspace): the function under test, on device pointers.
template <class Run>
WeightGrads run_weight_gradient(const host_layers::ConvShape& s, const ConvInputs& in, size_t workspace_floats,
                                Run run) {
  course::DeviceBuffer<float> x(in.x), dy(in.dy), dW(s.weight_size()), db(s.out_channels), work(workspace_floats);
  dW.poison();
  db.poison();
  work.poison();
  run(x.data(), dy.data(), dW.data(), db.data(), work.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  return {dW.to_host(), db.to_host()};
}

// Values of dW and dbias whose bits differ between two runs (NaN != NaN: an unwritten one counts).
inline size_t bits_differing(const WeightGrads& a, const WeightGrads& b) {
  size_t differ = (a.dW.size() != b.dW.size()) + (a.dbias.size() != b.dbias.size());
  for (size_t i = 0; i < a.dW.size() && i < b.dW.size(); ++i) differ += !(a.dW[i] == b.dW[i]);
  for (size_t i = 0; i < a.dbias.size() && i < b.dbias.size(); ++i) differ += !(a.dbias[i] == b.dbias[i]);
  return differ;
}

}  // namespace course::test
