// Files written all or nothing (course/atomic_file.hpp) and the writers built on it (PNG, .npy):
// a full disk, an unwritable or missing folder and a failed rename each throw course::Error naming
// the file and the reason, keep the old file under its name unchanged, and leave no temporary file.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "course/atomic_file.hpp"
#include "course/npy.hpp"
#include "course/png.hpp"
#include "child_process.hpp"
#include "course_test.hpp"
#include "test_files.hpp"

using course::test::contains;
using course::test::error_message;
using course::test::read_bytes;
using course::test::TempDir;
using course::test::write_bytes;

namespace {
// A full disk without root: Linux limits the size of the files a process writes (RLIMIT_FSIZE).
// With SIGXFSZ ignored, a write past the limit fails with EFBIG ("File too large") instead of
// killing the process. The limit holds for the whole process, so it wraps only the call tested.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &old_limit_) == 0);
    struct sigaction ignore = {};
    ignore.sa_handler = SIG_IGN;
    REQUIRE(::sigaction(SIGXFSZ, &ignore, &old_action_) == 0);
    rlimit lower = old_limit_;
    lower.rlim_cur = std::min(bytes, old_limit_.rlim_max);
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &lower) == 0);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &old_limit_);
    ::sigaction(SIGXFSZ, &old_action_, nullptr);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit old_limit_{};
  struct sigaction old_action_ {};
};

// The names in a folder, sorted: shows a temporary file left behind.
std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A picture whose PNG is far larger than 4 KiB: noise does not compress.
course::Image noisy_image(int side, uint32_t seed) {
  course::Image img(side, side);
  for (uint8_t& p : img.pixels) {
    seed = seed * 1664525u + 1013904223u;
    p = static_cast<uint8_t>(seed >> 24);
  }
  return img;
}

const char* kTooLarge = "File too large";  // strerror(EFBIG)

std::string text_of(const std::string& path) {
  const auto bytes = read_bytes(path);
  return std::string(bytes.begin(), bytes.end());
}

// Sets the process's umask for one test and puts the old one back.
class Umask {
 public:
  explicit Umask(mode_t mask) : old_(::umask(mask)) {}
  ~Umask() { ::umask(old_); }

 private:
  mode_t old_;
};
}  // namespace

// A failing /dev/full is not used: the temporary file is made in the target's folder, and /dev is
// not writable (and must not be written to as root). RLIMIT_FSIZE fails writes just as a full disk.

