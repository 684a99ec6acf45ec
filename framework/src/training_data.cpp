#include "framework/training_data.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "course/cifar.hpp"
#include "course/error.hpp"
#include "course/main.hpp"

namespace framework {

namespace {
std::string image_size(const course::Dataset& d) {
  return std::to_string(d.images.dim(2)) + "x" + std::to_string(d.images.dim(3)) +
         (d.images.dim(1) == 1 ? "" : " with " + std::to_string(d.images.dim(1)) + " channels");
}

// The data sets a trainer knows: the name --dataset takes, the folder under data/ and the script
// that fetches it. MNIST and Fashion-MNIST are IDX files; CIFAR-10 is its binary version's batches.
struct KnownDataset {
  const char* name;
  const char* folder;
  const char* fetch_script;
  bool idx;
};
constexpr KnownDataset kKnownDatasets[] = {
    {"mnist", "mnist", "data/fetch_mnist.sh", true},
    {"fashion", "fashion-mnist", "data/fetch_fashion_mnist.sh", true},
    {"cifar10", "cifar-10", "data/fetch_cifar10.sh", false},
};

const KnownDataset& known_dataset(const std::string& name) {
  for (const KnownDataset& d : kKnownDatasets)
    if (name == d.name) return d;
  throw course::Error("unknown data set '" + name + "' (expected mnist, fashion or cifar10)");
}

// What keeps `dir` from being a data folder this user can read, "" when nothing does (a missing
// folder is "" too: the message then says how to fetch the set).
std::string folder_problem(const std::string& dir) {
  struct stat st;
  if (::lstat(dir.c_str(), &st) != 0) {
    if (errno == ENOENT) return "";
    if (errno == ENOTDIR) return "a part of its path is a file, not a folder";
    return std::string("it cannot be reached: ") + std::strerror(errno);
  }
  if (S_ISLNK(st.st_mode) && ::stat(dir.c_str(), &st) != 0) {
    const int error_number = errno;
    std::error_code ec;
    const std::string target = std::filesystem::read_symlink(dir, ec).string();
    const std::string link = "it is a symbolic link" + (ec ? std::string() : " to " + course::shown(target));
    if (error_number == ENOENT) return link + ", which does not exist (a dangling link)";
    return link + " that cannot be followed: " + std::strerror(error_number);
  }
  if (!S_ISDIR(st.st_mode))
    return S_ISREG(st.st_mode) ? "it is a regular file, not a folder" : "it is not a folder (a device, pipe or socket)";
  // Its files are opened by name: the folder must be searchable (x); listing it (r) is not needed.
  if (::faccessat(AT_FDCWD, dir.c_str(), X_OK, AT_EACCESS) != 0) {
    const int error_number = errno;
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return std::string("the folder cannot be read: ") + std::strerror(error_number) + " (its mode is " + mode +
           ", owner uid " + std::to_string(st.st_uid) + ")";
  }
  return "";
}

bool present(const KnownDataset& set, const std::string& dir) {
  return set.idx ? course::dataset_present(dir) : course::cifar10_present(dir);
}

course::Dataset load_split(const KnownDataset& set, const std::string& dir, course::Split split, int limit) {
  return set.idx ? course::load_dataset(dir, split, limit) : course::load_cifar10(dir, split, limit);
}

// The file a message about a split's images names: its image file, or its first batch.
std::string images_file(const KnownDataset& set, const std::string& dir, course::Split split) {
  return set.idx ? course::idx_images_path(dir, split) : course::cifar10_batch_paths(dir, split).front();
}

}  // namespace

TrainingData load_training_data(const TrainConfig& config) {
  const KnownDataset& set = known_dataset(config.dataset);
  if (config.train_limit < 0 || config.test_limit < 0) throw course::Error("train/test limits must not be negative");
  const std::string dir = config.data_dir.empty() ? course::default_data_dir(set.folder) : config.data_dir;
  const std::string problem = folder_problem(dir);
  if (!problem.empty())
    throw course::Error("no " + config.dataset + " data set in " + course::shown(dir) + ": " + problem +
                        "; pass --data DIR, the folder that holds the set's files");
  if (!present(set, dir))
    throw course::Error("no " + config.dataset + " data set in " + dir + " (run " + set.fetch_script +
                        ", or pass --data DIR)");
  TrainingData data;
  data.dir = dir;
  {
    const course::MemoryUse use("the training images of " + course::shown(dir));
    data.train = load_split(set, dir, course::Split::train, config.train_limit);
  }
  {
    const course::MemoryUse use("the test images of " + course::shown(dir));
    data.test = load_split(set, dir, course::Split::test, config.test_limit);
  }
  if (data.train.count() == 0)
    throw course::Error(images_file(set, dir, course::Split::train) + ": holds no images");
  if (data.test.count() == 0)
    throw course::Error(images_file(set, dir, course::Split::test) + ": holds no images");
  for (int d = 1; d < 4; ++d)
    if (data.test.images.dim(d) != data.train.images.dim(d))
      throw course::Error(images_file(set, dir, course::Split::test) + ": its images are " +
                          image_size(data.test) + ", the training images " + image_size(data.train) +
                          ": both splits must have one image size");
  return data;
}

ModelSpec model_for_data(const std::string& name, const TrainingData& data) {
  ModelSpec spec = model_by_name(name);
  spec.in_channels = data.train.images.dim(1);
  spec.height = data.train.images.dim(2);
  spec.width = data.train.images.dim(3);
  spec.classes = data.outputs;
  try {
    plan_layers(spec);  // throws when a layer does not fit the sizes before it
  } catch (const course::Error& e) {
    throw course::Error("the images in " + data.dir + " are " + image_size(data.train) + ": model " + name +
                        " cannot take them (" + e.what() + ")");
  }
  return spec;
}

}  // namespace framework
