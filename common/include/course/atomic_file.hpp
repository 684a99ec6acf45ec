#pragma once
// Files written all or nothing: the bytes go to a temporary file in the same folder, every write,
// the flush to disk and the close are checked, and only then is it renamed over the final name.
// An interrupted run or a full disk leaves the old file (or none) under the final name, never a
// part of a new one. PNG pictures, metrics.csv and .npy files are all written this way.
#include <cstddef>
#include <string>

namespace course {

class AtomicFile {
 public:
  // Creates an empty temporary file next to `path` (the same folder, so the rename never crosses
  // file systems). Throws course::Error naming the folder when it is missing or not writable.
  explicit AtomicFile(std::string path);
  // Without commit(): removes the temporary file; whatever was under `path` stays as it was.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Appends bytes; throws course::Error naming `path` and the reason (e.g. "No space left on device").
  void write(const void* data, size_t size);
  void write(const std::string& text) { write(text.data(), text.size()); }
  // Flushes to disk, closes and renames over `path`; on failure throws and removes the temporary.
  void commit();

  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail(const std::string& what, int error_number);
  void discard() noexcept;

  std::string path_, temp_path_;
  int fd_ = -1;
  int slot_ = -1;  // where an interrupt finds temp_path_ (see install_interrupt_cleanup)
};

// From then on SIGINT, SIGTERM and SIGHUP first remove every AtomicFile's temporary file, then end
// the process as the signal would have: an interrupted run leaves no "<name>.tmp-..." behind.
// course::run_main calls it for every lesson program.
void install_interrupt_cleanup();

// The whole file at once through AtomicFile.
void write_file_atomically(const std::string& path, const void* data, size_t size);
inline void write_file_atomically(const std::string& path, const std::string& text) {
  write_file_atomically(path, text.data(), text.size());
}

// Creates the folder that will hold `path`, and its parents, when missing; throws course::Error
// naming the folder when it cannot.
void create_parent_folder(const std::string& path);
// Creates `folder` and its parents when missing (an output folder such as --out); throws
// course::Error "<folder>: cannot create the folder <why> (<reason>)" when it cannot.
void create_folder(const std::string& folder, const std::string& why);

}  // namespace course
