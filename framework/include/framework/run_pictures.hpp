#pragma once
// The course framework: the pictures of a finished run, drawn from plain numbers, so that every
// trainer (on the CPU or the GPU) draws the same ones.
#include <string>
#include <vector>

#include "course/idx.hpp"
#include "framework/model.hpp"

namespace framework {

// The first layer's weights (blue negative, white 0, red positive), one tile each: a conv layer's
// filters, or a dense layer's first units (at most 64), each drawn as an image of that layer's
// input (what the unit looks for: an MLP's "filters"). Writes nothing and returns false when the
// first layer has no weights (e.g. a network that starts with a pool). weights: the layer's
// weight tensor, name its name ("conv1.weight").
bool write_filters_png(const std::string& path, const LayerPlan& first, const std::string& name, const float* weights);
// "metrics.csv, filters.png, misclassified.png" from the names of the files written.
std::string file_list(const std::vector<std::string>& names);
// Up to `limit` test examples the network got wrong, each captioned "label>predicted".
// predictions: one per test example.
void write_misclassified_png(const std::string& path, const course::Dataset& test,
                             const std::vector<int>& predictions, int limit = 60);
// The confusion matrix as a heat map with counts; rows: true label, columns: predicted.
// confusion: classes x classes counts.
void write_confusion_png(const std::string& path, const std::vector<int>& confusion, int classes);

}  // namespace framework
