// Line charts (course/chart.hpp).
#include "course/chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "course/error.hpp"

namespace course {

namespace {

constexpr int kLeft = 90, kTop = 44, kRight = 24, kBottom = 64;  // margins around the plot area
constexpr Rgb kGrid{70, 70, 70};

struct Axis {
  bool log = false;
  double lo = 0, hi = 1;  // in plot units (log10 of the value on a log axis)
  double unit(double v) const { return log ? std::log10(v) : v; }
};

// The range of a set of values on an axis, padded by 5 % on each side.
Axis make_axis(std::vector<double> values, bool log, const char* which) {
  Axis a;
  a.log = log;
  std::vector<double> u;
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    if (log && v <= 0) throw Error(std::string("line_chart: a value <= 0 on the log ") + which + " axis");
    u.push_back(a.unit(v));
  }
  if (u.empty()) throw Error("line_chart: no finite point to draw");
  a.lo = *std::min_element(u.begin(), u.end()), a.hi = *std::max_element(u.begin(), u.end());
  if (a.hi - a.lo < 1e-12) a.lo -= 0.5, a.hi += 0.5;
  const double pad = 0.05 * (a.hi - a.lo);
  a.lo -= pad, a.hi += pad;
  return a;
}

struct Frame {
  Axis x, y;
  int width, height;
  int px(double v) const { return kLeft + int(std::lround((x.unit(v) - x.lo) / (x.hi - x.lo) * (width - 1))); }
  int py(double v) const { return kTop + height - 1 - int(std::lround((y.unit(v) - y.lo) / (y.hi - y.lo) * (height - 1))); }
};

Frame make_frame(const ChartSpec& spec) {
  std::vector<double> xs, ys;
  for (const ChartSeries& s : spec.series) {
    if (s.x.size() != s.y.size()) throw Error("line_chart: series '" + s.label + "' has x and y of different lengths");
    xs.insert(xs.end(), s.x.begin(), s.x.end());
    ys.insert(ys.end(), s.y.begin(), s.y.end());
  }
  for (const auto& line : spec.y_lines) ys.push_back(line.first);
  return {make_axis(xs, spec.log_x, "x"), make_axis(ys, spec.log_y, "y"), spec.width, spec.height};
}

// Tick values: on a log axis the powers of ten (with 2 and 5 between when there are few), on a
// linear one multiples of 1, 2 or 5 times a power of ten, about six of them.
std::vector<double> ticks(const Axis& a) {
  std::vector<double> out;
  if (a.log) {
    const int decades = int(std::ceil(a.hi - a.lo));
    const std::vector<double> steps = decades <= 2 ? std::vector<double>{1, 2, 5} : std::vector<double>{1};
    for (int e = int(std::floor(a.lo)); e <= int(std::ceil(a.hi)); ++e)
      for (double m : steps) {
        const double v = m * std::pow(10.0, e);
        if (std::log10(v) >= a.lo && std::log10(v) <= a.hi) out.push_back(v);
      }
    return out;
  }
  const double raw = (a.hi - a.lo) / 6, mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  for (double v = std::ceil(a.lo / step) * step; v <= a.hi; v += step) out.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
  return out;
}

std::string tick_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

void dot(Image& img, int x, int y, Rgb c, int r) {
  for (int dy = -r; dy <= r; ++dy)
    for (int dx = -r; dx <= r; ++dx)
      if (x + dx >= 0 && y + dy >= 0 && x + dx < img.width && y + dy < img.height) img.set(x + dx, y + dy, c);
}

// A line two pixels wide; dashed: every other stretch of 6 pixels left out.
void line(Image& img, int x0, int y0, int x1, int y1, Rgb c, bool dashed = false) {
  const int steps = std::max(std::abs(x1 - x0), std::abs(y1 - y0));
  for (int i = 0; i <= steps; ++i) {
    if (dashed && (i / 6) % 2 == 1) continue;
    const double t = steps == 0 ? 0 : double(i) / steps;
    dot(img, int(std::lround(x0 + t * (x1 - x0))), int(std::lround(y0 + t * (y1 - y0))), c, dashed ? 0 : 1);
  }
}

}  // namespace

Rgb chart_color(size_t i) {
  static const Rgb colors[] = {{86, 180, 233}, {230, 159, 0}, {0, 158, 115}, {240, 228, 66},
                               {204, 121, 167}, {213, 94, 0}, {0, 114, 178}, {200, 200, 200}};
  return colors[i % (sizeof colors / sizeof colors[0])];
}

std::pair<int, int> chart_point(const ChartSpec& spec, double x, double y) {
  const Frame f = make_frame(spec);
  return {f.px(x), f.py(y)};
}

Image line_chart(const ChartSpec& spec) {
  const Frame f = make_frame(spec);
  const int legend_rows = int(spec.series.size() + 1) / 2;
  Image img(kLeft + f.width + kRight, kTop + f.height + kBottom + legend_rows * 20, kPanelBackground);
  draw_text(img, kLeft, 12, spec.title, kPanelInk, 2);
  // Grid and tick labels.
  for (double v : ticks(f.x)) {
    const int x = f.px(v);
    line(img, x, kTop, x, kTop + f.height - 1, kGrid, true);
    const std::string t = tick_text(v);
    draw_text(img, x - text_width(t, 2) / 2, kTop + f.height + 8, t, kPanelInk, 2);
  }
  for (double v : ticks(f.y)) {
    const int y = f.py(v);
    line(img, kLeft, y, kLeft + f.width - 1, y, kGrid, true);
    const std::string t = tick_text(v);
    draw_text(img, kLeft - 8 - text_width(t, 2), y - 5, t, kPanelInk, 2);
  }
  // Axes and their labels.
  line(img, kLeft, kTop + f.height - 1, kLeft + f.width - 1, kTop + f.height - 1, kPanelInk);
  line(img, kLeft, kTop, kLeft, kTop + f.height - 1, kPanelInk);
  const std::string x_label = spec.x_label + (spec.log_x ? " (LOG)" : "");
  draw_text(img, kLeft + (f.width - text_width(x_label, 2)) / 2, kTop + f.height + 30, x_label, kPanelInk, 2);
  const std::string y_label = spec.y_label + (spec.log_y ? " (LOG)" : "");
  draw_text(img, 8, kTop - 16, y_label, kPanelInk, 2);
  // Reference lines, then the series on top.
  for (const auto& [value, label] : spec.y_lines) {
    const int y = f.py(value);
    line(img, kLeft, y, kLeft + f.width - 1, y, kPanelInk, true);
    draw_text(img, kLeft + f.width - 4 - text_width(label, 2), y - 14, label, kPanelInk, 2);
  }
  for (size_t i = 0; i < spec.series.size(); ++i) {
    const ChartSeries& s = spec.series[i];
    const Rgb c = chart_color(i);
    int last_x = -1, last_y = -1;
    for (size_t k = 0; k < s.x.size(); ++k) {
      if (!std::isfinite(s.x[k]) || !std::isfinite(s.y[k])) continue;
      const int x = f.px(s.x[k]), y = f.py(s.y[k]);
      if (last_x >= 0) line(img, last_x, last_y, x, y, c);
      dot(img, x, y, c, 3);
      last_x = x, last_y = y;
    }
    // Legend: two entries a row under the x label.
    const int lx = kLeft + int(i % 2) * (f.width / 2), ly = kTop + f.height + 54 + int(i / 2) * 20;
    img.fill_rect(lx, ly + 2, 14, 8, c);
    draw_text(img, lx + 20, ly, s.label, kPanelInk, 2);
  }
  return img;
}

}  // namespace course
