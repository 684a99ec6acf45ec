// chart_csv: a line chart (PNG) of some of a CSV's columns against one of them, drawn with the
// course's own chart code (course/chart.hpp). The tools that write tables as CSV draw them with it
// (tools/sine_table.py: lesson 16's time per epoch against the hidden size).
//
//   chart_csv --csv table.csv --x hidden --y cpu,steps,persistent --labels "CPU,16.2,16.3"
//             --scale 1000 --log-x --log-y --title "..." --out table.png
//
// Each --y column is a series; a row whose cell is empty has no point in that series. Every other
// cell must be a finite number (and above zero on a log axis): anything else is one line naming the
// file, the line and the column.
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "course/chart.hpp"
#include "course/cli.hpp"
#include "course/csv.hpp"
#include "course/error.hpp"
#include "course/main.hpp"
#include "course/png.hpp"

namespace {

std::vector<std::string> comma_list(const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    items.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  return course::run_main([&] {
    course::ArgParser args("chart_csv", "A line chart (PNG) of a CSV's columns against one of its columns.");
    args.add_string("--csv", "", "the table: a header line of column names, then rows of numbers");
    args.add_string("--x", "", "the column along the x axis");
    args.add_string("--y", "", "the columns to draw, comma-separated: a series each");
    args.add_string("--labels", "", "the series' names in the legend, comma-separated (default: the columns')");
    args.add_float("--scale", 1, 1e-30, 1e30, "every y value is multiplied by this (e.g. 1000: seconds to ms)");
    args.add_flag("--log-x", "a log scale along x");
    args.add_flag("--log-y", "a log scale along y");
    args.add_string("--title", "", "the chart's title");
    args.add_string("--x-label", "", "the x axis' label (default: the column's name)");
    args.add_string("--y-label", "", "the y axis' label");
    args.add_string("--out", "", "the PNG to write");
    if (!args.parse(argc, argv)) return 0;
    for (const char* needed : {"--csv", "--x", "--y", "--out"})
      if (args.get_string(needed).empty()) throw course::Error(std::string(needed) + " is needed (see --help)");

    const std::string path = args.get_string("--csv");
    const std::string text = course::read_text_file(path, "CSV file", "");
    const std::string header_line = text.substr(0, text.find('\n'));
    const std::string header = !header_line.empty() && header_line.back() == '\r'
                                   ? header_line.substr(0, header_line.size() - 1)
                                   : header_line;
    const std::vector<std::string> names = course::split_csv_line(header);
    std::map<std::string, size_t> column;
    for (size_t i = 0; i < names.size(); ++i) column[names[i]] = i;
    const auto index_of = [&](const std::string& name) {
      const auto found = column.find(name);
      if (found == column.end()) throw course::Error(path + ": no column '" + name + "' (the header: " + header + ")");
      return found->second;
    };

    course::ChartSpec chart;
    chart.title = args.get_string("--title");
    chart.x_label = args.given("--x-label") ? args.get_string("--x-label") : args.get_string("--x");
    chart.y_label = args.get_string("--y-label");
    chart.log_x = args.flag("--log-x"), chart.log_y = args.flag("--log-y");
    const size_t x_column = index_of(args.get_string("--x"));
    const std::vector<std::string> ys = comma_list(args.get_string("--y"));
    std::vector<std::string> labels = args.given("--labels") ? comma_list(args.get_string("--labels")) : ys;
    if (labels.size() != ys.size())
      throw course::Error("--labels names " + std::to_string(labels.size()) + " series, --y " +
                          std::to_string(ys.size()));
    std::vector<size_t> y_columns;
    for (size_t s = 0; s < ys.size(); ++s) {
      y_columns.push_back(index_of(ys[s]));
      chart.series.push_back({labels[s], {}, {}});
    }
    const double scale = args.get_float("--scale");
    // A cell's number: above zero on a log axis, finite on a linear one.
    const auto number = [](const std::string& cell, const std::string& name, bool log) {
      if (log) return course::parse_csv_number(cell, name, 0.0, HUGE_VAL, true);
      try {
        return course::parse_csv_number(cell, name, -HUGE_VAL, HUGE_VAL, false);
      } catch (const course::Error&) {
        throw course::Error(name + " must be a finite number, got '" + cell + "'");
      }
    };
    size_t points = 0;
    course::for_each_csv_row(text, path, header, "a table", [&](const std::vector<std::string>& fields, int) {
      const double x = number(fields[x_column], names[x_column], chart.log_x);
      for (size_t s = 0; s < ys.size(); ++s) {
        const std::string& cell = fields[y_columns[s]];
        if (cell.empty()) continue;
        const double y = number(cell, ys[s], chart.log_y) * scale;
        chart.series[s].x.push_back(x), chart.series[s].y.push_back(y);
        ++points;
      }
    });
    if (points == 0) throw course::Error(path + ": no row has a value to draw");
    const std::string out = args.get_string("--out");
    course::write_png(out, course::line_chart(chart));
    std::printf("wrote %s: %zu point(s) in %zu series\n", out.c_str(), points, ys.size());
    return 0;
  });
}
