#pragma once
// The course framework: every parameter of the network in ONE device buffer, every gradient in a second one and the
// optimizer's state in a third, each tensor at the same offset in all of them. The optimizer
// then treats the network as one long vector: a single launch updates everything.
//
//   values  | conv1.weight |pad| conv1.bias |pad| conv2.weight | ... | fc2.bias |pad|
//   grads   | (same offsets)                                                     |
//   state   | SGD: velocity (same offsets); Adam: m, then v (each the same size) |
//
// Offsets are rounded up to a multiple of kAlignFloats, so every tensor starts on a 256-byte
// boundary (lesson 04's GEMMs use float4 loads only on 16-byte aligned pointers). The padding
// is zero in values, grads and state, and stays zero: SGD and Adam map a zero weight with a
// zero gradient and zero state to zero.
#include <cstddef>
#include <string>
#include <vector>

#include "course/device_buffer.hpp"
#include "framework/model.hpp"

namespace framework {

constexpr size_t kAlignFloats = 64;

class ParameterStore {
 public:
  // Uploads the values (e.g. host_training::init_parameters(spec, seed)); gradients start at 0.
  explicit ParameterStore(const std::vector<Parameter>& params);

  size_t tensors() const { return names_.size(); }
  const std::string& name(size_t i) const { return names_.at(i); }
  const std::vector<int>& shape(size_t i) const { return shapes_.at(i); }
  size_t offset(size_t i) const { return offsets_.at(i); }
  size_t size(size_t i) const { return sizes_.at(i); }
  size_t total() const { return values_.size(); }  // padding included
  size_t parameter_count() const;                  // padding excluded

  float* values() { return values_.data(); }
  float* grads() { return grads_.data(); }
  float* value(size_t i) { return values_.data() + offset(i); }
  float* grad(size_t i) { return grads_.data() + offset(i); }
  const float* value(size_t i) const { return values_.data() + offset(i); }

  // Downloads names, shapes, values and gradients (waits for the GPU): for tests and files.
  std::vector<Parameter> download() const;
  // Overwrites the values from a host copy with the same tensors (restores a snapshot).
  void upload(const std::vector<Parameter>& params);

 private:
  std::vector<std::string> names_;
  std::vector<std::vector<int>> shapes_;
  std::vector<size_t> offsets_, sizes_;
  course::DeviceBuffer<float> values_, grads_;
};

}  // namespace framework
