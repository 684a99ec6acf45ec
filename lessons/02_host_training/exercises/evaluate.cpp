// Lesson 02, step 02.4: loss, accuracy, confusion matrix and predictions over a whole data set.
#include <algorithm>

#include "course/error.hpp"
#include "host_training.hpp"

namespace host_training {

// TODO(02.4): run net.forward over all of `data`, in order, at most `batch` examples at a time
// (the last batch may be smaller), and return (see Evaluation in host_training.hpp):
//   * loss: the mean softmax-cross-entropy over all EXAMPLES (not the mean of the batch means:
//     the last batch may be smaller); host_layers::softmax_cross_entropy_forward gives one
//     batch's mean;
//   * predictions[i] for every example: the index of its largest logit, the FIRST one on ties;
//   * confusion: classes x classes counts (classes = net.spec().classes), at
//     confusion[label * classes + prediction];
//   * accuracy: the fraction in [0, 1] of examples predicted right.
Evaluation evaluate(framework::HostModel& net, const course::Dataset& data, int batch) {
  (void)net, (void)data, (void)batch;
  course::todo("02.4", "evaluate");
}

}  // namespace host_training
