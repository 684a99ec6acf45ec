#pragma once
// Where the data enters a trainer (given code, used by lesson 02's train() and lesson 08's
// train_mnist): both splits loaded and checked once, so that no later step can read a test image
// of another size than the network was built for.
#include <string>

#include "course/idx.hpp"
#include "host_training.hpp"

namespace host_training {

// dataset "mnist" | "fashion"; data_dir empty: the built-in data folder of that set.
std::string data_dir_of(const std::string& dataset, const std::string& data_dir);

// Throws course::Error (saying how to fetch it) unless dir holds the four files of the data set.
void require_dataset(const std::string& dataset, const std::string& dir);

struct TrainingData {
  std::string dir;
  course::Dataset train, test;
};

// Loads both splits of the data set in dir (limits > 0 keep the first examples) and checks what
// every later step relies on: the folder holds the set, neither split is empty, and the test images
// have the training images' shape. Throws course::Error naming the folder or file.
TrainingData load_training_data(const std::string& dataset, const std::string& dir, int train_limit,
                                int test_limit);

// The model `name` sized for these images. A model whose layers do not fit the images (e.g. 1x1
// images through a 2x2 pool) is refused with a message about the data, not about a layer.
ModelSpec model_for_data(const std::string& name, const TrainingData& data);

}  // namespace host_training
