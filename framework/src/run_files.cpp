// The course framework: a run's output folders, checked first, with a manifest written last (run_files.hpp).
#include "framework/run_files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "course/atomic_file.hpp"
#include "course/error.hpp"
#include "course/npy.hpp"

namespace framework {

namespace {

namespace fs = std::filesystem;

// The path as the file system resolves it ("o/../o/", and a link to o, are o), to compare outputs.
fs::path resolved(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(path, ec);
  if (ec) p = fs::absolute(path, ec).lexically_normal();
  if (!p.has_filename() && p.has_parent_path()) p = p.parent_path();  // "o/" is o
  return p;
}

// Whether `inner` is `outer` or a path inside it.
bool at_or_under(const fs::path& inner, const fs::path& outer) {
  auto part = inner.begin();
  for (const fs::path& name : outer) {
    if (part == inner.end() || *part != name) return false;
    ++part;
  }
  return true;
}

// One output folder (flag, dir) must be neither a file that the other folder of the run gets
// (its outputs and its run.txt) nor inside one: the run would fail there only after its work.
void refuse_overlap(const std::string& flag, const std::string& dir, const std::string& other_flag,
                    const std::string& other_dir, std::vector<std::string> other_names) {
  other_names.push_back(RunFiles::kManifest);
  const fs::path mine = resolved(dir), theirs = resolved(other_dir);
  for (const std::string& name : other_names) {
    const fs::path file = theirs / name;
    if (mine == file)
      throw course::Error(flag + " " + course::shown(dir) + ": is where " + other_flag + " writes " + name +
                          "; give " + flag + " a folder of its own");
    if (at_or_under(mine, file))
      throw course::Error(flag + " " + course::shown(dir) + ": is inside " + course::shown(other_dir + "/" + name) +
                          ", a file " + other_flag + " writes; give " + flag + " a folder of its own");
  }
}

// The folders of `folder`'s path that do not exist yet, the deepest first: what creating it makes.
std::vector<fs::path> missing_folders(const std::string& folder) {
  std::vector<fs::path> missing;
  std::error_code ec;
  for (fs::path p = fs::absolute(folder, ec).lexically_normal(); !ec && p.has_relative_path(); p = p.parent_path()) {
    if (!p.has_filename()) continue;  // "o/": its last part is empty
    std::error_code status_ec;  // set for a missing path too: only its type tells
    if (fs::symlink_status(p, status_ec).type() != fs::file_type::not_found) break;
    missing.push_back(p);
  }
  return missing;
}

// Makes the folder (recording what it made), proves it writable, and checks every output the run
// writes there and its manifest: that each can be replaced. Removes nothing.
void prepare_folder(const std::string& folder, const std::vector<std::string>& names, const char* why,
                    std::vector<fs::path>& made) {
  const std::vector<fs::path> missing = missing_folders(folder);
  course::create_writable_folder(folder, why);
  made.insert(made.end(), missing.begin(), missing.end());
  for (const std::string& name : names) course::check_output_path(folder + "/" + name);
  course::check_output_path(folder + "/" + RunFiles::kManifest);
}

void remove_manifest(const std::string& folder) {
  const std::string manifest = folder + "/" + RunFiles::kManifest;
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
  // First what needs no file system change: neither folder is a file the other one gets, or inside one.
  if (has_out() && has_save()) {
    refuse_overlap("--save", save_dir_, "--out", out_dir_, out_names);
    refuse_overlap("--out", out_dir_, "--save", save_dir_, save_names);
    if (resolved(out_dir_) == resolved(save_dir_))
      for (const std::string& name : out_names)
        for (const std::string& saved : save_names)
          if (name == saved)
            throw course::Error("--out and --save are one folder, " + course::shown(out_dir_) + ", and both write " +
                                name + "; give --save a folder of its own");
  }
  // Then every output of both folders is checked before anything is removed: a refused run leaves an
  // earlier run's files, its run.txt too, as they were, and no folder it made.
  std::vector<fs::path> made;
  try {
    if (has_out()) prepare_folder(out_dir_, out_names, "for --out", made);
    if (has_save()) prepare_folder(save_dir_, save_names, "for --save", made);
  } catch (const course::Error&) {
    // The deepest first (a folder inside another has the longer path); rmdir removes only empty ones.
    std::sort(made.begin(), made.end(), [](const fs::path& a, const fs::path& b) { return a.native().size() > b.native().size(); });
    for (const fs::path& folder : made) ::rmdir(folder.c_str());
    throw;
  }
  // Only now the earlier run's manifests go: from here on the folders do not hold one finished run.
  if (has_out()) remove_manifest(out_dir_);
  if (has_save()) remove_manifest(save_dir_);
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
