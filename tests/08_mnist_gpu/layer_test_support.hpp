#pragma once
// Shared by the tests of steps 08.1: one layer object of lesson 08 (the class train_mnist
// uses) on device buffers, compared with lesson 01's CPU layer in double (host_layers_ref, built
// from solutions). Lesson 01's own tests check those layers against finite differences in
// double, so these tests do not repeat that.
//
// What every layer test does:
//   * a LayerPlan made by lesson 02's plan_layers (the sizes the trainer gives the layer);
//   * seeded, non-uniform inputs for `batch` examples in buffers of max_batch examples whose
//     rows past the batch hold NaN: a pass that reads past its batch spreads NaN into its result;
//   * every buffer the pass writes filled with NaN (0xFF bytes) before EACH call: a value the
//     pass leaves unwritten, or adds to instead of overwriting, stays NaN and fails;
//   * afterwards the rows past the batch must still hold those 0xFF bytes (nothing written
//     there), the parameter gradients' guard zones too (mnist_gpu_test::poisoned);
//   * a PassLog observer: every pass opens with check_batch, which tells --profile it started.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/error.hpp"
#include "course_test.hpp"
#include "host_training.hpp"
#include "layer.hpp"
#include "mnist_gpu_test_support.hpp"

namespace layer_test {

using host_training::LayerPlan;

// The plan of one layer `layer` on inputs of in_c x height x width, as lesson 02's plan_layers
// makes it (a one-unit dense layer after it closes the model; only the first plan is kept).
inline LayerPlan plan_of(const host_training::LayerSpec& layer, int in_c, int height, int width) {
  host_training::ModelSpec spec;
  spec.name = "one layer";
  spec.in_channels = in_c, spec.height = height, spec.width = width, spec.classes = 1;
  spec.layers = {layer, host_training::dense_layer(1)};
  return host_training::plan_layers(spec).front();
}

// `rows` (the first examples' values) followed by NaN up to max_batch examples of per_example.
inline course::DeviceBuffer<float> upload_batch(const std::vector<float>& rows, size_t per_example, int max_batch) {
  std::vector<float> all(rows);
  all.resize(per_example * size_t(max_batch), std::numeric_limits<float>::quiet_NaN());
  return course::DeviceBuffer<float>(all);
}

// The same for labels: -1 past the batch.
inline course::DeviceBuffer<int> upload_labels(const std::vector<int>& labels, int max_batch) {
  std::vector<int> all(labels);
  all.resize(size_t(max_batch), -1);
  return course::DeviceBuffer<int>(all);
}

// Every byte 0xFF (NaN in every float) in `count` floats of a layer's own buffer.
inline void poison(const float* device, size_t count) {
  CUDA_CHECK(cudaMemset(const_cast<float*>(device), 0xFF, count * sizeof(float)));
}

// Waits for the GPU and downloads the first `batch` rows of a buffer of max_batch rows of
// per_example floats; the rows past the batch must still hold the poison (a pass writes its
// batch and nothing else).
inline std::vector<float> download_batch(const float* device, size_t per_example, int batch, int max_batch,
                                         const char* what) {
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> all(per_example * size_t(max_batch));
  CUDA_CHECK(cudaMemcpy(all.data(), device, all.size() * sizeof(float), cudaMemcpyDeviceToHost));
  const unsigned char* past = reinterpret_cast<const unsigned char*>(all.data() + per_example * size_t(batch));
  const size_t past_bytes = (all.size() - per_example * size_t(batch)) * sizeof(float);
  size_t touched = 0;
  for (size_t i = 0; i < past_bytes; ++i) touched += past[i] != 0xFF ? 1 : 0;
  INFO(what << ": " << touched << " bytes written in rows " << batch << ".." << max_batch - 1
            << ", past the batch of " << batch << " (the buffer holds max_batch = " << max_batch << " rows)");
  REQUIRE(touched == 0);
  all.resize(per_example * size_t(batch));
  return all;
}

// A parameter tensor in device memory: its value (uploaded, NaN after it) and its gradient
// (poisoned), each followed by mnist_gpu_test's guard zone, which no pass may touch.
struct DeviceParam {
  explicit DeviceParam(const std::vector<float>& v)
      : size(v.size()), value(mnist_gpu_test::poisoned<float>(v.size())), grad(mnist_gpu_test::poisoned<float>(v.size())) {
    if (!v.empty()) CUDA_CHECK(cudaMemcpy(value.data(), v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
  mnist_gpu::ParamView view() { return {value.data(), grad.data()}; }
  std::vector<float> downloaded_grad() const { return mnist_gpu_test::download_checked(grad, size); }
  size_t size;
  course::DeviceBuffer<float> value, grad;
};

// Records every pass an observed layer reports, as "<name> forward" / "<name> backward".
struct PassLog : mnist_gpu::PassObserver {
  void pass_starts(const std::string& who, bool backward) override {
    passes.push_back(who + (backward ? " backward" : " forward"));
  }
  std::vector<std::string> passes;
};

// Calls `pass`, which must throw course::Error naming the allowed range "outside 1..<max_batch>"
// (check_batch's message), not a TODO or any other error.
template <typename Pass>
void require_batch_rejected(Pass&& pass, int max_batch, const std::string& what) {
  std::string message = "(nothing thrown)";
  try {
    pass();
  } catch (const course::Error& e) {
    message = e.what();
  }
  const std::string expected = "outside 1.." + std::to_string(max_batch);
  INFO(what << ": expected course::Error with \"" << expected << "\", got: " << message);
  REQUIRE(message.find(expected) != std::string::npos);
}

}  // namespace layer_test
