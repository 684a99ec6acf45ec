#include "course/tensor.hpp"

#include <algorithm>
#include <sstream>

#include "course/error.hpp"

namespace course {

size_t element_count(const std::vector<int>& dims) {
  size_t n = 1;
  for (int d : dims) {
    if (d < 0) throw Error("HostTensor: negative dimension " + std::to_string(d));
    n *= static_cast<size_t>(d);
  }
  return n;
}

HostTensor::HostTensor(std::vector<int> dims, float fill)
    : dims_(std::move(dims)), data_(element_count(dims_), fill) {}

std::string HostTensor::shape_string() const {
  std::ostringstream s;
  s << '[';
  for (size_t i = 0; i < dims_.size(); ++i) s << (i ? ", " : "") << dims_[i];
  s << ']';
  return s.str();
}

size_t HostTensor::offset(int row, int col) const {
  if (rank() != 2 || row < 0 || row >= dims_[0] || col < 0 || col >= dims_[1])
    throw Error("HostTensor::at(" + std::to_string(row) + ", " + std::to_string(col) +
                ") out of range for shape " + shape_string());
  return static_cast<size_t>(row) * dims_[1] + col;
}

size_t HostTensor::offset(int n, int c, int h, int w) const {
  if (rank() != 4 || n < 0 || n >= dims_[0] || c < 0 || c >= dims_[1] || h < 0 || h >= dims_[2] ||
      w < 0 || w >= dims_[3])
    throw Error("HostTensor::at(" + std::to_string(n) + ", " + std::to_string(c) + ", " +
                std::to_string(h) + ", " + std::to_string(w) + ") out of range for shape " +
                shape_string());
  return ((static_cast<size_t>(n) * dims_[1] + c) * dims_[2] + h) * dims_[3] + w;
}

float& HostTensor::at(int row, int col) { return data_[offset(row, col)]; }
float HostTensor::at(int row, int col) const { return data_[offset(row, col)]; }
float& HostTensor::at(int n, int c, int h, int w) { return data_[offset(n, c, h, w)]; }
float HostTensor::at(int n, int c, int h, int w) const { return data_[offset(n, c, h, w)]; }

void HostTensor::fill(float value) { std::fill(data_.begin(), data_.end(), value); }

void HostTensor::reshape(std::vector<int> dims) {
  if (element_count(dims) != data_.size()) {
    HostTensor probe;
    probe.dims_ = dims;
    throw Error("HostTensor::reshape: " + shape_string() + " has " + std::to_string(data_.size()) +
                " elements, " + probe.shape_string() + " needs " +
                std::to_string(element_count(dims)));
  }
  dims_ = std::move(dims);
}

}  // namespace course
