#pragma once
// Pictures train() writes after the last epoch (given code, used by train.cpp only).
#include <string>
#include <vector>

#include "host_training.hpp"

namespace host_training {

// The first conv layer's filters (blue negative, white 0, red positive), one tile each.
// Does nothing for a model without a conv layer.
void write_filters_png(const std::string& path, const HostNetwork& net);
// Up to `limit` test digits the network got wrong, each captioned "label>predicted".
// predictions: one per test example (plain vectors, so lesson 08's GPU evaluation can use these too).
void write_misclassified_png(const std::string& path, const course::Dataset& test,
                             const std::vector<int>& predictions, int limit = 60);
// The confusion matrix as a heat map with counts; rows: true label, columns: predicted.
// confusion: classes x classes counts.
void write_confusion_png(const std::string& path, const std::vector<int>& confusion, int classes);

}  // namespace host_training
