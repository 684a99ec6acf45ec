#pragma once
// The course framework: where a run's files go, checked before the run does any work.
//
// --out holds metrics.csv and the pictures, --save the weights as .npy files. Before training:
//   - neither folder is a file that the other folder gets (its outputs, its run.txt), nor inside one
//     (--save OUT/run.txt, --out SAVE/test_logits.npy are refused);
//   - both folders are made and proved writable (a read-only mount is found now, not after an hour);
//   - every file the run will write there is a regular file or nothing that this user may replace
//     (course::check_output_path: a folder, a named pipe, a device or a symbolic link at one of the
//     names, or another user's file in a sticky folder, stops the run now);
//   - only when all of that holds, each folder's manifest (run.txt) from an earlier run is removed:
//     a refused run leaves the earlier run's files, run.txt too, as they were.
// After the run has written everything, finish() writes each folder's run.txt: the files of this run,
// with their sizes. A folder without run.txt holds the files of a run that did not finish (stopped,
// interrupted, out of disk), perhaps beside an earlier run's: they are not one run's set.
#include <string>
#include <vector>

#include "framework/model.hpp"

namespace framework {

class RunFiles {
 public:
  static constexpr const char* kManifest = "run.txt";

  // out_dir / save_dir: "" for none. out_names / save_names: the files the run may write there.
  // Throws course::Error naming the folder or file at fault.
  RunFiles(std::string out_dir, const std::vector<std::string>& out_names, std::string save_dir,
           const std::vector<std::string>& save_names);

  bool has_out() const { return !out_dir_.empty(); }
  bool has_save() const { return !save_dir_.empty(); }
  const std::string& out_dir() const { return out_dir_; }
  const std::string& save_dir() const { return save_dir_; }
  std::string out_path(const std::string& name) const;   // "" without --out
  std::string save_path(const std::string& name) const;  // "" without --save

  // After every file is written: run.txt in each folder lists what this run wrote there.
  void finish(const std::vector<std::string>& out_written, const std::vector<std::string>& save_written) const;

 private:
  std::string out_dir_, save_dir_;
};

// What --save writes for these parameters: "<name>.npy" for each, and test_logits.npy; with `more`
// (batch norm's running statistics), "<name>.npy" for each of them too.
std::vector<std::string> npy_names(const std::vector<Parameter>& params, const std::vector<Parameter>& more = {});
// "6 parameter tensors", or with running statistics among them (running_statistics of model.hpp)
// "24 parameter tensors, 8 running statistics": what a trainer says it saved.
std::string saved_tensors_text(const std::vector<Parameter>& tensors);

// --save: one <name>.npy per parameter in PyTorch's layouts (conv1.weight: O x I x kh x kw,
// fc1.weight: out x in, biases [out]) and test_logits.npy (count x classes), each written atomically
// (tools/pytorch_mnist.py --check-npy loads them by name).
void save_npy(const std::string& dir, const std::vector<Parameter>& params, const std::vector<float>& test_logits,
              int classes);

}  // namespace framework
