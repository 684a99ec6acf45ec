#pragma once
// HostTensor: a float array in host memory with its dimensions.
// Images and feature maps are NCHW (batch, channels, height, width): element
// (n, c, h, w) sits at ((n*C + c)*H + h)*W + w. Matrices are row-major (rows, cols).
#include <cstddef>
#include <initializer_list>
#include <string>
#include <vector>

namespace course {

class HostTensor {
 public:
  HostTensor() = default;
  explicit HostTensor(std::vector<int> dims, float fill = 0.0f);
  HostTensor(std::initializer_list<int> dims, float fill = 0.0f)
      : HostTensor(std::vector<int>(dims), fill) {}

  const std::vector<int>& dims() const { return dims_; }
  int rank() const { return static_cast<int>(dims_.size()); }
  int dim(int i) const { return dims_.at(static_cast<size_t>(i)); }
  size_t size() const { return data_.size(); }
  size_t bytes() const { return data_.size() * sizeof(float); }
  std::string shape_string() const;  // e.g. "[64, 1, 28, 28]"

  float* data() { return data_.data(); }
  const float* data() const { return data_.data(); }
  std::vector<float>& vec() { return data_; }
  const std::vector<float>& vec() const { return data_; }
  float& operator[](size_t i) { return data_[i]; }
  float operator[](size_t i) const { return data_[i]; }

  // Bounds-checked element access for rank-2 (row, col) and rank-4 NCHW tensors.
  float& at(int row, int col);
  float at(int row, int col) const;
  float& at(int n, int c, int h, int w);
  float at(int n, int c, int h, int w) const;

  void fill(float value);
  // Same data, other dimensions with the same element count.
  void reshape(std::vector<int> dims);

 private:
  size_t offset(int row, int col) const;
  size_t offset(int n, int c, int h, int w) const;
  std::vector<int> dims_;
  std::vector<float> data_;
};

size_t element_count(const std::vector<int>& dims);

}  // namespace course
