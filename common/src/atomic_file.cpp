#include "course/atomic_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <utility>

#include "course/error.hpp"

namespace course {

namespace {
std::string folder_of(const std::string& path) {
  const std::string folder = std::filesystem::path(path).parent_path().string();
  return folder.empty() ? "." : folder;
}

// The temporary files that exist right now, in plain arrays a signal handler may read: an
// interrupt (Ctrl-C) removes them before the process ends (install_interrupt_cleanup).
constexpr int kSlots = 32;
constexpr size_t kPathBytes = 4096;
char g_temp_paths[kSlots][kPathBytes];
std::atomic<bool> g_slot_used[kSlots];

int claim_slot() {
  for (int i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (g_slot_used[i].compare_exchange_strong(expected, true)) return i;
  }
  return -1;  // more than kSlots files at once: this one is simply not cleaned up on an interrupt
}
void set_slot(int slot, const std::string& temp_path) {
  if (slot < 0 || temp_path.empty()) return;
  const size_t n = std::min(temp_path.size(), kPathBytes - 1);
  // A handler may run between any two of these stores: it must see an empty name or a whole one.
  g_temp_paths[slot][0] = '\0';
  std::atomic_signal_fence(std::memory_order_seq_cst);
  std::memcpy(g_temp_paths[slot] + 1, temp_path.c_str() + 1, n - 1);
  g_temp_paths[slot][n] = '\0';
  std::atomic_signal_fence(std::memory_order_seq_cst);
  g_temp_paths[slot][0] = temp_path[0];
}
void release_slot(int slot) {
  if (slot < 0) return;
  g_temp_paths[slot][0] = '\0';
  std::atomic_signal_fence(std::memory_order_seq_cst);
  g_slot_used[slot] = false;
}

extern "C" void remove_temporaries_and_stop(int sig) {
  for (int i = 0; i < kSlots; ++i)
    if (g_slot_used[i] && g_temp_paths[i][0] != '\0') ::unlink(g_temp_paths[i]);  // async-signal-safe
  ::signal(sig, SIG_DFL);
  ::raise(sig);  // end the way the signal would have ended it (status 128 + sig in a shell)
}

// "<path>.tmp-<pid>-<n>": unique among processes and among files of one process, and its name
// says which file it would have become. Opened with O_EXCL and mode 0666 (less the umask), so the
// final file gets the permissions an ordinary new file gets. The name is in its slot before the
// file exists, so an interrupt at any moment finds it.
int open_temporary(const std::string& path, std::string& temp_path, int slot) {
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    temp_path = path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    set_slot(slot, temp_path);
    const int fd = ::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

// What is at `path`, when it is not a regular file ("" when it is one, or when nothing is there).
std::string not_a_file(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return "";
  if (S_ISREG(st.st_mode)) return "";
  if (S_ISDIR(st.st_mode)) return "a folder";
  if (S_ISLNK(st.st_mode)) return "a symbolic link";
  if (S_ISFIFO(st.st_mode)) return "a named pipe (FIFO)";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  if (S_ISCHR(st.st_mode)) return "a character device";
  if (S_ISBLK(st.st_mode)) return "a block device";
  return "not a regular file";
}

// Removes "<path>.tmp-<pid>-<n>" files whose process is gone: what a kill -9 or a power cut left.
// Once per path and process: a file rewritten every epoch does not scan its folder every epoch.
void remove_stale_temporaries(const std::string& path) {
  static std::mutex scanned_lock;
  static std::set<std::string> scanned;
  {
    std::lock_guard<std::mutex> lock(scanned_lock);
    if (!scanned.insert(path).second) return;
  }
  const std::filesystem::path target(path);
  const std::string folder = folder_of(path), prefix = target.filename().string() + ".tmp-";
  DIR* dir = ::opendir(folder.c_str());
  if (!dir) return;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rest = name.substr(prefix.size());  // "<pid>-<n>"
    const size_t dash = rest.find('-');
    if (dash == 0 || dash == std::string::npos || rest.find_first_not_of("0123456789-") != std::string::npos) continue;
    const long pid = std::strtol(rest.substr(0, dash).c_str(), nullptr, 10);
    if (pid <= 0 || pid == long(::getpid())) continue;
    if (::kill(pid_t(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    const std::string stale = folder + "/" + name;
    if (not_a_file(stale).empty()) ::unlink(stale.c_str());
  }
  ::closedir(dir);
}
}  // namespace

void check_output_path(const std::string& path) {
  const std::string what = not_a_file(path);
  if (what == "a symbolic link")
    throw Error(path + ": is a symbolic link: outputs replace only regular files (remove the link, or give the "
                       "path it points to)");
  if (!what.empty()) throw Error(path + ": is " + what + ", not a regular file: outputs replace only regular files");
  // In a sticky folder (mode +t, like /tmp) only the file's owner, the folder's owner or root may
  // rename over a file: the rename at the end of the write would fail, after the work.
  struct stat file, folder;
  if (::lstat(path.c_str(), &file) != 0 || ::stat(folder_of(path).c_str(), &folder) != 0) return;
  const uid_t me = ::geteuid();
  if (!(folder.st_mode & S_ISVTX) || me == 0 || file.st_uid == me || folder.st_uid == me) return;
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(folder.st_mode & 07777));
  throw Error(path + ": cannot be replaced: it belongs to another user (uid " + std::to_string(file.st_uid) +
              ") and its folder " + folder_of(path) + " is sticky (mode " + mode +
              ": there only a file's owner may replace it); remove it as its owner, or write elsewhere");
}

void install_interrupt_cleanup() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction action = {};
    action.sa_handler = remove_temporaries_and_stop;
    sigemptyset(&action.sa_mask);
    ::sigaction(sig, &action, nullptr);
  }
  ::signal(SIGXFSZ, SIG_IGN);  // past `ulimit -f`, write() fails with EFBIG: reported as a full disk
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  check_output_path(path_);
  remove_stale_temporaries(path_);
  slot_ = claim_slot();
  fd_ = open_temporary(path_, temp_path_, slot_);
  if (fd_ < 0) {
    const int error_number = errno;
    temp_path_.clear();  // nothing was created
    release_slot(slot_);
    slot_ = -1;
    const std::string folder = folder_of(path_);
    if (error_number == ENOENT)
      throw Error(path_ + ": cannot be opened for writing: the folder " + folder + " does not exist");
    throw Error(path_ + ": cannot be opened for writing in the folder " + folder + ": " + std::strerror(error_number));
  }
}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::discard() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_path_.empty()) ::unlink(temp_path_.c_str());
  temp_path_.clear();
  release_slot(slot_);
  slot_ = -1;
}

