#pragma once
// Pictures train() writes after the last epoch (given code, used by train.cpp only).
#include <string>

#include "host_training.hpp"

namespace host_training {

// The first conv layer's filters (blue negative, white 0, red positive), one tile each.
// Does nothing for a model without a conv layer.
void write_filters_png(const std::string& path, const HostNetwork& net);
// Up to `limit` test digits the network got wrong, each captioned "label>predicted".
void write_misclassified_png(const std::string& path, const course::Dataset& test, const Evaluation& eval,
                             int limit = 60);
// The confusion matrix as a heat map with counts; rows: true label, columns: predicted.
void write_confusion_png(const std::string& path, const Evaluation& eval, int classes);

}  // namespace host_training
