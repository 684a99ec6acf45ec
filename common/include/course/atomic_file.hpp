#pragma once
// Files written all or nothing: the bytes go to a temporary file in the same folder, every write,
// the flush to disk and the close are checked, and only then is it renamed over the final name.
// An interrupted run or a full disk leaves the old file (or none) under the final name, never a
// part of a new one. PNG pictures, metrics.csv and .npy files are all written this way.
//
// Only a regular file is ever replaced. Whatever else is at the final name (a folder, a named pipe,
// a socket, a device) is refused with course::Error saying what it is, before anything is written,
// and so is a symbolic link: a link may point anywhere (another user's file, a device), and replacing
// the link itself would break whoever made it. Remove it, or give the path it points to.
#include <cstddef>
#include <string>

namespace course {

class AtomicFile {
 public:
  // Creates an empty temporary file next to `path` (the same folder, so the rename never crosses
  // file systems). Throws course::Error naming the folder when it is missing or not writable, and
  // naming `path` when something other than a regular file is there (check_output_path). Removes
  // the temporary files of `path` that a process no longer running left (a kill -9, a power cut), the
  // first time this process writes `path`.
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
// SIGXFSZ (a file past `ulimit -f`) is ignored, so such a write fails with "File too large" and is
// reported like a full disk instead of killing the process. course::run_main calls it for every
// lesson program.
void install_interrupt_cleanup();

// Throws course::Error "<path>: is a <what>, not a regular file: ..." when something other than a
// regular file (or nothing) is at `path`: a folder, a symbolic link, a named pipe, a socket, a
// device; and "<path>: cannot be replaced: ..." when this user may not rename over the file there
// (another user's file in a sticky folder, mode 1777 like /tmp). A program checks its outputs with
// it before it starts work that the file would record.
void check_output_path(const std::string& path);

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
// create_folder, then proves a file can be made there (a read-only mount or a folder without write
// permission is found now, not after the work): throws course::Error naming the folder and why.
void create_writable_folder(const std::string& folder, const std::string& why);

}  // namespace course