TEST_CASE("AtomicFile writes in pieces, replaces the old file, leaves nothing else", "[atomic_file]") {
  TempDir dir;
  const std::string path = dir.file("notes.txt");
  course::write_file_atomically(path, "old\n");
  CHECK(text_of(path) == "old\n");
  {
    course::AtomicFile file(path);
    file.write("new ");
    CHECK(text_of(path) == "old\n");  // nothing changes under the final name before commit()
    file.write("text\n", 5);
    file.write(nullptr, 0);
    file.commit();
    CHECK(contains(error_message([&] { file.write("late"); }), path));
  }
  CHECK(text_of(path) == "new text\n");
  CHECK(names_in(dir.path()) == std::vector<std::string>{"notes.txt"});

  // An ordinary new file's permissions (0666 less the umask), not a temporary file's 0600.
  Umask mask(022);
  course::write_file_atomically(dir.file("fresh.txt"), "x");
  struct stat info {};
  REQUIRE(::stat(dir.file("fresh.txt").c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0644);
}

TEST_CASE("AtomicFile on a full disk throws naming the file; the old file stays; no temporary", "[atomic_file]") {
  TempDir dir;
  const std::string path = dir.file("metrics.csv");
  const std::string old_text = "epoch,loss\n1,0.5\n";
  course::write_file_atomically(path, old_text);
  const std::string piece(3000, 'x');

  std::string message;
  {
    FileSizeLimit limit(4096);
    message = error_message([&] {
      course::AtomicFile file(path);
      file.write(piece);  // fits
      file.write(piece);  // crosses the limit: part of it is written, then EFBIG
      file.commit();
    });
  }
  INFO(message);
  CHECK(contains(message, path));
  CHECK(contains(message, "write failed"));
  CHECK(contains(message, kTooLarge));
  CHECK(text_of(path) == old_text);
  CHECK(names_in(dir.path()) == std::vector<std::string>{"metrics.csv"});

  // Nothing at all can be written: the same for a file that did not exist.
  {
    FileSizeLimit limit(0);
    CHECK(contains(error_message([&] { course::write_file_atomically(dir.file("new.csv"), "a,b\n"); }), kTooLarge));
  }
  CHECK(names_in(dir.path()) == std::vector<std::string>{"metrics.csv"});
}

TEST_CASE("AtomicFile dropped without commit() keeps the old file and removes its temporary", "[atomic_file]") {
  TempDir dir;
  const std::string path = dir.file("picture.png");
  course::write_file_atomically(path, "old picture");
  CHECK(contains(error_message([&] {
                   course::AtomicFile file(path);
                   file.write("half a pictu");
                   CHECK(names_in(dir.path()).size() == 2);  // the temporary sits next to the file
                   throw course::Error("the program failed between two writes");
                 }),
                 "between two writes"));
  CHECK(text_of(path) == "old picture");
  CHECK(names_in(dir.path()) == std::vector<std::string>{"picture.png"});
}

TEST_CASE("AtomicFile names the folder that is missing or not writable", "[atomic_file]") {
  TempDir dir;
  const std::string missing = dir.file("no_such_folder");
  std::string message = error_message([&] { course::write_file_atomically(missing + "/metrics.csv", "x"); });
  INFO(message);
  CHECK(contains(message, missing + "/metrics.csv"));
  CHECK(contains(message, "the folder " + missing + " does not exist"));
  CHECK(names_in(dir.path()).empty());

  // A folder under a file cannot be created; create_parent_folder names it.
  write_bytes(dir.file("a-file"), {1});
  message = error_message([&] { course::create_parent_folder(dir.file("a-file/sub/x.png")); });
  CHECK(contains(message, "the folder " + dir.file("a-file/sub") + " cannot be created"));
  course::create_parent_folder(dir.file("made/deeper/x.png"));
  CHECK(std::filesystem::is_directory(dir.file("made/deeper")));
  course::create_parent_folder("bare_name.png");  // the current folder: nothing to create

  // Permission bits do not stop root: the unwritable-folder case runs only for other users.
  if (::geteuid() == 0) {
    WARN("running as root: the unwritable-folder check is skipped (root writes into a 0555 folder)");
    return;
  }
  const std::string locked = dir.file("locked");
  std::filesystem::create_directory(locked);
  course::write_file_atomically(locked + "/old.csv", "old\n");
  REQUIRE(::chmod(locked.c_str(), 0555) == 0);
  message = error_message([&] { course::write_file_atomically(locked + "/old.csv", "new\n"); });
  ::chmod(locked.c_str(), 0755);  // so that TempDir can remove it
  CHECK(contains(message, locked + "/old.csv"));
  CHECK(contains(message, "in the folder " + locked));
  CHECK(contains(message, "Permission denied"));
  CHECK(text_of(locked + "/old.csv") == "old\n");
  CHECK(names_in(locked) == std::vector<std::string>{"old.csv"});
}

TEST_CASE("AtomicFile whose name is taken by a folder while it writes throws and leaves no temporary",
          "[atomic_file]") {
  TempDir dir;
  const std::string path = dir.file("taken");
  std::string message = error_message([&] {
    course::AtomicFile file(path);
    file.write("x");
    std::filesystem::create_directories(path + "/inside");  // the name is taken before the rename
    file.commit();
  });
  INFO(message);
  CHECK(contains(message, path + ": is a folder, not a regular file"));
  CHECK(names_in(dir.path()) == std::vector<std::string>{"taken"});
  CHECK(names_in(path) == std::vector<std::string>{"inside"});
}

TEST_CASE("write_png on a full disk throws naming the file and keeps the old picture", "[atomic_file]") {
  TempDir dir;
  const std::string path = dir.file("picture.png");
  course::write_png(path, course::Image(3, 2));
  const auto old_bytes = read_bytes(path);

  std::string message;
  {
    FileSizeLimit limit(4096);
    message = error_message([&] { course::write_png(path, noisy_image(200, 7)); });
  }
  INFO(message);
  CHECK(contains(message, path));
  CHECK(contains(message, kTooLarge));
  CHECK(read_bytes(path) == old_bytes);                       // the good picture survives
  CHECK(names_in(dir.path()) == std::vector<std::string>{"picture.png"});  // no temporary left

  // Without an old picture, none appears.
  {
    FileSizeLimit limit(4096);
    CHECK(contains(error_message([&] { course::write_png(dir.file("new.png"), noisy_image(200, 8)); }), kTooLarge));
  }
  CHECK(names_in(dir.path()) == std::vector<std::string>{"picture.png"});
}

TEST_CASE("write_npy on a full disk throws naming the file and keeps the old array", "[atomic_file]") {
  TempDir dir;
  const std::string path = dir.file("weights.npy");
  const std::vector<float> small = {1, 2, 3}, large(20000, 0.5f);
  course::write_npy(path, small.data(), {3});

  std::string message;
  {
    FileSizeLimit limit(4096);
    message = error_message([&] { course::write_npy(path, large.data(), {large.size()}); });
  }
  INFO(message);
  CHECK(contains(message, path));
  CHECK(contains(message, kTooLarge));
  CHECK(course::read_npy_float(path) == small);
  CHECK(names_in(dir.path()) == std::vector<std::string>{"weights.npy"});
}

TEST_CASE("write_png names the folder it cannot create", "[atomic_file]") {
  TempDir dir;
  write_bytes(dir.file("a-file"), {1, 2, 3});
  const std::string folder = dir.file("a-file/sub");  // under a file: cannot be a folder
  const std::string message = error_message([&] { course::write_png(folder + "/picture.png", course::Image(2, 2)); });
  INFO(message);
  CHECK(contains(message, folder));
  CHECK(contains(message, "Not a directory"));
}

TEST_CASE("an interrupt during a write leaves neither the file nor its temporary", "[atomic_file]") {
  TempDir dir;
  const std::string path = dir.file("picture.png");
  write_bytes(path, std::vector<uint8_t>{1, 2, 3});  // the good file from an earlier run
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {  // the child: a program (run_main installs this) interrupted mid-write
    course::install_interrupt_cleanup();
    course::AtomicFile file(path);
    file.write("half of a new picture");
    ::raise(SIGINT);
    ::_exit(3);  // not reached: SIGINT ends the child
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGINT);
  CHECK(names_in(dir.path()) == std::vector<std::string>{"picture.png"});  // no "picture.png.tmp-..." left
  CHECK(read_bytes(path) == std::vector<uint8_t>{1, 2, 3});  // the good file is untouched
}

TEST_CASE("only a regular file is replaced: a FIFO, a folder, a symbolic link, a device are refused",
          "[atomic_file]") {
  TempDir dir;
  // A named pipe: writing it would block or feed a reader; renaming over it destroys it.
  const std::string fifo = dir.file("p.csv");
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  std::string message = error_message([&] { course::write_file_atomically(fifo, "a,b\n"); });
  INFO(message);
  CHECK(contains(message, fifo + ": is a named pipe (FIFO), not a regular file"));
  struct stat st;
  REQUIRE(::lstat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));  // still the pipe

  // A folder where the file would go.
  const std::string folder = dir.file("confusion.png");
  std::filesystem::create_directory(folder);
  message = error_message([&] { course::write_file_atomically(folder, "png"); });
  CHECK(contains(message, folder + ": is a folder, not a regular file"));
  CHECK(std::filesystem::is_directory(folder));

  // A symbolic link: neither followed nor replaced; the file it points to keeps its bytes.
  const std::string target = dir.file("elsewhere.csv"), link = dir.file("metrics.csv");
  course::write_file_atomically(target, "theirs\n");
  REQUIRE(::symlink(target.c_str(), link.c_str()) == 0);
  message = error_message([&] { course::write_file_atomically(link, "mine\n"); });
  CHECK(contains(message, link + ": is a symbolic link"));
  CHECK(std::filesystem::is_symlink(link));
  CHECK(text_of(target) == "theirs\n");

  // A device: looked at, never opened.
  message = error_message([&] { course::check_output_path("/dev/null"); });
  CHECK(contains(message, "/dev/null: is a character device, not a regular file"));

  // Nothing was left beside them, and a regular file or nothing at all is fine.
  CHECK(names_in(dir.path()) == std::vector<std::string>{"confusion.png", "elsewhere.csv", "metrics.csv", "p.csv"});
  CHECK_NOTHROW(course::check_output_path(dir.file("new.csv")));
  CHECK_NOTHROW(course::check_output_path(target));
}

