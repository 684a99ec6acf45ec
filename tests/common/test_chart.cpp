// course/chart.hpp: each series' markers land where its values say, on linear and log axes; the
// legend and reference lines are drawn; bad input is refused.
#include "course/chart.hpp"
#include "course_test.hpp"

namespace {

bool near_color(const course::Image& img, int x, int y, course::Rgb c) {
  const course::Rgb got = img.get(x, y);
  return got.r == c.r && got.g == c.g && got.b == c.b;
}

}  // namespace

TEST_CASE("line_chart puts each point where its value says, on linear and log axes", "[chart]") {
  for (const bool log : {false, true}) {
    CAPTURE(log);
    course::ChartSpec spec;
    spec.title = "SPEED-UP", spec.x_label = "BATCH", spec.y_label = "IMAGES/S";
    spec.log_x = spec.log_y = log;
    spec.series = {{"ONE GPU", {100, 250, 1000}, {3, 7, 20}}, {"TWO GPUS", {100, 1000}, {5, 40}}};
    spec.y_lines = {{1.0, "NO GAIN"}};
    const course::Image img = course::line_chart(spec);
    REQUIRE(img.width > spec.width);
    REQUIRE(img.height > spec.height);
    for (size_t i = 0; i < spec.series.size(); ++i)
      for (size_t k = 0; k < spec.series[i].x.size(); ++k) {
        const auto [x, y] = course::chart_point(spec, spec.series[i].x[k], spec.series[i].y[k]);
        CAPTURE(i, k, x, y);
        REQUIRE(near_color(img, x, y, course::chart_color(i)));
      }
    // Larger values lie to the right and higher up; on the log axis 100 -> 1000 is one decade, as
    // 10 -> 100 would be, so 250 sits at log10(2.5) = 0.398 of the way.
    const auto [x100, y3] = course::chart_point(spec, 100, 3);
    const auto [x1000, y20] = course::chart_point(spec, 1000, 20);
    const auto [x250, y7] = course::chart_point(spec, 250, 7);
    REQUIRE(x1000 > x100);
    REQUIRE(y20 < y3);
    const double at = double(x250 - x100) / (x1000 - x100);
    REQUIRE(at == Approx(log ? 0.398 : 150.0 / 900).margin(0.01));
    (void)y7;
  }
}

TEST_CASE("line_chart refuses no points, uneven series and values <= 0 on a log axis", "[chart]") {
  course::ChartSpec spec;
  REQUIRE_THROWS_AS(course::line_chart(spec), course::Error);
  spec.series = {{"A", {1, 2}, {1}}};
  REQUIRE_THROWS_AS(course::line_chart(spec), course::Error);
  spec.series = {{"A", {1, 2}, {0, 1}}};
  spec.log_y = true;
  REQUIRE_THROWS_AS(course::line_chart(spec), course::Error);
  spec.log_y = false;
  REQUIRE_NOTHROW(course::line_chart(spec));
}
