// course/check.hpp: the float-sum tolerance against hand-computed numbers and against real
// float sums, seeded inputs, and validate()'s pass, failure and message.
#include "course/check.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "course_test.hpp"

namespace {

// The message validate() throws, or "" when it does not throw.
template <typename G, typename R>
std::string validate_message(const std::vector<G>& got, const std::vector<R>& ref, course::Tolerance tol,
                             const course::Shape& shape = {}) {
  try {
    course::validate("dx", got, ref, tol, shape);
  } catch (const course::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("float_sum_atol is 8 FLT_EPSILON per term of size max_term", "[check]") {
  // FLT_EPSILON = 2^-23, so 8 * eps * terms = terms * 2^-20 (exact in double).
  CHECK(course::float_sum_atol(1) == std::ldexp(1.0, -20));
  CHECK(course::float_sum_atol(100) == 100 * std::ldexp(1.0, -20));  // 9.5367431640625e-05
  CHECK(course::float_sum_atol(100) == Approx(9.5367431640625e-05).epsilon(1e-15));
  CHECK(course::float_sum_atol(10, 0.5) == 5 * std::ldexp(1.0, -20));
  CHECK(course::float_sum_atol(9, 1.5) == 13.5 * std::ldexp(1.0, -20));
  CHECK(course::float_sum_tolerance(100, 0.5).atol == 50 * std::ldexp(1.0, -20));
  CHECK(course::float_sum_tolerance(100).rtol == 0.0);
  // DBL_EPSILON = 2^-52: 8 * eps * 1000 = 1000 * 2^-49.
  CHECK(course::double_sum_atol(1000) == 1000 * std::ldexp(1.0, -49));
  CHECK(course::double_sum_atol(1000) == Approx(1.7763568394002505e-12).epsilon(1e-15));
  CHECK(course::double_sum_atol(4, 0.25) == std::ldexp(1.0, -49));
}

TEST_CASE("float_sum_atol_rtol splits the bound: 4 FLT_EPSILON per term as atol and rtol", "[check]") {
  const course::Tolerance t = course::float_sum_atol_rtol(25);
  CHECK(t.atol == 100 * std::ldexp(1.0, -23));  // 4 * 2^-23 * 25 = 1.1920928955078125e-05
  CHECK(t.rtol == t.atol);
  CHECK(t.atol + t.rtol * 1.0 == course::float_sum_atol(25));  // the whole bound at |ref| = 1
  CHECK(course::float_sum_atol_rtol(3, 2.0).atol == 24 * std::ldexp(1.0, -23));  // 4 * 3 * 2
}

TEST_CASE("float_sum_atol covers a real float sum and not a lost term", "[check]") {
  for (size_t terms : {1u, 17u, 1000u, 100000u}) {
    CAPTURE(terms);
    const std::vector<float> a = course::random_floats(terms, 31, 0), b = course::random_floats(terms, 31, 1);
    float sum = 0.0f;
    double exact = 0.0;
    for (size_t i = 0; i < terms; ++i) {
      sum += a[i] * b[i];
      exact += double(a[i]) * double(b[i]);
    }
    CHECK(std::fabs(double(sum) - exact) <= course::float_sum_atol(double(terms)));
    // Dropping the largest term is an error the tolerance must see.
    double largest = 0.0;
    for (size_t i = 0; i < terms; ++i) largest = std::fmax(largest, std::fabs(double(a[i]) * b[i]));
    CHECK(largest > course::float_sum_atol(double(terms)));
  }
}

TEST_CASE("random_floats and random_doubles are seeded, in range and reuse random_uniform", "[check]") {
  const std::vector<float> v = course::random_floats(1000, 7);
  CHECK(v == course::random_uniform(1000, 7));  // stream 0 is random_uniform's stream
  CHECK(v == course::random_floats(1000, 7));   // same seed, same values
  CHECK(v != course::random_floats(1000, 8));
  CHECK(v != course::random_floats(1000, 7, 1));  // another stream of the same seed
  const std::vector<float> w = course::random_floats(1000, 7, 2, 0.5f, 1.5f);
  for (float x : w) {
    REQUIRE(x >= 0.5f);
    REQUIRE(x < 1.5f);
  }
  const std::vector<double> d = course::random_doubles(1000, 7);
  REQUIRE(d.size() == v.size());
  for (size_t i = 0; i < v.size(); ++i) REQUIRE(d[i] == double(v[i]));
  CHECK(course::to_double(v) == d);
}

TEST_CASE("validate passes within the tolerance and throws beyond it", "[check]") {
  const std::vector<float> got = {1.0f, 2.0f, 3.0f};
  const std::vector<double> ref = {1.0, 2.0, 3.001};
  CHECK(validate_message(got, ref, {2e-3, 0.0}).empty());
  CHECK(validate_message(got, ref, {0.0, 1e-3}).empty());  // 0.001 <= 1e-3 * 3.001
  const std::string message = validate_message(got, ref, {1e-4, 0.0});
  CHECK(message.find("dx: 1 of 3 elements outside") != std::string::npos);
  CHECK(message.find("dx[2]") != std::string::npos);
  CHECK(validate_message(std::vector<double>{1.0}, std::vector<double>{1.0}, {0.0, 0.0}).empty());
  CHECK(validate_message(std::vector<float>{1.0f}, std::vector<float>{1.5f}, {0.1, 0.0}) != "");
}

TEST_CASE("validate fails on NaN and Inf whatever the tolerance, naming the element by shape", "[check]") {
  const double inf = std::numeric_limits<double>::infinity();
  const course::Shape shape = {{"b", 2}, {"i", 3}};
  std::vector<float> got(6, 0.5f);
  const std::vector<double> ref(6, 0.5);
  CHECK(validate_message(got, ref, {0.0, 0.0}, shape).empty());
  got[4] = std::numeric_limits<float>::quiet_NaN();
  const std::string message = validate_message(got, ref, {1e30, 1e30}, shape);
  CHECK(message.find("dx[b=1, i=1]") != std::string::npos);
  CHECK(message.find("NaN") != std::string::npos);
  // The same line a failing test prints (CompareResult::message with the name and shape).
  CHECK(message == course::compare(got.data(), ref.data(), 6, {1e30, 1e30}).message("dx", shape));
  got[4] = 0.5f;
  std::vector<double> ref_inf = ref;
  ref_inf[0] = inf;
  CHECK(validate_message(got, ref_inf, {1e30, 1e30}, shape).find("dx[b=0, i=0]") != std::string::npos);
}

TEST_CASE("validate refuses results of the wrong size", "[check]") {
  const std::string message = validate_message(std::vector<float>(3), std::vector<float>(4), {1.0, 1.0});
  CHECK(message.find("dx: 3 elements, expected 4") != std::string::npos);
}