TEST_CASE("temporary files of a process that is gone are removed; a live one's stay", "[atomic_file]") {
  TempDir dir;
  const std::string path = dir.file("metrics.csv");
  const pid_t child = ::fork();  // a process that ends at once: its pid is then free
  REQUIRE(child >= 0);
  if (child == 0) ::_exit(0);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  const std::string stale = path + ".tmp-" + std::to_string(child) + "-0";
  const std::string live = path + ".tmp-" + std::to_string(::getppid()) + "-7";  // our parent runs
  const std::string other = dir.file("other.csv.tmp-" + std::to_string(child) + "-0");  // another file's
  write_bytes(stale, {1}), write_bytes(live, {2}), write_bytes(other, {3});
  course::write_file_atomically(path, "epoch\n");
  const std::vector<std::string> names = names_in(dir.path());
  INFO(names.size());
  CHECK(std::find(names.begin(), names.end(), "metrics.csv") != names.end());
  CHECK(std::find(names.begin(), names.end(), std::filesystem::path(stale).filename().string()) == names.end());
  CHECK(std::find(names.begin(), names.end(), std::filesystem::path(live).filename().string()) != names.end());
  CHECK(std::find(names.begin(), names.end(), std::filesystem::path(other).filename().string()) != names.end());
}

TEST_CASE("past ulimit -f a program reports the write instead of being killed, and leaves no temporary",
          "[atomic_file]") {
  TempDir dir;
  const std::string path = dir.file("weights.npy");
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {  // a program (run_main installs the handlers) under `ulimit -f 4`
    course::install_interrupt_cleanup();
    rlimit limit{4096, 4096};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(5);
    try {
      course::write_file_atomically(path, std::string(20000, 'w'));
    } catch (const course::Error& e) {
      ::_exit(contains(e.what(), "File too large") ? 3 : 4);
    }
    ::_exit(6);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK_FALSE(WIFSIGNALED(status));  // not killed by SIGXFSZ
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 3);
  CHECK(names_in(dir.path()).empty());
}

