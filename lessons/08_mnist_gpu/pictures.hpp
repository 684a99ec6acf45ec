#pragma once
// What train_mnist writes besides metrics.csv (lesson 02's EpochLog): the pictures of a trained
// network, and with --save the parameters and test logits as .npy files in PyTorch's layouts.
#include <string>
#include <vector>

#include "course/idx.hpp"
#include "evaluation.hpp"
#include "network.hpp"

namespace mnist_gpu {

// filters.png: lesson 02's picture of the first layer's weights (a conv layer's filters, or a dense
// layer's first units drawn as images of the input); false (nothing written) when it has none.
bool write_filters_png(const std::string& path, const GpuNetwork& net);
// feature_maps.png: one test digit and the activations of every conv layer (after its ReLU)
// for it, one grey tile per channel. Runs a forward pass of that one digit.
void write_feature_maps_png(const std::string& path, GpuNetwork& net, const course::Dataset& test,
                            const DeviceDataset& test_on_device, int example = 0);
// misclassified.png and confusion.png: lesson 02's host_training::write_misclassified_png and
// write_confusion_png (training_pictures.hpp), fed with the GPU evaluation's predictions.

// One <name>.npy per parameter (conv1.weight: O x I x kh x kw, fc1.weight: out x in, biases [out])
// and test_logits.npy (count x classes), each written atomically by course::write_npy.
void save_npy(const std::string& dir, const GpuNetwork& net, const GpuEvaluation& eval, int classes);

}  // namespace mnist_gpu
