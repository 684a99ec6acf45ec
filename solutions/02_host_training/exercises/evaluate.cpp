// Lesson 02, step 02.4: loss, accuracy, confusion matrix and predictions over a whole data set.
#include <algorithm>
#include <string>

#include "course/error.hpp"
#include "host_training.hpp"

namespace host_training {

Evaluation evaluate(framework::HostModel& net, const course::Dataset& data, int batch) {
  if (batch <= 0) throw course::Error("evaluate: batch must be positive, got " + std::to_string(batch));
  const int classes = net.spec().classes;
  const int n = data.count();
  const size_t plane = n ? data.images.size() / size_t(n) : 0;
  Evaluation result;
  result.confusion.assign(size_t(classes) * classes, 0);
  result.predictions.resize(size_t(n));

  std::vector<float> logits(size_t(batch) * classes), probs(logits.size());
  double loss_sum = 0.0;
  int correct = 0;
  for (int first = 0; first < n; first += batch) {
    const int count = std::min(batch, n - first);
    const float* x = data.images.data() + size_t(first) * plane;  // examples in order: no gather needed
    const int* labels = data.labels.data() + first;
    net.forward(x, count, logits.data());
    // The layer returns the batch MEAN; weight by count so a smaller last batch counts right.
    loss_sum += double(host_layers::softmax_cross_entropy_forward(logits.data(), labels, probs.data(), count,
                                                                   classes)) * count;
    for (int j = 0; j < count; ++j) {
      if (labels[j] < 0 || labels[j] >= classes)
        throw course::Error("evaluate: label " + std::to_string(labels[j]) + " outside 0.." + std::to_string(classes - 1));
      const float* z = logits.data() + size_t(j) * classes;
      const int predicted = static_cast<int>(std::max_element(z, z + classes) - z);  // first maximum
      result.predictions[size_t(first + j)] = predicted;
      result.confusion[size_t(labels[j]) * classes + predicted] += 1;
      correct += predicted == labels[j];
    }
  }
  if (n > 0) {
    result.loss = loss_sum / n;
    result.accuracy = double(correct) / n;
  }
  return result;
}

}  // namespace host_training
