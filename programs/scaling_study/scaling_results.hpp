#pragma once
// Lesson 11's scaling study (a program above the lessons): its results (scaling_study.cpp) as CSV rows, and the
// charts drawn from them. The CPU systems are measured on one machine, the GPU systems on another;
// each run writes its own CSV, and `lesson11_scaling_study --plot a.csv,b.csv` merges them into
// one table and four charts.
//
// CSV: one header line (kResultsHeader), then one row per (system, filters, batch):
//   system           one of study_systems()
//   machine          the CPU's model name (/proc/cpuinfo) or the GPU's name
//   threads          the CPU threads of a CPU system; empty for a GPU system
//   filters, batch   d of the network (conv 3x3 x d) and the minibatch size
//   images_timed     training images in the timed epoch (fewer than 60000 for a slow system)
//   seconds_timed    the training part of that epoch (evaluation not included)
//   seconds_per_epoch  seconds_timed scaled to an epoch of 60000 images
//   scaled_to_epoch  "yes" when fewer images were timed (seconds_per_epoch is then extrapolated)
//   test_images, test_accuracy  the test set evaluated after the timed epoch; accuracy in [0, 1]
//                    (empty when not measured)
//   setup            free text: what ran (which kernels, which precision)
// Fields holding a comma or a quote are quoted ("..."), a quote inside doubled.
#include <string>
#include <vector>

#include "course/chart.hpp"

namespace scaling_study {

constexpr int kEpochImages = 60000;  // an epoch of MNIST's training set

// The systems of the study, in the order tables and charts list them.
struct SystemInfo {
  std::string name;
  bool gpu = false;
  std::string description;  // for --help
};
const std::vector<SystemInfo>& study_systems();
// The system called `name`; throws course::Error naming the known ones otherwise.
const SystemInfo& system_info(const std::string& name);

struct Result {
  std::string system, machine;
  int threads = 0;  // 0: not a CPU run (empty in the CSV)
  int filters = 0, batch = 0;
  long images_timed = 0;
  double seconds_timed = 0, seconds_per_epoch = 0;
  bool scaled = false;
  long test_images = 0;
  double test_accuracy = -1;  // < 0: not measured (empty in the CSV)
  std::string setup;
};

extern const char* const kResultsHeader;

// seconds_timed scaled to kEpochImages images, and whether that is an extrapolation.
void set_epoch_figure(Result& r);

// The CSV text of `rows`, header first.
std::string results_csv(const std::vector<Result>& rows);
// Reads a CSV written by results_csv. Throws course::Error "<path>: ..." or "<path>:<line>: ..."
// for a missing or unreadable file, a wrong header, a row with the wrong number of fields, a
// number that does not parse or is out of range (filters, batch, images <= 0; seconds <= 0;
// accuracy outside [0, 1]), an unknown system, and a (system, filters, batch) given twice.
std::vector<Result> read_results(const std::string& path);
// The same checks on the text of such a file; `path` names it in the messages.
std::vector<Result> parse_results(const std::string& text, const std::string& path);
// The rows of every file, in order. Throws course::Error when two rows share system, filters and
// batch, or when one system was measured on two machines (one line a system in the charts).
std::vector<Result> merge_results(const std::vector<std::vector<Result>>& parts, const std::vector<std::string>& names);

// The four charts. Their sweeps: seconds per epoch against the batch at the largest filters of
// the rows, and against the filters at the largest batch (log-log, one line per system, the
// legend naming its machine); the speed-up of every GPU system over cpu-naive and over
// cpu-fast-all against the same two axes (log y). A chart with no point to draw is left out.
struct NamedChart {
  std::string file;  // e.g. "seconds_vs_batch.png"
  course::ChartSpec spec;
};
std::vector<NamedChart> study_charts(const std::vector<Result>& rows);

// A CPU or GPU name short enough for a legend: "(R)", "(TM)", "CPU" and the clock ("@ 2.60GHz")
// dropped, spaces collapsed, at most max_chars characters.
std::string short_machine_name(const std::string& machine, size_t max_chars = 28);

// A Markdown table of the rows (sorted by filters, batch, system's order) for a README.
std::string results_table(const std::vector<Result>& rows);

}  // namespace scaling_study
