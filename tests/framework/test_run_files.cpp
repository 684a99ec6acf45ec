// A run's output folders: checked before the run works (a folder, a pipe or a link at an output's
// name stops it at once), the earlier run's manifest removed, and run.txt written last listing what
// this run wrote.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../common/test_files.hpp"
#include "course/atomic_file.hpp"
#include "course/error.hpp"
#include "course_test.hpp"
#include "framework/run_files.hpp"

using course::test::contains;
using course::test::error_message;
using course::test::TempDir;

namespace {
std::string text_of(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST_CASE("run files: folders made, old manifest gone, new one lists this run's files", "[run_files]") {
  TempDir dir;
  const std::string out = dir.file("out/deeper"), save = dir.file("weights");
  std::filesystem::create_directories(out);
  course::write_file_atomically(out + "/run.txt", "finished long ago\n");
  course::write_file_atomically(out + "/confusion.png", "old picture");
  {
    framework::RunFiles files(out, {"metrics.csv", "confusion.png"}, save, {"conv1.w.npy", "test_logits.npy"});
    CHECK(std::filesystem::is_directory(save));
    CHECK_FALSE(std::filesystem::exists(out + "/run.txt"));  // the old set is no longer one run's
    CHECK(files.out_path("metrics.csv") == out + "/metrics.csv");
    CHECK(files.save_path("conv1.w.npy") == save + "/conv1.w.npy");
    course::write_file_atomically(files.out_path("metrics.csv"), "epoch\n1\n");
    course::write_file_atomically(files.save_path("conv1.w.npy"), std::string(300, 'n'));
    files.finish({"metrics.csv"}, {"conv1.w.npy"});
  }
  const std::string out_manifest = text_of(out + "/run.txt"), save_manifest = text_of(save + "/run.txt");
  INFO(out_manifest);
  INFO(save_manifest);
  CHECK(contains(out_manifest, "\nmetrics.csv 8 bytes\n"));
  CHECK_FALSE(contains(out_manifest, "confusion.png"));  // the old picture is not this run's
  CHECK(contains(out_manifest, "finished 20"));
  CHECK(contains(save_manifest, "\nconv1.w.npy 300 bytes\n"));
  CHECK_FALSE(contains(save_manifest, "metrics.csv"));

  // One folder for both: one manifest with every file.
  framework::RunFiles same(out, {"metrics.csv"}, out, {"conv1.w.npy"});
  course::write_file_atomically(out + "/conv1.w.npy", "x");
  same.finish({"metrics.csv"}, {"conv1.w.npy"});
  const std::string both = text_of(out + "/run.txt");
  CHECK(contains(both, "metrics.csv 8 bytes") );
  CHECK(contains(both, "conv1.w.npy 1 bytes"));
}

TEST_CASE("run files: an output that is not a regular file stops the run before it works", "[run_files]") {
  TempDir dir;
  const std::string out = dir.file("out");
  std::filesystem::create_directories(out + "/confusion.png");  // a folder where a picture will go
  std::string message = error_message([&] { framework::RunFiles(out, {"metrics.csv", "confusion.png"}, "", {}); });
  CHECK(contains(message, out + "/confusion.png: is a folder, not a regular file"));

  const std::string save = dir.file("save");
  std::filesystem::create_directories(save);
  REQUIRE(::mkfifo((save + "/test_logits.npy").c_str(), 0644) == 0);
  message = error_message([&] { framework::RunFiles("", {}, save, {"test_logits.npy"}); });
  CHECK(contains(message, save + "/test_logits.npy: is a named pipe (FIFO)"));

  REQUIRE(::symlink("/etc/hostname", (out + "/run.txt").c_str()) == 0);
  std::filesystem::remove(out + "/confusion.png");
  message = error_message([&] { framework::RunFiles(out, {"metrics.csv"}, "", {}); });
  CHECK(contains(message, out + "/run.txt: is a symbolic link"));
  CHECK(std::filesystem::is_symlink(out + "/run.txt"));  // left as it was

  // --save where --out writes metrics.csv: refused before either folder is made.
  message = error_message([&] { framework::RunFiles(dir.file("o"), {"metrics.csv"}, dir.file("o/metrics.csv"), {"w.npy"}); });
  CHECK(contains(message, "--save " + dir.file("o/metrics.csv") + ": is where --out writes metrics.csv"));
  CHECK_FALSE(std::filesystem::exists(dir.file("o")));

  // --save inside a regular file: the folder cannot be made.
  course::write_file_atomically(dir.file("a-file"), "x");
  message = error_message([&] { framework::RunFiles("", {}, dir.file("a-file/npy"), {"w.npy"}); });
  CHECK(contains(message, "cannot create the folder for --save"));
}

TEST_CASE("run files: the names --save writes", "[run_files]") {
  std::vector<framework::Parameter> params(2);
  params[0].name = "conv1.weight", params[1].name = "conv1.bias";
  CHECK(framework::npy_names(params) ==
        std::vector<std::string>{"conv1.weight.npy", "conv1.bias.npy", "test_logits.npy"});
}

TEST_CASE("run files: a refused run leaves an earlier run's files, run.txt too, byte for byte", "[run_files]") {
  TempDir dir;
  const std::string out = dir.file("o"), save = dir.file("o/npy");
  {
    framework::RunFiles files(out, {"metrics.csv"}, save, {"w.npy"});
    course::write_file_atomically(files.out_path("metrics.csv"), "epoch\n1\n");
    course::write_file_atomically(files.save_path("w.npy"), "weights");
    files.finish({"metrics.csv"}, {"w.npy"});
  }
  const std::string out_manifest = text_of(out + "/run.txt"), save_manifest = text_of(save + "/run.txt");
  course::write_file_atomically(dir.file("f"), "x\n");
  // --save names a file: the folder cannot be made. Checked before either manifest is touched.
  std::string message = error_message([&] { framework::RunFiles(out, {"metrics.csv"}, dir.file("f"), {"w.npy"}); });
  CHECK(contains(message, dir.file("f") + ": cannot create the folder for --save"));
  CHECK(text_of(out + "/run.txt") == out_manifest);
  // An output of --save that is not a regular file: the --out folder's manifest stays too.
  std::filesystem::create_directory(save + "/test_logits.npy");
  message = error_message([&] { framework::RunFiles(out, {"metrics.csv"}, save, {"w.npy", "test_logits.npy"}); });
  CHECK(contains(message, save + "/test_logits.npy: is a folder"));
  CHECK(text_of(out + "/run.txt") == out_manifest);
  CHECK(text_of(save + "/run.txt") == save_manifest);
  CHECK(text_of(out + "/metrics.csv") == "epoch\n1\n");
  // A refused run removes the folders it made for itself, and only those.
  message = error_message([&] { framework::RunFiles(dir.file("new/deeper"), {"metrics.csv"}, dir.file("f/npy"), {"w.npy"}); });
  CHECK(contains(message, "cannot create the folder for --save"));
  CHECK_FALSE(std::filesystem::exists(dir.file("new")));
}

TEST_CASE("run files: neither folder may be, or be inside, a file the other one gets", "[run_files]") {
  TempDir dir;
  const std::string out = dir.file("o"), save = dir.file("npy");
  std::filesystem::create_directories(out);
  course::write_file_atomically(out + "/run.txt", "an earlier run\n");
  const auto refused = [&](const std::string& o, const std::string& s) {
    const std::string message =
        error_message([&] { framework::RunFiles(o, {"metrics.csv", "confusion.png"}, s, {"w.npy", "test_logits.npy"}); });
    CHECK(text_of(out + "/run.txt") == "an earlier run\n");  // refused before anything was touched
    return message;
  };
  // --save where --out's run.txt goes: before, the run trained and then failed on its manifest.
  CHECK(contains(refused(out, out + "/run.txt"), "--save " + out + "/run.txt: is where --out writes run.txt"));
  CHECK(contains(refused(out, out + "/./run.txt/"), ": is where --out writes run.txt"));
  CHECK(contains(refused(out, out + "/metrics.csv/npy"),
                 "--save " + out + "/metrics.csv/npy: is inside " + out + "/metrics.csv, a file --out writes"));
  // --out where --save writes: its run.txt, a weight file, or inside one.
  CHECK(contains(refused(save + "/run.txt", save), "--out " + save + "/run.txt: is where --save writes run.txt"));
  CHECK(contains(refused(save + "/test_logits.npy", save), "is where --save writes test_logits.npy"));
  CHECK(contains(refused(save + "/w.npy/pictures", save), "is inside " + save + "/w.npy, a file --save writes"));
  CHECK_FALSE(std::filesystem::exists(save));
  CHECK_FALSE(std::filesystem::exists(out + "/metrics.csv"));
  // One folder for both, and --save in a folder of its own inside --out, stay allowed.
  framework::RunFiles same(out, {"metrics.csv"}, out, {"w.npy"});
  framework::RunFiles inside(out, {"metrics.csv"}, out + "/npy", {"w.npy"});
  CHECK(std::filesystem::is_directory(out + "/npy"));
}
