// Lesson 08 (given code): evaluation of a data set on the GPU.
#include "evaluation.hpp"

#include <algorithm>
#include <string>

#include "course/error.hpp"
#include "mnist_gpu.hpp"

namespace mnist_gpu {

GpuEvaluation evaluate_on_gpu(framework::DeviceNetwork& net, const framework::DeviceDataset& data) {
  const int n = data.count, classes = net.classes(), chunk = net.max_batch();
  if (size_t(data.per_example) != net.input_size())
    throw course::Error("evaluate: the data set's examples have " + std::to_string(data.per_example) +
                        " values, the network takes " + std::to_string(net.input_size()));
  GpuEvaluation result;
  result.confusion.assign(size_t(classes) * classes, 0);
  if (n == 0) return result;

  course::DeviceBuffer<float> logits(size_t(n) * classes);
  course::DeviceBuffer<int> predictions{size_t(n)}, counters{2};  // counters: correct, unused bad-step flag
  course::DeviceBuffer<double> loss_sum(1);
  loss_sum.zero();
  counters.upload(std::vector<int>{0, -1});
  for (int first = 0; first < n; first += chunk) {
    const int count = std::min(chunk, n - first);
    const float* x = data.images.data() + size_t(first) * data.per_example;  // in order: no gather
    const int* labels = data.labels.data() + first;
    net.forward_and_loss(x, labels, count);
    accumulate_loss(net.row_loss(), count, first / chunk + 1, loss_sum.data(), counters.data() + 1, net.stream());
    predict_and_count(net.logits(), labels, count, classes, predictions.data() + first, counters.data(),
                      net.stream());
    CUDA_CHECK(cudaMemcpyAsync(logits.data() + size_t(first) * classes, net.logits(),
                               size_t(count) * classes * sizeof(float), cudaMemcpyDeviceToDevice, net.stream()));
  }
  const std::vector<int> c = counters.to_host();  // waits for the GPU
  result.loss = loss_sum.to_host()[0] / n;
  result.accuracy = double(c[0]) / n;
  result.predictions = predictions.to_host();
  result.logits = logits.to_host();
  const std::vector<int> labels = data.labels.to_host();
  for (int i = 0; i < n; ++i) {
    const int p = result.predictions[size_t(i)], t = labels[size_t(i)];
    if (t >= 0 && t < classes && p >= 0 && p < classes) result.confusion[size_t(t) * classes + p] += 1;
  }
  return result;
}

}  // namespace mnist_gpu
