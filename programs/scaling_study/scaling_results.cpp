// Lesson 11's scaling study (a program above the lessons): its CSV rows and charts (scaling_results.hpp).
#include "scaling_results.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "course/csv.hpp"
#include "course/error.hpp"

namespace scaling_study {

const char* const kResultsHeader =
    "system,machine,threads,filters,batch,images_timed,seconds_timed,seconds_per_epoch,scaled_to_epoch,"
    "test_images,test_accuracy,setup";

const std::vector<SystemInfo>& study_systems() {
  static const std::vector<SystemInfo> systems = {
      {"cpu-naive", false, "the CPU trainer on lesson 01's loops, 1 thread"},
      {"cpu-fast-1", false, "the CPU trainer on lesson 11's layers, 1 thread"},
      {"cpu-fast-all", false, "the CPU trainer on lesson 11's layers, every core"},
      {"gpu-lesson08", true, "lesson 08's GPU trainer and kernels (train_mnist)"},
      {"gpu-fastest", true,
       "lesson 10's fastest: train_mixed --precision bf16 (BF16 convolutions, TF32 dense layers); "
       "lesson 09's FP32 kernels on a GPU without Tensor Cores for them"},
  };
  return systems;
}

const SystemInfo& system_info(const std::string& name) {
  std::string known;
  for (const SystemInfo& s : study_systems()) {
    if (s.name == name) return s;
    known += (known.empty() ? "" : ", ") + s.name;
  }
  throw course::Error("unknown system '" + name + "' (expected one of " + known + ")");
}

void set_epoch_figure(Result& r) {
  r.scaled = r.images_timed != kEpochImages;
  r.seconds_per_epoch = r.images_timed > 0 ? r.seconds_timed * kEpochImages / double(r.images_timed) : 0.0;
}

namespace {

std::string number(const char* format, double v) {
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

using course::csv_field;
using course::parse_csv_integer;
using course::parse_csv_number;

Result parse_row(const std::vector<std::string>& f) {
  Result r;
  r.system = system_info(f[0]).name;
  const bool gpu = system_info(f[0]).gpu;
  r.machine = f[1];
  if (r.machine.empty()) throw course::Error("machine is empty");
  if (gpu && !f[2].empty()) throw course::Error("threads must be empty for a GPU system, got '" + f[2] + "'");
  if (!gpu) r.threads = int(parse_csv_integer(f[2], "threads", 1, 1 << 20));
  r.filters = int(parse_csv_integer(f[3], "filters", 1, 1 << 20));
  r.batch = int(parse_csv_integer(f[4], "batch", 1, 1 << 30));
  r.images_timed = parse_csv_integer(f[5], "images_timed", 1, 1L << 40);
  r.seconds_timed = parse_csv_number(f[6], "seconds_timed", 0.0, 1e300, true);
  r.seconds_per_epoch = parse_csv_number(f[7], "seconds_per_epoch", 0.0, 1e300, true);
  if (f[8] != "yes" && f[8] != "no") throw course::Error("scaled_to_epoch must be yes or no, got '" + f[8] + "'");
  r.scaled = f[8] == "yes";
  r.test_images = f[9].empty() ? 0 : parse_csv_integer(f[9], "test_images", 0, 1L << 40);
  r.test_accuracy = f[10].empty() ? -1.0 : parse_csv_number(f[10], "test_accuracy", 0.0, 1.0, false);
  r.setup = f[11];
  return r;
}

// (system, filters, batch): what identifies a run.
using RunKey = std::tuple<std::string, int, int>;
RunKey key_of(const Result& r) { return {r.system, r.filters, r.batch}; }
std::string key_text(const Result& r) {
  return r.system + " with " + std::to_string(r.filters) + " filters at batch " + std::to_string(r.batch);
}

size_t system_order(const std::string& name) {
  const auto& systems = study_systems();
  for (size_t i = 0; i < systems.size(); ++i)
    if (systems[i].name == name) return i;
  return systems.size();
}

}  // namespace

std::string results_csv(const std::vector<Result>& rows) {
  std::string csv = std::string(kResultsHeader) + "\n";
  for (const Result& r : rows) {
    const std::vector<std::string> fields = {
        r.system,
        r.machine,
        r.threads > 0 ? std::to_string(r.threads) : "",
        std::to_string(r.filters),
        std::to_string(r.batch),
        std::to_string(r.images_timed),
        number("%.6g", r.seconds_timed),
        number("%.6g", r.seconds_per_epoch),
        r.scaled ? "yes" : "no",
        r.test_images > 0 ? std::to_string(r.test_images) : "",
        r.test_accuracy >= 0 ? number("%.4f", r.test_accuracy) : "",
        r.setup};
    for (size_t i = 0; i < fields.size(); ++i) csv += (i ? "," : "") + csv_field(fields[i]);
    csv += "\n";
  }
  return csv;
}

std::vector<Result> read_results(const std::string& path) {
  return parse_results(course::read_text_file(path, "a CSV file",
                                              "file not found (write it with lesson11_scaling_study --csv)"),
                       path);
}

std::vector<Result> parse_results(const std::string& text, const std::string& path) {
  std::vector<Result> rows;
  std::set<RunKey> seen;
  course::for_each_csv_row(text, path, kResultsHeader, "a scaling study CSV",
                           [&](const std::vector<std::string>& fields, int) {
                             Result r = parse_row(fields);
                             if (!seen.insert(key_of(r)).second) throw course::Error(key_text(r) + " appears twice");
                             rows.push_back(std::move(r));
                           });
  return rows;
}

std::vector<Result> merge_results(const std::vector<std::vector<Result>>& parts, const std::vector<std::string>& names) {
  std::vector<Result> all;
  std::map<RunKey, std::string> run_from;
  std::map<std::string, std::pair<std::string, std::string>> machine_of;  // system -> (machine, file)
  for (size_t p = 0; p < parts.size(); ++p) {
    const std::string name = p < names.size() ? names[p] : "input " + std::to_string(p + 1);
    for (const Result& r : parts[p]) {
      const auto [run, new_run] = run_from.emplace(key_of(r), name);
      if (!new_run) throw course::Error(key_text(r) + " is in both " + run->second + " and " + name + ": keep one");
      const auto [sys, new_system] = machine_of.emplace(r.system, std::make_pair(r.machine, name));
      if (!new_system && sys->second.first != r.machine)
        throw course::Error(r.system + " was measured on two machines ('" + sys->second.first + "' in " +
                            sys->second.second + ", '" + r.machine + "' in " + name +
                            "): a chart draws one line a system, give one machine's rows");
      all.push_back(r);
    }
  }
  return all;
}

std::string short_machine_name(const std::string& machine, size_t max_chars) {
  std::string s = machine;
  const size_t at = s.find(" @ ");
  if (at != std::string::npos) s.erase(at);  // the clock: "@ 2.60GHz"
  for (const char* noise : {"(R)", "(r)", "(TM)", "(tm)", "NVIDIA ", " Processor", " CPU"}) {
    for (size_t pos = s.find(noise); pos != std::string::npos; pos = s.find(noise)) s.erase(pos, std::string(noise).size());
  }
  // "64-Core", "8-Core": the core count says nothing here (the threads column does).
  std::istringstream words(s);
  std::string word, out;
  while (words >> word) {
    const size_t dash = word.find("-Core");
    if (dash != std::string::npos && dash > 0 && word.find_first_not_of("0123456789") == dash) continue;
    out += (out.empty() ? "" : " ") + word;
  }
  if (out.empty()) out = machine;
  if (out.size() > max_chars) out = out.substr(0, max_chars - 2) + "..";
  return out;
}

namespace {

struct Sweep {
  bool against_batch;  // x = batch at fixed filters, else x = filters at fixed batch
  int fixed;           // the filters (against_batch) or the batch
  std::string x_label, file_part, fixed_text;
  int x_of(const Result& r) const { return against_batch ? r.batch : r.filters; }
  bool on(const Result& r) const { return against_batch ? r.filters == fixed : r.batch == fixed; }
};

std::string series_label(const Result& r, bool scaled) {
  std::string label = r.system;
  if (r.system == "cpu-fast-all") label += ", " + std::to_string(r.threads) + (r.threads == 1 ? " thread" : " threads");
  return label + ": " + short_machine_name(r.machine, 24) + (scaled ? " (scaled)" : "");
}

void sort_points(course::ChartSeries& s) {
  std::vector<std::pair<double, double>> points;
  for (size_t i = 0; i < s.x.size(); ++i) points.push_back({s.x[i], s.y[i]});
  std::sort(points.begin(), points.end());
  s.x.clear(), s.y.clear();
  for (const auto& [x, y] : points) s.x.push_back(x), s.y.push_back(y);
}

course::ChartSpec base_chart(const std::string& title, const Sweep& sweep, const std::string& y_label) {
  course::ChartSpec c;
  c.title = title;
  c.x_label = sweep.x_label;
  c.y_label = y_label;
  c.width = 960, c.height = 480;  // room for legend entries of up to 60 characters (two a row)
  return c;
}

course::ChartSpec seconds_chart(const std::vector<Result>& rows, const Sweep& sweep) {
  course::ChartSpec c = base_chart("SECONDS PER EPOCH OF MNIST (60000 IMAGES) AGAINST " + sweep.file_part + ", " +
                                       sweep.fixed_text,
                                   sweep, "SECONDS PER EPOCH");
  c.log_x = c.log_y = true;
  for (const SystemInfo& system : study_systems()) {
    course::ChartSeries s;
    bool scaled = false;
    const Result* any = nullptr;
    for (const Result& r : rows) {
      if (r.system != system.name || !sweep.on(r)) continue;
      s.x.push_back(sweep.x_of(r)), s.y.push_back(r.seconds_per_epoch);
      scaled = scaled || r.scaled;
      any = &r;
    }
    if (!any) continue;
    s.label = series_label(*any, scaled);
    sort_points(s);
    c.series.push_back(std::move(s));
  }
  return c;
}

course::ChartSpec speedup_chart(const std::vector<Result>& rows, const Sweep& sweep) {
  std::map<std::pair<std::string, int>, const Result*> at;  // (system, x) -> row on the sweep
  for (const Result& r : rows)
    if (sweep.on(r)) at[{r.system, sweep.x_of(r)}] = &r;
  std::set<std::string> gpu_machines, cpu_machines;
  course::ChartSpec c = base_chart("", sweep, "SPEED-UP (CPU SECONDS / GPU SECONDS)");
  c.log_x = c.log_y = true;
  c.y_lines = {{1.0, "1X: AS FAST AS THE CPU"}};
  for (const SystemInfo& gpu : study_systems()) {
    if (!gpu.gpu) continue;
    for (const std::string& cpu : std::vector<std::string>{"cpu-naive", "cpu-fast-all"}) {
      course::ChartSeries s;
      bool scaled = false;
      for (const auto& [key, r] : at) {
        if (key.first != gpu.name) continue;
        const auto base = at.find({cpu, key.second});
        if (base == at.end()) continue;
        s.x.push_back(key.second), s.y.push_back(base->second->seconds_per_epoch / r->seconds_per_epoch);
        scaled = scaled || r->scaled || base->second->scaled;
        gpu_machines.insert(short_machine_name(r->machine, 24));
        cpu_machines.insert(short_machine_name(base->second->machine, 24));
      }
      if (s.x.empty()) continue;
      s.label = gpu.name + " over " + cpu + (scaled ? " (scaled)" : "");
      sort_points(s);
      c.series.push_back(std::move(s));
    }
  }
  auto joined = [](const std::set<std::string>& names) {
    std::string text;
    for (const std::string& n : names) text += (text.empty() ? "" : " + ") + n;
    return text;
  };
  c.title = "SPEED-UP AGAINST " + sweep.file_part + ", " + sweep.fixed_text + ": " + joined(gpu_machines) + " OVER " +
            joined(cpu_machines);
  return c;
}

}  // namespace

std::vector<NamedChart> study_charts(const std::vector<Result>& rows) {
  if (rows.empty()) return {};
  int max_filters = 0, max_batch = 0;
  for (const Result& r : rows) max_filters = std::max(max_filters, r.filters), max_batch = std::max(max_batch, r.batch);
  const Sweep by_batch{true, max_filters, "BATCH SIZE", "BATCH", std::to_string(max_filters) + " FILTERS"};
  const Sweep by_filters{false, max_batch, "FILTERS D (CONV 3X3)", "FILTERS", "BATCH " + std::to_string(max_batch)};
  std::vector<NamedChart> charts = {{"seconds_vs_batch.png", seconds_chart(rows, by_batch)},
                                    {"seconds_vs_filters.png", seconds_chart(rows, by_filters)},
                                    {"speedup_vs_batch.png", speedup_chart(rows, by_batch)},
                                    {"speedup_vs_filters.png", speedup_chart(rows, by_filters)}};
  charts.erase(std::remove_if(charts.begin(), charts.end(), [](const NamedChart& c) { return c.spec.series.empty(); }),
               charts.end());
  return charts;
}

std::string results_table(const std::vector<Result>& rows) {
  std::vector<const Result*> sorted;
  for (const Result& r : rows) sorted.push_back(&r);
  std::stable_sort(sorted.begin(), sorted.end(), [](const Result* a, const Result* b) {
    return std::make_tuple(a->filters, a->batch, system_order(a->system)) <
           std::make_tuple(b->filters, b->batch, system_order(b->system));
  });
  std::string table =
      "| filters | batch | system | machine | threads | images timed | seconds timed | seconds per epoch | test accuracy |\n"
      "|---:|---:|---|---|---:|---:|---:|---:|---:|\n";
  for (const Result* r : sorted) {
    table += "| " + std::to_string(r->filters) + " | " + std::to_string(r->batch) + " | " + r->system + " | " +
             r->machine + " | " + (r->threads > 0 ? std::to_string(r->threads) : "") + " | " +
             std::to_string(r->images_timed) + " | " + number("%.3f", r->seconds_timed) + " | " +
             number("%.3f", r->seconds_per_epoch) + (r->scaled ? " (scaled)" : "") + " | " +
             (r->test_accuracy >= 0 ? number("%.2f %%", 100 * r->test_accuracy) : "") + " |\n";
  }
  return table;
}

}  // namespace scaling_study
