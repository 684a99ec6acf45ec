#include "course_test.hpp"

TEST_CASE("compare passes values inside atol + rtol*|ref|", "[compare]") {
  const std::vector<float> ref = {1.0f, -2.0f, 100.0f, 0.0f};
  const std::vector<float> got = {1.0f + 1e-6f, -2.0f - 1e-6f, 100.0f + 1e-3f, 5e-7f};
  const auto r = course::compare(got, ref, {1e-6, 2e-5});
  INFO(r.message());
  CHECK(r.ok);
  CHECK(r.failures == 0);
}

TEST_CASE("compare fails outside the tolerance and names the worst element", "[compare]") {
  const std::vector<float> ref = {1.0f, 2.0f, 3.0f};
  const std::vector<float> got = {1.0f, 2.5f, 3.01f};
  const auto r = course::compare(got, ref, {1e-3, 0.0});
  CHECK_FALSE(r.ok);
  CHECK(r.failures == 2);
  CHECK(r.worst_index == 1);
  CHECK(r.max_abs_error == Approx(0.5));
  CHECK(r.message().find("index 1") != std::string::npos);
}

TEST_CASE("compare fails on NaN and Inf, in the result or the reference", "[compare]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  CHECK_FALSE(course::compare(std::vector<float>{0, nan}, std::vector<float>{0, 0}, {1e9, 1e9}).ok);
  CHECK_FALSE(course::compare(std::vector<float>{0, 0}, std::vector<float>{inf, 0}, {1e9, 1e9}).ok);
  const auto r = course::compare(std::vector<float>{1, 2, nan}, std::vector<float>{1, 2, 3}, {1, 1});
  CHECK(r.first_nonfinite == 2);
  CHECK(r.message().find("NaN") != std::string::npos);
}

TEST_CASE("compare rejects vectors of different sizes", "[compare]") {
  CHECK_THROWS_AS(course::compare(std::vector<float>(3), std::vector<float>(4), {0, 0}), course::Error);
}
