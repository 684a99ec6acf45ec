#pragma once
// What train_mnist draws besides lesson 02's pictures: what a trained GpuNetwork's layers hold
// (its --save files are lesson 02's save_npy, in PyTorch's layouts).
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
                            const framework::DeviceDataset& test_on_device, int example = 0);
// misclassified.png and confusion.png: the framework's (framework/run_pictures.hpp), fed with the GPU
// evaluation's predictions.

}  // namespace mnist_gpu
