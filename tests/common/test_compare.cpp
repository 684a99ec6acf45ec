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

TEST_CASE("compare scales the tolerance with |ref| and picks the worst by excess, not by size", "[compare]") {
  // ref 1000 allows 1000 * 1e-3 = 1, so an error of 0.5 passes; ref 1 allows 1e-3, so 0.4 fails.
  const std::vector<float> ref = {1000.0f, 1.0f, -3.0f};
  const std::vector<float> got = {1000.5f, 1.4f, -3.0f};
  const auto r = course::compare(got, ref, {0.0, 1e-3});
  CHECK_FALSE(r.ok);
  CHECK(r.count == 3);
  CHECK(r.failures == 1);
  CHECK(r.worst_index == 1);  // the largest absolute error (index 0) is inside its tolerance
  CHECK(r.max_abs_error == Approx(0.5));
  CHECK(r.max_rel_error == Approx(0.4).epsilon(1e-6));  // 0.4 / 1 (float 1.4f is not exact)
  CHECK(r.got_at_worst == Approx(1.4));
  CHECK(r.ref_at_worst == Approx(1.0));
}

TEST_CASE("compare works for float/double and double/double, and for empty input", "[compare]") {
  const std::vector<double> ref = {0.1, 0.2, 0.3};
  const std::vector<float> got = {0.1f, 0.2f, 0.3f};
  // float rounding of 0.1..0.3 is below 3e-8 absolute; atol 1e-7 passes, atol 1e-9 does not.
  CHECK(course::compare(got.data(), ref.data(), 3, {1e-7, 0}).ok);
  CHECK_FALSE(course::compare(got.data(), ref.data(), 3, {1e-9, 0}).ok);
  const std::vector<double> got_d = {0.1, 0.2 + 1e-12, 0.3};
  CHECK(course::compare(got_d.data(), ref.data(), 3, {1e-11, 0}).ok);
  CHECK_FALSE(course::compare(got_d.data(), ref.data(), 3, {1e-13, 0}).ok);
  const auto empty = course::compare(std::vector<float>{}, std::vector<float>{}, {0, 0});
  CHECK(empty.ok);
  CHECK(empty.count == 0);
}

TEST_CASE("first_nonfinite finds the first NaN or Inf", "[compare]") {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> clean = {1, 2, 3};
  CHECK(course::first_nonfinite(clean.data(), clean.size()) == -1);
  const std::vector<float> v = {0, 1, -inf, nan};
  CHECK(course::first_nonfinite(v.data(), v.size()) == 2);
  CHECK(course::first_nonfinite(v.data(), 2) == -1);
  // A poisoned (never written) output fails even with a huge tolerance.
  const auto r = course::compare(course::test::nan_vector(5), std::vector<float>(5, 0.0f), {1e30, 1e30});
  CHECK_FALSE(r.ok);
  CHECK(r.failures == 5);
  CHECK(r.first_nonfinite == 0);
}

TEST_CASE("a passing compare says so in its message", "[compare]") {
  const auto r = course::compare(std::vector<float>{1, 2}, std::vector<float>{1, 2}, {0, 0});
  CHECK(r.ok);
  CHECK(r.message().find("0 of 2") != std::string::npos);
}

TEST_CASE("a named comparison says which output, where in its shape, and the tolerance", "[compare]") {
  // A [2 x 3 x 2] tensor (n, c, w) whose element (n=1, c=0, w=1) is wrong: flat index 7.
  std::vector<float> ref(12);
  for (size_t i = 0; i < ref.size(); ++i) ref[i] = 0.25f * float(i) - 1.0f;
  std::vector<float> got = ref;
  got[7] += 3.0f;
  const auto r = course::compare(got, ref, {1e-6, 1e-5});
  REQUIRE_FALSE(r.ok);
  const std::string text = r.message("dx", {{"n", 2}, {"c", 3}, {"w", 2}});
  INFO(text);
  CHECK(text.rfind("dx: 1 of 12", 0) == 0);
  CHECK(text.find("dx[n=1, c=0, w=1]") != std::string::npos);
  CHECK(text.find("flat index 7") != std::string::npos);
  CHECK(text.find("1e-06 + 1e-05 |expected|") != std::string::npos);
  // Without a shape (or with one that does not fit), the flat index is the name.
  CHECK(r.message("dx").find("dx[7]") != std::string::npos);
  CHECK(course::index_in_shape(7, {{"n", 2}, {"c", 3}}) == "[7]");
  CHECK(course::index_in_shape(5, {{"h", 2}, {"w", 3}}) == "[h=1, w=2]");
  // A NaN is reported at its place in the shape too.
  got[7] = std::numeric_limits<float>::quiet_NaN();
  const std::string nan_text = course::compare(got, ref, {1, 1}).message("y", {{"n", 2}, {"c", 3}, {"w", 2}});
  CHECK(nan_text.find("y[n=1, c=0, w=1]") != std::string::npos);
  CHECK(nan_text.find("NaN") != std::string::npos);
}
