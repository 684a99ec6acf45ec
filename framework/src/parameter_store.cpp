// The course framework: the ParameterStore, every parameter in one device buffer.
#include "framework/parameter_store.hpp"

#include <algorithm>
#include <string>

#include "course/arithmetic.hpp"
#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "course/tensor.hpp"

namespace framework {

ParameterStore::ParameterStore(const std::vector<Parameter>& params) {
  if (params.empty()) throw course::Error("ParameterStore: the network has no parameters");
  size_t total = 0;
  for (const Parameter& p : params) {
    if (p.value.size() != course::element_count(p.shape))
      throw course::Error("ParameterStore: parameter '" + p.name + "' has " + std::to_string(p.value.size()) +
                          " values for its shape");
    names_.push_back(p.name);
    shapes_.push_back(p.shape);
    offsets_.push_back(total);
    sizes_.push_back(p.value.size());
    total += course::round_up(p.value.size(), kAlignFloats);
  }
  // The padding between tensors must hold zeros (the optimizer runs over it): build the whole
  // host image of the buffer, zeros included, and upload it once.
  std::vector<float> host(total, 0.0f);
  for (size_t i = 0; i < params.size(); ++i)
    std::copy(params[i].value.begin(), params[i].value.end(), host.begin() + std::ptrdiff_t(offsets_[i]));
  values_ = course::DeviceBuffer<float>(host);
  grads_ = course::DeviceBuffer<float>(total);
  grads_.zero();
}

size_t ParameterStore::parameter_count() const {
  size_t n = 0;
  for (size_t s : sizes_) n += s;
  return n;
}

std::vector<Parameter> ParameterStore::download() const {
  const std::vector<float> values = values_.to_host(), grads = grads_.to_host();
  std::vector<Parameter> out(tensors());
  for (size_t i = 0; i < tensors(); ++i) {
    const auto first = std::ptrdiff_t(offsets_[i]), last = first + std::ptrdiff_t(sizes_[i]);
    out[i].name = names_[i];
    out[i].shape = shapes_[i];
    out[i].value.assign(values.begin() + first, values.begin() + last);
    out[i].grad.assign(grads.begin() + first, grads.begin() + last);
  }
  return out;
}

void ParameterStore::upload(const std::vector<Parameter>& params) {
  if (params.size() != tensors()) throw course::Error("ParameterStore::upload: wrong number of tensors");
  for (size_t i = 0; i < tensors(); ++i) {
    if (params[i].value.size() != sizes_[i])
      throw course::Error("ParameterStore::upload: parameter '" + params[i].name + "' has the wrong size");
    CUDA_CHECK(cudaMemcpy(value(i), params[i].value.data(), sizes_[i] * sizeof(float), cudaMemcpyHostToDevice));
  }
}

}  // namespace framework
