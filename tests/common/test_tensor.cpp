// HostTensor: shapes, NCHW and row-major offsets, bounds errors, reshape.
#include "course/tensor.hpp"

#include "course_test.hpp"
#include "test_files.hpp"

using course::HostTensor;
using course::test::contains;
using course::test::error_message;

TEST_CASE("HostTensor knows its shape, size and fill value", "[tensor]") {
  const HostTensor t({2, 3, 5, 7}, 1.5f);
  CHECK(t.rank() == 4);
  CHECK(t.dims() == std::vector<int>{2, 3, 5, 7});
  CHECK(t.dim(0) == 2);
  CHECK(t.dim(3) == 7);
  CHECK(t.size() == 2u * 3 * 5 * 7);
  CHECK(t.bytes() == t.size() * sizeof(float));
  CHECK(t.shape_string() == "[2, 3, 5, 7]");
  for (size_t i = 0; i < t.size(); ++i) REQUIRE(t[i] == 1.5f);

  const HostTensor empty;
  CHECK(empty.rank() == 0);
  CHECK(empty.size() == 0);
  CHECK(empty.shape_string() == "[]");
}

TEST_CASE("element_count multiplies the dimensions and rejects negative ones", "[tensor]") {
  CHECK(course::element_count({}) == 1);  // a scalar
  CHECK(course::element_count({17}) == 17);
  CHECK(course::element_count({3, 0, 5}) == 0);
  CHECK(course::element_count({64, 1, 28, 28}) == 50176);
  CHECK(contains(error_message([] { course::element_count({2, -1}); }), "negative dimension -1"));
  CHECK_THROWS_AS(HostTensor({4, -3}), course::Error);
}

TEST_CASE("at(n, c, h, w) is the NCHW element ((n*C + c)*H + h)*W + w", "[tensor]") {
  const int N = 2, C = 3, H = 5, W = 7;  // odd sizes: a swapped stride shows
  HostTensor t({N, C, H, W});
  for (size_t i = 0; i < t.size(); ++i) t[i] = static_cast<float>(i);
  for (int n = 0; n < N; ++n)
    for (int c = 0; c < C; ++c)
      for (int h = 0; h < H; ++h)
        for (int w = 0; w < W; ++w) {
          const int expected = ((n * C + c) * H + h) * W + w;
          REQUIRE(t.at(n, c, h, w) == static_cast<float>(expected));
        }
  t.at(1, 2, 4, 6) = -9.0f;  // the last element, written through the reference
  CHECK(t[t.size() - 1] == -9.0f);
  const HostTensor& ct = t;
  CHECK(ct.at(0, 1, 2, 3) == static_cast<float>(((0 * C + 1) * H + 2) * W + 3));
}

TEST_CASE("at(row, col) is the row-major element row*cols + col", "[tensor]") {
  HostTensor m({3, 17});
  for (size_t i = 0; i < m.size(); ++i) m[i] = static_cast<float>(i);
  CHECK(m.at(0, 0) == 0.0f);
  CHECK(m.at(1, 0) == 17.0f);
  CHECK(m.at(2, 16) == 50.0f);
  m.at(2, 5) = 0.25f;
  CHECK(m[2 * 17 + 5] == 0.25f);
  const HostTensor& cm = m;
  CHECK(cm.at(1, 3) == 20.0f);
}

TEST_CASE("at() outside the shape or with the wrong rank throws, naming index and shape", "[tensor]") {
  HostTensor t({2, 3, 4, 5});
  const HostTensor& ct = t;
  const std::string past_end = error_message([&] { t.at(0, 0, 0, 5); });
  CHECK(contains(past_end, "HostTensor::at(0, 0, 0, 5)"));
  CHECK(contains(past_end, "[2, 3, 4, 5]"));
  CHECK(contains(error_message([&] { ct.at(2, 0, 0, 0); }), "out of range"));
  CHECK(contains(error_message([&] { t.at(0, -1, 0, 0); }), "out of range"));
  CHECK(contains(error_message([&] { t.at(0, 0, 4, 0); }), "out of range"));
  CHECK(contains(error_message([&] { t.at(0, 1); }), "out of range for shape [2, 3, 4, 5]"));

  HostTensor m({3, 4});
  CHECK(contains(error_message([&] { m.at(3, 0); }), "HostTensor::at(3, 0)"));
  CHECK(contains(error_message([&] { m.at(0, 4); }), "[3, 4]"));
  CHECK(contains(error_message([&] { m.at(-1, 0); }), "out of range"));
  CHECK(contains(error_message([&] { m.at(0, 0, 0, 0); }), "out of range"));
  CHECK_NOTHROW(m.at(2, 3));
}

TEST_CASE("reshape keeps the data and changes the dimensions; a wrong count throws", "[tensor]") {
  HostTensor t({2, 6});
  for (size_t i = 0; i < t.size(); ++i) t[i] = static_cast<float>(i) * 0.5f;
  t.reshape({2, 3, 1, 2});
  CHECK(t.rank() == 4);
  CHECK(t.shape_string() == "[2, 3, 1, 2]");
  CHECK(t.at(1, 2, 0, 1) == 11 * 0.5f);  // same flat element as before
  t.reshape({12});
  CHECK(t.dims() == std::vector<int>{12});

  const std::string msg = error_message([&] { t.reshape({5, 2}); });
  CHECK(contains(msg, "[12] has 12 elements"));
  CHECK(contains(msg, "[5, 2] needs 10"));
  CHECK(t.dims() == std::vector<int>{12});  // unchanged after the failed reshape
}

TEST_CASE("fill sets every element", "[tensor]") {
  HostTensor t({3, 3});
  t.fill(-2.0f);
  for (float v : t.vec()) REQUIRE(v == -2.0f);
  t.data()[4] = 7.0f;
  CHECK(t.at(1, 1) == 7.0f);
}
