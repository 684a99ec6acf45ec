#include "training_data.hpp"

#include "course/error.hpp"

namespace host_training {

namespace {
std::string image_size(const course::Dataset& d) {
  return std::to_string(d.images.dim(2)) + "x" + std::to_string(d.images.dim(3)) +
         (d.images.dim(1) == 1 ? "" : " with " + std::to_string(d.images.dim(1)) + " channels");
}

std::string data_dir_of(const std::string& dataset, const std::string& data_dir) {
  if (!data_dir.empty()) return data_dir;
  return course::default_data_dir(dataset == "fashion" ? "fashion-mnist" : "mnist");
}

void require_dataset(const std::string& dataset, const std::string& dir) {
  if (!course::dataset_present(dir))
    throw course::Error("no " + dataset + " data set in " + dir + " (run " +
                        (dataset == "fashion" ? "data/fetch_fashion_mnist.sh" : "data/fetch_mnist.sh") +
                        ", or pass --data DIR)");
}

}  // namespace

TrainingData load_training_data(const TrainConfig& config) {
  if (config.dataset != "mnist" && config.dataset != "fashion")
    throw course::Error("unknown data set '" + config.dataset + "' (expected mnist or fashion)");
  if (config.train_limit < 0 || config.test_limit < 0) throw course::Error("train/test limits must not be negative");
  const std::string dir = data_dir_of(config.dataset, config.data_dir);
  require_dataset(config.dataset, dir);
  TrainingData data;
  data.dir = dir;
  data.train = course::load_dataset(dir, course::Split::train, config.train_limit);
  data.test = course::load_dataset(dir, course::Split::test, config.test_limit);
  if (data.train.count() == 0)
    throw course::Error(course::idx_images_path(dir, course::Split::train) + ": holds no images");
  if (data.test.count() == 0)
    throw course::Error(course::idx_images_path(dir, course::Split::test) + ": holds no images");
  for (int d = 1; d < 4; ++d)
    if (data.test.images.dim(d) != data.train.images.dim(d))
      throw course::Error(course::idx_images_path(dir, course::Split::test) + ": its images are " +
                          image_size(data.test) + ", the training images " + image_size(data.train) +
                          ": both splits must have one image size");
  return data;
}

ModelSpec model_for_data(const std::string& name, const TrainingData& data) {
  ModelSpec spec = model_by_name(name);
  spec.in_channels = data.train.images.dim(1);
  spec.height = data.train.images.dim(2);
  spec.width = data.train.images.dim(3);
  try {
    plan_layers(spec);  // throws when a layer does not fit the sizes before it
  } catch (const course::Error& e) {
    throw course::Error("the images in " + data.dir + " are " + image_size(data.train) + ": model " + name +
                        " cannot take them (" + e.what() + ")");
  }
  return spec;
}

}  // namespace host_training
