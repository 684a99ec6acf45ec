// The course framework: a run's output folders, checked first, with a manifest written last (run_files.hpp).
#include "framework/run_files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "course/atomic_file.hpp"
#include "course/error.hpp"
#include "course/npy.hpp"

namespace framework {

namespace {

void prepare_folder(const std::string& folder, const std::vector<std::string>& names, const char* why) {
  course::create_writable_folder(folder, why);
  for (const std::string& name : names) course::check_output_path(folder + "/" + name);
  const std::string manifest = folder + "/" + RunFiles::kManifest;
  course::check_output_path(manifest);
  if (::unlink(manifest.c_str()) != 0 && errno != ENOENT)
    throw course::Error(manifest + ": cannot remove the earlier run's manifest: " + std::strerror(errno));
}

std::string manifest_text(const std::string& folder, const std::vector<std::string>& names) {
  char when[32] = "";
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  if (gmtime_r(&now, &utc)) std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &utc);
  std::string text = "# one finished run: every file below was written by it (a run that stops early leaves\n"
                     "# no run.txt; files beside these are from another run)\n"
                     "finished " + std::string(when) + "\n";
  for (const std::string& name : names) {
    struct stat st;
    const std::string path = folder + "/" + name;
    if (::stat(path.c_str(), &st) != 0) throw course::Error(path + ": written, but not there any more");
    text += name + " " + std::to_string(static_cast<long long>(st.st_size)) + " bytes\n";
  }
  return text;
}

}  // namespace

RunFiles::RunFiles(std::string out_dir, const std::vector<std::string>& out_names, std::string save_dir,
                   const std::vector<std::string>& save_names)
    : out_dir_(std::move(out_dir)), save_dir_(std::move(save_dir)) {
  if (has_out() && has_save()) {  // --save where --out puts a file: refused before either folder is made
    std::error_code ec;
    const auto save = std::filesystem::weakly_canonical(save_dir_, ec);
    for (const std::string& name : out_names)
      if (!ec && std::filesystem::weakly_canonical(out_dir_ + "/" + name, ec) == save && !ec)
        throw course::Error("--save " + course::shown(save_dir_) + ": is where --out writes " + name +
                            "; give --save a folder of its own");
  }
  if (has_out()) prepare_folder(out_dir_, out_names, "for --out");
  if (has_save()) prepare_folder(save_dir_, save_names, "for --save");
}

std::string RunFiles::out_path(const std::string& name) const { return has_out() ? out_dir_ + "/" + name : ""; }
std::string RunFiles::save_path(const std::string& name) const { return has_save() ? save_dir_ + "/" + name : ""; }

void RunFiles::finish(const std::vector<std::string>& out_written, const std::vector<std::string>& save_written) const {
  // One folder for both: one manifest with every file.
  if (has_out() && has_save() && std::filesystem::equivalent(out_dir_, save_dir_)) {
    std::vector<std::string> all = out_written;
    all.insert(all.end(), save_written.begin(), save_written.end());
    course::write_file_atomically(out_path(kManifest), manifest_text(out_dir_, all));
    return;
  }
  if (has_save()) course::write_file_atomically(save_path(kManifest), manifest_text(save_dir_, save_written));
  if (has_out()) course::write_file_atomically(out_path(kManifest), manifest_text(out_dir_, out_written));
}

std::vector<std::string> npy_names(const std::vector<Parameter>& params, const std::vector<Parameter>& more) {
  std::vector<std::string> names;
  for (const Parameter& p : params) names.push_back(p.name + ".npy");
  for (const Parameter& p : more) names.push_back(p.name + ".npy");
  names.push_back("test_logits.npy");
  return names;
}

std::string saved_tensors_text(const std::vector<Parameter>& tensors) {
  size_t statistics = 0;
  for (const Parameter& p : tensors) statistics += p.name.find(".running_") != std::string::npos;
  std::string text = std::to_string(tensors.size() - statistics) + " parameter tensors";
  if (statistics > 0) text += ", " + std::to_string(statistics) + " running statistics";
  return text;
}

void save_npy(const std::string& dir, const std::vector<Parameter>& params, const std::vector<float>& test_logits,
              int classes) {
  course::create_folder(dir, "for --save");
  for (const Parameter& p : params) {
    const std::vector<size_t> shape(p.shape.begin(), p.shape.end());
    course::write_npy(dir + "/" + p.name + ".npy", p.value.data(), shape);
  }
  course::write_npy(dir + "/test_logits.npy", test_logits.data(), {test_logits.size() / size_t(classes), size_t(classes)});
}

}  // namespace framework
