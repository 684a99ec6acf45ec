#pragma once
// Line charts for the lessons' measurements (scaling studies, speed-ups), drawn with the course's
// own PNG code: axes with ticks and labels, linear or log scale on each, one coloured line with
// markers per series, dashed reference lines, and a legend under the plot.
#include <string>
#include <utility>
#include <vector>

#include "course/png.hpp"

namespace course {

struct ChartSeries {
  std::string label;
  std::vector<double> x, y;  // same length; points are joined in this order
};

struct ChartSpec {
  std::string title, x_label, y_label;
  bool log_x = false, log_y = false;
  std::vector<ChartSeries> series;
  std::vector<std::pair<double, std::string>> y_lines;  // horizontal reference lines at y, labelled
  int width = 760, height = 440;                         // the plot area (axes and legend come around it)
};

// Series i is drawn in chart_color(i). Throws course::Error when there is no finite point, when
// x and y of a series differ in length, or when a log axis gets a value <= 0.
Image line_chart(const ChartSpec& spec);
Rgb chart_color(size_t i);
// Where a data point lands in line_chart's image (for tests): pixel column and row.
std::pair<int, int> chart_point(const ChartSpec& spec, double x, double y);

}  // namespace course