void AtomicFile::fail(const std::string& what, int error_number) {
  discard();
  throw Error(path_ + ": " + what + ": " + std::strerror(error_number));
}

void AtomicFile::write(const void* data, size_t size) {
  if (fd_ < 0) throw Error(path_ + ": written after it was committed");
  const char* bytes = static_cast<const char*>(data);
  while (size > 0) {  // write() may take only part of the bytes; the next call then reports why
    const ssize_t written = ::write(fd_, bytes, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) fail("write failed", written < 0 ? errno : EIO);
    bytes += written;
    size -= static_cast<size_t>(written);
  }
}

void AtomicFile::commit() {
  if (fd_ < 0) throw Error(path_ + ": committed twice");
  // A file system may accept write() and report a full disk only when the data reaches it: at
  // fsync or close. Both are checked before the new file may take the final name.
  if (::fsync(fd_) != 0) fail("write failed", errno);
  const int fd = std::exchange(fd_, -1);
  if (::close(fd) != 0) fail("write failed", errno);
  // rename() replaces the old file in one step: readers see the old file or the new one. (Flushing
  // the folder as well would also make the new name survive a power cut; a rerun covers that.)
  // What is at the name is looked at again: it may have changed while the file was written.
  if (!not_a_file(path_).empty()) {
    discard();
    check_output_path(path_);  // throws, saying what is there
  }
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) fail("cannot put the new file in its place", errno);
  temp_path_.clear();
  release_slot(slot_);
  slot_ = -1;
}

void write_file_atomically(const std::string& path, const void* data, size_t size) {
  AtomicFile file(path);
  file.write(data, size);
  file.commit();
}

void create_parent_folder(const std::string& path) {
  const auto folder = std::filesystem::path(path).parent_path();
  if (folder.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec)
    throw Error(path + ": cannot be opened for writing: the folder " + folder.string() + " cannot be created: " +
                ec.message());
}

void create_folder(const std::string& folder, const std::string& why) {
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (!ec) return;
  // "Not a directory" names no path: say which part of the path is something other than a folder.
  for (std::filesystem::path part = folder; !part.empty() && part.has_relative_path(); part = part.parent_path()) {
    struct stat st;
    if ((::stat(part.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) || ::lstat(part.c_str(), &st) != 0) continue;
    const std::string what = not_a_file(part.string());  // a dangling link is "a symbolic link"
    throw Error(folder + ": cannot create the folder " + why + ": " +
                (part == std::filesystem::path(folder) ? "it" : part.string()) + " is " +
                (what.empty() ? "a regular file" : what) + ", not a folder");
  }
  throw Error(folder + ": cannot create the folder " + why + " (" + ec.message() + ")");
}

void create_writable_folder(const std::string& folder, const std::string& why) {
  create_folder(folder, why);
  const std::string probe = folder + "/.write-test-" + std::to_string(::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) {
    const int error_number = errno;
    throw Error(folder + ": cannot write in the folder " + why + " (" + std::strerror(error_number) + ")");
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

}  // namespace course