TEST_CASE("create_writable_folder makes the folder and proves it can be written", "[atomic_file]") {
  TempDir dir;
  course::create_writable_folder(dir.file("out/run1"), "for --out");
  CHECK(std::filesystem::is_directory(dir.file("out/run1")));
  CHECK(names_in(dir.file("out/run1")).empty());  // the probe is gone
  write_bytes(dir.file("a-file"), {1});
  const std::string message =
      error_message([&] { course::create_writable_folder(dir.file("a-file/sub"), "for --save"); });
  CHECK(contains(message, "cannot create the folder for --save: " + dir.file("a-file") + " is a regular file, not a folder"));
  CHECK(contains(error_message([&] { course::create_writable_folder(dir.file("a-file"), "for --save"); }),
                 dir.file("a-file") + ": cannot create the folder for --save: it is a regular file, not a folder"));
  if (::geteuid() == 0) {
    WARN("running as root: the unwritable-folder check is skipped (root writes into a 0555 folder)");
    return;
  }
  const std::string locked = dir.file("locked");
  std::filesystem::create_directory(locked);
  REQUIRE(::chmod(locked.c_str(), 0555) == 0);
  const std::string denied = error_message([&] { course::create_writable_folder(locked, "for --save"); });
  ::chmod(locked.c_str(), 0755);
  CHECK(contains(denied, locked + ": cannot write in the folder for --save (Permission denied)"));
  CHECK(names_in(locked).empty());
}

TEST_CASE("another user's file in a sticky folder is refused before the work, not at the rename", "[atomic_file]") {
  // Needs two users: as root the test makes the files and checks them as the user nobody.
  if (::geteuid() != 0) {
    WARN("not running as root: the sticky-folder check is skipped (it needs a file of another user)");
    return;
  }
  TempDir dir;
  REQUIRE(::chmod(dir.path().c_str(), 0755) == 0);  // nobody may pass through
  const std::string shared = dir.file("shared");
  std::filesystem::create_directory(shared);
  REQUIRE(::chmod(shared.c_str(), 01777) == 0);  // like /tmp: anyone writes, only owners rename
  const std::string theirs = shared + "/metrics.csv";
  write_bytes(theirs, {'o', 'l', 'd', '\n'});  // root's
  REQUIRE(::chmod(theirs.c_str(), 0666) == 0);  // writable by all, and still not replaceable by them
  // As nobody: the rename would fail (EPERM), so the check must refuse it first.
  const course::test::ChildResult child = course::test::run_in_child(course::test::become_nobody, [&] {
    const std::string temp = shared + "/probe";
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) ::_exit(11);
    ::close(fd);
    const bool rename_fails = ::rename(temp.c_str(), theirs.c_str()) != 0 && errno == EPERM;
    ::unlink(temp.c_str());
    if (!rename_fails) ::_exit(12);
    std::string message = error_message([&] { course::check_output_path(theirs); });
    message += "\n" + error_message([&] { course::write_file_atomically(theirs, "new\n"); });
    // Its own file there, and a new name, are fine.
    message += "\n" + error_message([&] { course::write_file_atomically(shared + "/mine.csv", "x\n"); });
    message += "\n" + error_message([&] { course::write_file_atomically(shared + "/mine.csv", "y\n"); });
    return message;
  });
  const std::string& message = child.text;
  REQUIRE(child.exit_code == 0);  // 10: no user nobody; 12: the folder did not stop the rename
  INFO(message);
  const std::string refusal = theirs + ": cannot be replaced: it belongs to another user (uid 0) and its folder " +
                              shared + " is sticky (mode 1777";
  CHECK(message.find(refusal) == 0);
  CHECK(message.find(refusal, 1) != std::string::npos);  // write_file_atomically refuses before it writes
  // nobody's own file: written, then replaced (two empty messages at the end)
  CHECK(message.size() > 2);
  CHECK(message.substr(message.size() - 2) == "\n\n");
  CHECK(text_of(theirs) == "old\n");
  CHECK(names_in(shared) == std::vector<std::string>{"metrics.csv", "mine.csv"});
}
