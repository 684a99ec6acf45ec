#pragma once
// What train_mnist writes: metrics.csv (a row per epoch), the pictures of a trained network,
// and with --save the parameters and test logits as .npy files in PyTorch's layouts.
#include <string>
#include <vector>

#include "course/idx.hpp"
#include "evaluation.hpp"
#include "network.hpp"

namespace mnist_gpu {

// metrics.csv: epoch,train_loss,train_accuracy,test_loss,test_accuracy,seconds. Each row is
// appended (and flushed) as its epoch ends, so an interrupted run keeps what it measured.
class MetricsCsv {
 public:
  explicit MetricsCsv(std::string path);
  void add(int epoch, double train_loss, double train_accuracy, double test_loss, double test_accuracy,
           double seconds);

 private:
  std::string path_;
};

// filters.png: the first conv layer's filters (blue negative, white 0, red positive).
void write_filters_png(const std::string& path, const GpuNetwork& net);
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
