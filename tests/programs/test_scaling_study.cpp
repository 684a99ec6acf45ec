// Lesson 11 (given code): the scaling study. Its network (lesson 02's "scaling-<d>"), its CSV and
// charts (scaling_results.hpp), and the program itself: --plot on CSVs written here, bad CSVs and
// bad flags refused with one line and a non-zero exit, and a tiny CPU sweep on IDX files written
// here (no MNIST needed).
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "course/device_info.hpp"
#include "course/idx.hpp"
#include "course/rng.hpp"
#include "course_test.hpp"
#include "host_training.hpp"
#include "scaling_results.hpp"

#ifndef SCALING_STUDY_PROGRAM
#error "SCALING_STUDY_PROGRAM (the path of lesson11_scaling_study) must be defined by CMake"
#endif

namespace fs = std::filesystem;
using scaling_study::Result;

namespace {

// The header as the CSV format documents it, written out here (not taken from the code under test).
const std::string kHeader =
    "system,machine,threads,filters,batch,images_timed,seconds_timed,seconds_per_epoch,scaled_to_epoch,"
    "test_images,test_accuracy,setup";

// A fresh, empty folder under the test's working directory (the build folder).
std::string fresh_folder(const std::string& name) {
  const fs::path dir = fs::path("out") / "test_11_scaling" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  REQUIRE(out.good());
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

struct Run {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs the program with `arguments` (already quoted for the shell).
Run run_program(const std::string& arguments) {
  const std::string command = std::string("'") + SCALING_STUDY_PROGRAM + "' " + arguments + " 2>&1";
  Run r;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) r.output.append(buffer, n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string quoted(const std::string& path) { return "'" + path + "'"; }

// Width and height from a PNG's IHDR chunk, after checking the signature; {0, 0} when not a PNG.
std::pair<int, int> png_size(const std::string& path) {
  const std::string bytes = read_text(path);
  const std::string signature = "\x89PNG\r\n\x1a\n";
  if (bytes.size() < 24 || bytes.compare(0, 8, signature) != 0 || bytes.compare(12, 4, "IHDR") != 0) return {0, 0};
  auto be32 = [&](size_t at) {
    int v = 0;
    for (size_t i = 0; i < 4; ++i) v = v * 256 + static_cast<unsigned char>(bytes[at + i]);
    return v;
  };
  return {be32(16), be32(20)};
}

// One CSV row, field by field as the format documents them.
std::string row(const std::string& system, const std::string& machine, const std::string& threads, int filters, int batch,
                double seconds_per_epoch) {
  char text[256];
  std::snprintf(text, sizeof text, "%s,%s,%s,%d,%d,60000,%g,%g,no,10000,0.9500,test row\n", system.c_str(),
                machine.c_str(), threads.c_str(), filters, batch, seconds_per_epoch, seconds_per_epoch);
  return text;
}

// The test's study: at batch 100 and 1000 with 256 filters, and 64 filters at batch 1000. Seconds
// per epoch chosen so that every speed-up is a round number.
struct Point {
  int filters, batch;
  double naive, fast1, fast_all, lesson08, fastest;
};
const std::vector<Point> kPoints = {
    {256, 100, 4000, 800, 500, 20, 10},
    {256, 1000, 3000, 600, 300, 6, 2},
    {64, 1000, 800, 160, 100, 4, 1},
};

void write_study_csvs(const std::string& cpu_csv, const std::string& gpu_csv) {
  std::string cpu = kHeader + "\n", gpu = kHeader + "\n";
  for (const Point& p : kPoints) {
    cpu += row("cpu-naive", "Intel(R) Xeon(R) CPU E5-2690 v4 @ 2.60GHz", "1", p.filters, p.batch, p.naive);
    cpu += row("cpu-fast-1", "Intel(R) Xeon(R) CPU E5-2690 v4 @ 2.60GHz", "1", p.filters, p.batch, p.fast1);
    cpu += row("cpu-fast-all", "Intel(R) Xeon(R) CPU E5-2690 v4 @ 2.60GHz", "2", p.filters, p.batch, p.fast_all);
    gpu += row("gpu-lesson08", "NVIDIA H100 80GB HBM3", "", p.filters, p.batch, p.lesson08);
    gpu += row("gpu-fastest", "NVIDIA H100 80GB HBM3", "", p.filters, p.batch, p.fastest);
  }
  write_text(cpu_csv, cpu);
  write_text(gpu_csv, gpu);
}

const course::ChartSeries* find_series(const course::ChartSpec& chart, const std::string& label) {
  for (const course::ChartSeries& s : chart.series)
    if (s.label == label) return &s;
  return nullptr;
}

// A data set of 28 x 28 images in MNIST's IDX files: class k has a bright bar on rows 2k+3..2k+5, on
// noise, so the network has something to learn. Labels cycle through the ten classes.
void write_idx_set(const std::string& dir, course::Split split, int count, uint64_t seed) {
  course::Rng rng(seed, 0);
  std::vector<uint8_t> pixels(size_t(count) * 28 * 28);
  std::vector<uint8_t> labels(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    const int label = i % 10;
    labels[size_t(i)] = uint8_t(label);
    uint8_t* image = pixels.data() + size_t(i) * 28 * 28;
    for (int p = 0; p < 28 * 28; ++p) image[p] = uint8_t(rng.uniform_int(60));
    for (int y = 2 * label + 3; y < 2 * label + 6; ++y)
      for (int x = 4; x < 24; ++x) image[y * 28 + x] = uint8_t(200 + rng.uniform_int(56));
  }
  course::write_idx(course::idx_images_path(dir, split), {count, 28, 28}, pixels);
  course::write_idx(course::idx_labels_path(dir, split), {count}, labels);
}

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

}  // namespace

TEST_CASE("the scaling network, the CSV format and the charts' numbers", "[11-scaling_results]") {
  SECTION("model_by_name(\"scaling-<d>\"): conv 3x3xd, no padding -> relu -> maxpool 2 -> dense 169d -> 10") {
    const host_training::ModelSpec spec = host_training::model_by_name("scaling-256");
    const std::vector<host_training::LayerPlan> plan = host_training::plan_layers(spec);
    REQUIRE(plan.size() == 4);
    CHECK(plan[0].spec.kind == host_training::LayerKind::conv);
    CHECK(plan[0].spec.pad == 0);
    CHECK(plan[0].spec.kernel == 3);
    CHECK((plan[0].out_c == 256 && plan[0].out_h == 26 && plan[0].out_w == 26));
    CHECK(plan[1].spec.kind == host_training::LayerKind::relu);
    CHECK((plan[2].spec.window == 2 && plan[2].spec.stride == 2 && plan[2].out_h == 13 && plan[2].out_w == 13));
    CHECK(plan[3].in_size() == 169u * 256u);
    CHECK(plan[3].out_size() == 10u);
    size_t count = 0;
    for (const host_training::Parameter& p : host_training::init_parameters(spec, 1)) count += p.value.size();
    CHECK(count == 256u * 9 + 256 + 10u * 169 * 256 + 10);  // conv weights and biases, dense weights and biases
    CHECK(host_training::model_by_name("scaling-4").layers[0].out == 4);
    for (const char* bad : {"scaling-0", "scaling-", "scaling-x", "scaling--4", "scaling-4096000", "scaling"}) {
      CAPTURE(bad);
      CHECK_THROWS_AS(host_training::model_by_name(bad), course::Error);
    }
    try {
      host_training::model_by_name("b");
      FAIL("model b was accepted");
    } catch (const course::Error& e) {
      CHECK(std::string(e.what()).find("scaling-<filters>") != std::string::npos);
    }
  }

  SECTION("the epoch figure: scaled to 60000 images, and marked when it is") {
    Result r;
    r.images_timed = 200, r.seconds_timed = 1.5;
    scaling_study::set_epoch_figure(r);
    CHECK(r.seconds_per_epoch == Approx(450.0));
    CHECK(r.scaled);
    r.images_timed = 60000, r.seconds_timed = 12.0;
    scaling_study::set_epoch_figure(r);
    CHECK(r.seconds_per_epoch == Approx(12.0));
    CHECK_FALSE(r.scaled);
  }

  SECTION("a CSV written and read back keeps every field; commas and quotes survive") {
    Result a;
    a.system = "cpu-fast-all", a.machine = "CPU \"X\", rev 2", a.threads = 3, a.filters = 17, a.batch = 33;
    a.images_timed = 600, a.seconds_timed = 2.25, a.test_images = 100, a.test_accuracy = 0.8125;
    a.setup = "threads, 3";
    scaling_study::set_epoch_figure(a);
    Result b;
    b.system = "gpu-fastest", b.machine = "NVIDIA H100 80GB HBM3", b.filters = 256, b.batch = 1000;
    b.images_timed = 60000, b.seconds_timed = 0.5;
    scaling_study::set_epoch_figure(b);
    const std::string dir = fresh_folder("round_trip");
    const std::string text = scaling_study::results_csv({a, b});
    CHECK(text.rfind(kHeader + "\n", 0) == 0);
    write_text(dir + "/r.csv", text);
    const std::vector<Result> back = scaling_study::read_results(dir + "/r.csv");
    REQUIRE(back.size() == 2);
    CHECK(back[0].system == "cpu-fast-all");
    CHECK(back[0].machine == "CPU \"X\", rev 2");
    CHECK(back[0].threads == 3);
    CHECK((back[0].filters == 17 && back[0].batch == 33 && back[0].images_timed == 600));
    CHECK(back[0].seconds_timed == Approx(2.25));
    CHECK(back[0].seconds_per_epoch == Approx(225.0));
    CHECK(back[0].scaled);
    CHECK(back[0].test_images == 100);
    CHECK(back[0].test_accuracy == Approx(0.8125));
    CHECK(back[0].setup == "threads, 3");
    CHECK(scaling_study::parse_results(text, "memory").size() == 2);
    CHECK(scaling_study::parse_results(kHeader + "\r\n", "memory").empty());  // a header alone: no rows
    CHECK_THROWS_AS(scaling_study::parse_results("", "memory"), course::Error);
    CHECK(back[1].threads == 0);  // a GPU row: no threads
    CHECK(back[1].test_accuracy < 0);  // not measured: empty
    CHECK_FALSE(back[1].scaled);
  }

  SECTION("machine names short enough for a legend") {
    CHECK(scaling_study::short_machine_name("Intel(R) Xeon(R) CPU E5-2690 v4 @ 2.60GHz") == "Intel Xeon E5-2690 v4");
    CHECK(scaling_study::short_machine_name("AMD EPYC 7763 64-Core Processor") == "AMD EPYC 7763");
    CHECK(scaling_study::short_machine_name("NVIDIA H100 80GB HBM3") == "H100 80GB HBM3");
    CHECK(scaling_study::short_machine_name("a very long machine name that goes on and on", 12).size() == 12);
  }

  SECTION("the charts: sweeps at the largest filters and the largest batch, speed-ups as ratios") {
    const std::string dir = fresh_folder("charts");
    write_study_csvs(dir + "/cpu.csv", dir + "/gpu.csv");
    const std::vector<Result> rows = scaling_study::merge_results(
        {scaling_study::read_results(dir + "/cpu.csv"), scaling_study::read_results(dir + "/gpu.csv")}, {"cpu", "gpu"});
    REQUIRE(rows.size() == 15);
    const std::vector<scaling_study::NamedChart> charts = scaling_study::study_charts(rows);
    REQUIRE(charts.size() == 4);
    auto chart = [&](const std::string& file) -> const course::ChartSpec& {
      for (const auto& c : charts)
        if (c.file == file) return c.spec;
      FAIL("no chart " << file);
      return charts.front().spec;
    };
    const course::ChartSpec& by_batch = chart("seconds_vs_batch.png");
    CHECK((by_batch.log_x && by_batch.log_y));
    REQUIRE(by_batch.series.size() == 5);
    const course::ChartSeries* naive = find_series(by_batch, "cpu-naive: Intel Xeon E5-2690 v4");
    REQUIRE(naive != nullptr);
    CHECK(naive->x == std::vector<double>{100, 1000});
    CHECK(naive->y == std::vector<double>{4000, 3000});
    REQUIRE(find_series(by_batch, "cpu-fast-all, 2 threads: Intel Xeon E5-2690 v4") != nullptr);
    REQUIRE(find_series(by_batch, "gpu-fastest: H100 80GB HBM3") != nullptr);

    const course::ChartSpec& by_filters = chart("seconds_vs_filters.png");
    const course::ChartSeries* fastest = find_series(by_filters, "gpu-fastest: H100 80GB HBM3");
    REQUIRE(fastest != nullptr);
    CHECK(fastest->x == std::vector<double>{64, 256});
    CHECK(fastest->y == std::vector<double>{1, 2});

    const course::ChartSpec& speedup_batch = chart("speedup_vs_batch.png");
    CHECK(speedup_batch.log_y);
    REQUIRE(speedup_batch.series.size() == 4);
    const course::ChartSeries* s = find_series(speedup_batch, "gpu-lesson08 over cpu-naive");
    REQUIRE(s != nullptr);
    CHECK(s->x == std::vector<double>{100, 1000});
    CHECK(s->y[0] == Approx(4000.0 / 20));
    CHECK(s->y[1] == Approx(3000.0 / 6));
    s = find_series(chart("speedup_vs_filters.png"), "gpu-fastest over cpu-fast-all");
    REQUIRE(s != nullptr);
    CHECK(s->x == std::vector<double>{64, 256});
    CHECK(s->y[0] == Approx(100.0 / 1));
    CHECK(s->y[1] == Approx(300.0 / 2));
  }
}

TEST_CASE("--plot merges CSVs into four charts; bad CSVs are refused with one line", "[11-scaling_plot]") {
  SECTION("two CSVs, every system: four PNGs of the expected size and the merged CSV") {
    const std::string dir = fresh_folder("plot");
    write_study_csvs(dir + "/cpu.csv", dir + "/gpu.csv");
    const Run r =
        run_program("--plot " + quoted(dir + "/cpu.csv," + dir + "/gpu.csv") + " --out " + quoted(dir + "/charts"));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    // line_chart's layout (course/chart.cpp): 90 + plot width + 24 wide, 44 + plot height + 64 tall,
    // plus 20 a legend row of two entries; the study's plot area is 960 x 480. The seconds charts
    // have 5 lines (3 legend rows), the speed-up charts 2 GPU systems x 2 baselines (2 rows).
    CHECK(png_size(dir + "/charts/seconds_vs_batch.png") == std::make_pair(1074, 648));
    CHECK(png_size(dir + "/charts/seconds_vs_filters.png") == std::make_pair(1074, 648));
    CHECK(png_size(dir + "/charts/speedup_vs_batch.png") == std::make_pair(1074, 628));
    CHECK(png_size(dir + "/charts/speedup_vs_filters.png") == std::make_pair(1074, 628));
    const std::vector<Result> merged = scaling_study::read_results(dir + "/charts/scaling_merged.csv");
    CHECK(merged.size() == 15);
    CHECK(r.output.find("| 256 | 1000 | gpu-fastest | NVIDIA H100 80GB HBM3 |") != std::string::npos);
    for (const auto& entry : fs::directory_iterator(dir + "/charts"))  // written whole: no temporary file left
      CHECK(entry.path().filename().string().find(".tmp") == std::string::npos);
  }

  SECTION("CPU rows only: the two seconds charts, and a note that the speed-ups need GPU rows") {
    const std::string dir = fresh_folder("plot_cpu_only");
    write_study_csvs(dir + "/cpu.csv", dir + "/gpu.csv");
    const Run r = run_program("--plot " + quoted(dir + "/cpu.csv") + " --out " + quoted(dir + "/charts"));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(png_size(dir + "/charts/seconds_vs_batch.png") == std::make_pair(1074, 628));  // 3 lines: 2 legend rows
    CHECK_FALSE(fs::exists(dir + "/charts/speedup_vs_batch.png"));
    CHECK(r.output.find("note: 2 of 4 charts drawn") != std::string::npos);
  }

  struct BadCsv {
    const char* name;
    std::string text;
    const char* message;  // a part of the one error line
  };
  const std::string good = row("cpu-naive", "CPU", "1", 256, 100, 50);
  const std::vector<BadCsv> cases = {
      {"empty", "", "the file is empty"},
      {"wrong_header", "system,machine,filters\n" + good, "not a scaling study CSV"},
      {"malformed_number", kHeader + "\ncpu-naive,CPU,1,256,100,60000,1.5x,1.5,no,10000,0.95,s\n",
       ":2: seconds_timed must be a number > 0"},
      {"negative_seconds", kHeader + "\n" + good + "cpu-fast-1,CPU,1,256,100,60000,-3,-3,no,10000,0.95,s\n",
       ":3: seconds_timed must be a number > 0"},
      {"unknown_system", kHeader + "\ntpu-v5,CPU,1,256,100,60000,1,1,no,10000,0.95,s\n", "unknown system 'tpu-v5'"},
      {"zero_filters", kHeader + "\ncpu-naive,CPU,1,0,100,60000,1,1,no,10000,0.95,s\n",
       "filters must be an integer in [1,"},
      {"negative_batch", kHeader + "\ncpu-naive,CPU,1,256,-100,60000,1,1,no,10000,0.95,s\n",
       "batch must be an integer in [1,"},
      {"fields_missing", kHeader + "\ncpu-naive,CPU,1,256,100\n", "5 fields, the header has 12"},
      {"accuracy_above_1", kHeader + "\ncpu-naive,CPU,1,256,100,60000,1,1,no,10000,95,s\n",
       "test_accuracy must be a number"},
      {"threads_on_gpu", kHeader + "\ngpu-fastest,GPU,4,256,100,60000,1,1,no,10000,0.95,s\n", "threads must be empty"},
      {"scaled_word", kHeader + "\ncpu-naive,CPU,1,256,100,60000,1,1,maybe,10000,0.95,s\n",
       "scaled_to_epoch must be yes or no"},
      {"open_quote", kHeader + "\ncpu-naive,\"CPU,1,256,100,60000,1,1,no,10000,0.95,s\n", "quoted field is not closed"},
      {"twice", kHeader + "\n" + good + good, "appears twice"},
  };
  for (const BadCsv& c : cases) {
    SECTION(std::string("refused: ") + c.name) {
      const std::string dir = fresh_folder(std::string("bad_") + c.name);
      write_text(dir + "/bad.csv", c.text);
      const Run r = run_program("--plot " + quoted(dir + "/bad.csv") + " --out " + quoted(dir + "/charts"));
      INFO(r.output);
      CHECK(r.exit_code != 0);
      CHECK(r.output.rfind("error: ", 0) == 0);
      CHECK(r.output.find("bad.csv") != std::string::npos);  // names the file
      CHECK(r.output.find(c.message) != std::string::npos);
      CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);  // one line
      CHECK_FALSE(fs::exists(dir + "/charts/seconds_vs_batch.png"));
    }
  }

  SECTION("refused: a missing file, and a run in two files") {
    const std::string dir = fresh_folder("bad_files");
    Run r = run_program("--plot " + quoted(dir + "/no_such.csv") + " --out " + quoted(dir + "/charts"));
    INFO(r.output);
    CHECK(r.exit_code != 0);
    CHECK(r.output.find("error: " + dir + "/no_such.csv: file not found") == 0);
    write_study_csvs(dir + "/cpu.csv", dir + "/gpu.csv");
    r = run_program("--plot " + quoted(dir + "/cpu.csv," + dir + "/cpu.csv") + " --out " + quoted(dir + "/charts"));
    INFO(r.output);
    CHECK(r.exit_code != 0);
    CHECK(r.output.find("is in both") != std::string::npos);
  }
}

TEST_CASE("bad flags are refused before any run; a tiny CPU sweep writes its rows", "[11-scaling_cpu_run]") {
  const std::string dir = fresh_folder("cpu_run");
  SECTION("bad flags: one line, non-zero exit, no CSV") {
    struct BadFlags {
      std::string arguments;
      std::string message;
    };
    std::vector<BadFlags> cases = {
        {"--systems cpu-naive,tpu-v5", "unknown system 'tpu-v5'"},
        {"--systems cpu-naive --filters-list 0", "--filters-list must be a comma list of integers in [1, 4096]"},
        {"--systems cpu-naive --filters-list 32,x", "--filters-list must be a comma list"},
        {"--systems cpu-naive --batch-list 100,-1", "--batch-list must be a comma list of integers in [1, 60000]"},
        {"--systems cpu-naive --images 50 --batch-list 100", "fewer than the batch 100"},
        {"--systems cpu-naive --plot x.csv", "--plot draws the CSVs it is given and measures nothing"},
        {"--systems cpu-naive --lr 0", "--lr must be a number in"},
        {"--systems cpu-naive --filters-list 4 --batch-list 10 --images 20", "no mnist data set in"},
    };
    if (!course::gpu_available())
      cases.push_back({"--systems cpu-naive,gpu-lesson08", "system gpu-lesson08 needs a CUDA GPU"});
    for (const BadFlags& c : cases) {
      CAPTURE(c.arguments);
      const Run r = run_program(c.arguments + " --csv " + quoted(dir + "/bad.csv") + " --data " + quoted(dir + "/none"));
      INFO(r.output);
      CHECK(r.exit_code != 0);
      CHECK(r.output.rfind("error: ", 0) == 0);
      CHECK(r.output.find(c.message) != std::string::npos);
      CHECK_FALSE(fs::exists(dir + "/bad.csv"));
    }
  }

  SECTION("cpu-naive, cpu-fast-1 and cpu-fast-all at d = 4, batch 100 on 200 of 300 images") {
    const std::string data = dir + "/data";
    fs::create_directories(data);
    write_idx_set(data, course::Split::train, 300, 11);
    write_idx_set(data, course::Split::test, 100, 12);
    const std::string csv = dir + "/scaling.csv";
    const Run r = run_program("--systems cpu-naive,cpu-fast-1,cpu-fast-all --images 200 --test-images 100 "
                              "--filters-list 4 --batch-list 100 --data " + quoted(data) + " --csv " + quoted(csv));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    // Progress: a line before and after every run.
    CHECK(r.output.find("== [1/3] cpu-naive, 4 filters, batch 100") != std::string::npos);
    CHECK(r.output.find("-> [3/3] cpu-fast-all, 4 filters, batch 100") != std::string::npos);

    const std::string text = read_text(csv);
    REQUIRE(text.rfind(kHeader + "\n", 0) == 0);
    const std::vector<Result> rows = scaling_study::read_results(csv);
    REQUIRE(rows.size() == 3);
    const char* systems[] = {"cpu-naive", "cpu-fast-1", "cpu-fast-all"};
    const int threads[] = {1, 1, int(std::max(1u, std::thread::hardware_concurrency()))};
    for (size_t i = 0; i < rows.size(); ++i) {
      const Result& row = rows[i];
      CAPTURE(i, row.system);
      CHECK(row.system == systems[i]);
      CHECK(row.machine == cpu_model_name());
      CHECK(row.threads == threads[i]);
      CHECK(row.filters == 4);
      CHECK(row.batch == 100);
      CHECK(row.images_timed == 200);
      CHECK(row.seconds_timed > 0);
      CHECK(row.seconds_timed < 60);  // two steps of a 4-filter network
      // 200 images timed: an epoch of 60000 is 300 times as long (the CSV keeps 6 digits).
      CHECK(row.seconds_per_epoch == Approx(row.seconds_timed * 300).epsilon(1e-5));
      CHECK(row.scaled);
      CHECK(row.test_images == 100);
      CHECK((row.test_accuracy >= 0.0 && row.test_accuracy <= 1.0));
      CHECK(row.setup.find("momentum 0") != std::string::npos);
    }
    CHECK_FALSE(fs::exists(csv + ".partial"));  // a finished sweep leaves only its CSV

    // A rerun of 24 runs stopped by Ctrl-C once its first row is in: the finished sweep's CSV stays
    // whole, and the rows the rerun measured are in the .partial file beside it.
    const std::string command = std::string("'") + SCALING_STUDY_PROGRAM +
                                "' --systems cpu-naive,cpu-fast-1,cpu-fast-all --images 200 --test-images 100 "
                                "--filters-list 4,6,8,10,12,14,16,18 --batch-list 100 --data " + quoted(data) + " --csv " +
                                quoted(csv) +
                                " > " + quoted(dir + "/rerun.log") + " 2>&1 & pid=$!; "
                                "for i in $(seq 600); do grep -q '^-> \\[1/' " + quoted(dir + "/rerun.log") +
                                " && break; sleep 0.1; done; kill -INT $pid; wait $pid; echo \"status $?\"";
    FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    char buffer[256];
    std::string said;
    while (fgets(buffer, sizeof buffer, pipe)) said += buffer;
    pclose(pipe);
    INFO(said);
    INFO(read_text(dir + "/rerun.log"));
    CHECK(said.find("status 130") != std::string::npos);  // ended by SIGINT, as the shell reports it
    CHECK(scaling_study::read_results(csv).size() == 3);  // the finished sweep, untouched
    REQUIRE(fs::exists(csv + ".partial"));
    const std::vector<Result> measured = scaling_study::read_results(csv + ".partial");
    CHECK(measured.size() >= 1);
    CHECK(measured.size() < 24);
  }
}
