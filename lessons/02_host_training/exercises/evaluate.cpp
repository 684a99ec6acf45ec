// Lesson 02, step 02.5: loss, accuracy, confusion matrix and predictions over a whole data set.
#include <algorithm>

#include "course/error.hpp"
#include "host_training.hpp"

namespace host_training {

// TODO(02.5): walk `data` in order, `batch` examples at a time (the last batch may be smaller):
//   * net.forward(x of those examples, count, logits)  (the examples are contiguous: no gather);
//   * loss: host_layers::softmax_cross_entropy_forward gives the batch MEAN: add mean * count,
//     divide the sum by the number of examples at the end;
//   * prediction = index of the largest logit (the first one on ties: std::max_element);
//   * confusion[label * classes + prediction] += 1 (classes = net.spec().classes);
//   * accuracy = correct / examples (a fraction in [0, 1]); predictions[i] for every example.
Evaluation evaluate(HostNetwork& net, const course::Dataset& data, int batch) {
  (void)net, (void)data, (void)batch;
  course::todo("02.5", "evaluate");
}

}  // namespace host_training
