#pragma once
// The course framework: where the data enters every trainer: both splits loaded and checked once,
// so that no later step can read a test image of another size than the network was built for.
#include <string>

#include "course/idx.hpp"
#include "framework/model.hpp"
#include "framework/train_config.hpp"

namespace framework {

struct TrainingData {
  std::string dir;  // the folder the data came from
  course::Dataset train, test;
  // What a network's last layer gives for an example: one logit a class (the course's sets have 10),
  // or another task's numbers (a box regression's 4 corners, its labels then hold the boxes).
  int outputs = 10;
};

// The one place a trainer's data folder is worked out and checked: config.data_dir, or when it is
// empty the built-in folder of config.dataset ("mnist" | "fashion" | "cifar10": data/mnist,
// data/fashion-mnist, data/cifar-10; the first two are IDX files, CIFAR-10 is its binary
// version's batch files, 3x32x32 colour images). Loads both splits
// (train_limit / test_limit > 0 keep the first examples) and checks what every later step relies
// on: the folder is one this user can read (else the message says what it is: a file, a dangling
// link, a folder without permission), it holds the set (else the message says how to fetch it), neither split is empty,
// and the test images have the training images' shape. Throws course::Error naming the folder or file.
TrainingData load_training_data(const TrainConfig& config);

// The model `name` sized for these images and data.outputs. A model whose layers do not fit the images (e.g. 1x1
// images through a 2x2 pool) is refused with a message about the data, not about a layer.
ModelSpec model_for_data(const std::string& name, const TrainingData& data);

}  // namespace framework
