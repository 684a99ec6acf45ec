// Step 02.3: epoch_order (a seeded permutation per epoch) and gather_batch.
#include <algorithm>
#include <cmath>

#include "course_test.hpp"
#include "host_training.hpp"

using namespace host_training;

TEST_CASE("epoch_order is a permutation of 0..n-1", "[02.3]") {
  const int n = GENERATE(values({1, 17, 1000}));
  CAPTURE(n);
  std::vector<int> order = epoch_order(n, 3, 0);
  REQUIRE(order.size() == size_t(n));
  std::sort(order.begin(), order.end());
  for (int i = 0; i < n; ++i) REQUIRE(order[size_t(i)] == i);
}

TEST_CASE("epoch_order: reproducible from the seed, new every epoch, as specified", "[02.3]") {
  const int n = 1000;
  const std::vector<int> e0 = epoch_order(n, 42, 0);
  CHECK(epoch_order(n, 42, 0) == e0);   // same seed, same epoch: same order
  CHECK(epoch_order(n, 42, 1) != e0);   // the next epoch shuffles again
  CHECK(epoch_order(n, 43, 0) != e0);   // another seed, another order
  std::vector<int> identity(n);
  for (int i = 0; i < n; ++i) identity[size_t(i)] = i;
  CHECK(e0 != identity);                // it shuffles at all
  // The contract lesson 08 relies on: epoch e uses stream 1 + e of the seed.
  CHECK(e0 == course::Rng(42, 1).permutation(n));
  CHECK(epoch_order(n, 42, 4) == course::Rng(42, 5).permutation(n));
}

namespace {
// n examples of C x H x W whose every value says where it came from: example k, value j -> k + j/1000.
course::Dataset labelled_dataset(int n, int c, int h, int w) {
  course::Dataset ds;
  ds.images = course::HostTensor({n, c, h, w});
  const size_t plane = size_t(c) * h * w;
  for (int k = 0; k < n; ++k) {
    for (size_t j = 0; j < plane; ++j) ds.images[size_t(k) * plane + j] = float(k) + float(j) / 1000.0f;
    ds.labels.push_back((k * 7 + 3) % 10);
  }
  return ds;
}
}  // namespace

TEST_CASE("gather_batch copies the examples the order names, in that order", "[02.3]") {
  const int n = 11, c = 2, h = 3, w = 5;  // odd sizes, more than one channel
  const size_t plane = size_t(c) * h * w;
  const course::Dataset ds = labelled_dataset(n, c, h, w);
  const std::vector<int> order = {4, 10, 0, 7, 7, 2, 9, 1, 3, 5, 6, 8};  // a repeat is allowed, too
  const int first = GENERATE(values({0, 3, 9}));
  const int count = first == 9 ? 3 : 4;  // the last batch is smaller
  CAPTURE(first, count);

  std::vector<float> x = course::test::nan_vector(size_t(count + 1) * plane);  // one spare: must stay NaN
  std::vector<int> labels(size_t(count + 1), -1);
  gather_batch(ds, order, first, count, x.data(), labels.data());
  for (int j = 0; j < count; ++j) {
    const int k = order[size_t(first + j)];
    CAPTURE(j, k);
    std::vector<float> expected(plane);
    for (size_t v = 0; v < plane; ++v) expected[v] = float(k) + float(v) / 1000.0f;
    const std::vector<float> got(x.begin() + long(j * plane), x.begin() + long((j + 1) * plane));
    REQUIRE_ALL_CLOSE(got, expected, 0.0, 0.0);  // a copy is exact
    REQUIRE(labels[size_t(j)] == ds.labels[size_t(k)]);
  }
  REQUIRE(std::isnan(x[size_t(count) * plane]));  // nothing written past the batch
  REQUIRE(labels[size_t(count)] == -1);
}

TEST_CASE("gather_batch with an epoch order covers every example once per epoch", "[02.3]") {
  const int n = 17, batch = 5;
  const course::Dataset ds = labelled_dataset(n, 1, 2, 3);
  const std::vector<int> order = epoch_order(n, 9, 2);
  std::vector<int> seen(size_t(n), 0);
  std::vector<float> x(size_t(batch) * 6);
  std::vector<int> labels(static_cast<size_t>(batch));
  for (int first = 0; first < n; first += batch) {
    const int count = std::min(batch, n - first);
    gather_batch(ds, order, first, count, x.data(), labels.data());
    for (int j = 0; j < count; ++j) seen[size_t(x[size_t(j) * 6])] += 1;  // value 0 of example k is k
  }
  for (int k = 0; k < n; ++k) CHECK(seen[size_t(k)] == 1);
}

TEST_CASE("gather_batch throws course::Error for a range outside the order, before copying anything", "[02.3]") {
  const int n = 9, c = 1, h = 3, w = 2;
  const size_t plane = size_t(c) * h * w;
  const course::Dataset ds = labelled_dataset(n, c, h, w);
  const std::vector<int> order = epoch_order(n, 5, 0);  // 9 entries
  struct Range {
    int first, count;
    const char* why;
  };
  const Range bad[] = {
      {7, 3, "first + count is one past the end"},
      {0, 10, "count is longer than the order"},
      {9, 1, "first is the end itself"},
      {-1, 2, "first < 0"},
      {2, -1, "count < 0"},
  };
  for (const Range& r : bad) {
    INFO(r.why << ": first " << r.first << ", count " << r.count);
    // Buffers as large as the order allows, so that a missing check writes into them instead
    // of past them; they must stay untouched.
    std::vector<float> x = course::test::nan_vector(size_t(n + 1) * plane);
    std::vector<int> labels(size_t(n + 1), -1);
    try {
      gather_batch(ds, order, r.first, r.count, x.data(), labels.data());
      FAIL("no course::Error thrown");
    } catch (const course::NotImplemented&) {
      throw;  // the step is not written yet: that is no range check
    } catch (const course::Error&) {
    }
    CHECK(std::all_of(x.begin(), x.end(), [](float v) { return std::isnan(v); }));
    CHECK(std::all_of(labels.begin(), labels.end(), [](int l) { return l == -1; }));
  }
  // The last examples exactly, and an empty batch at the end, are inside.
  std::vector<float> x = course::test::nan_vector(size_t(2) * plane);
  std::vector<int> labels(2, -1);
  REQUIRE_NOTHROW(gather_batch(ds, order, 7, 2, x.data(), labels.data()));
  REQUIRE_NOTHROW(gather_batch(ds, order, 9, 0, x.data(), labels.data()));
}

TEST_CASE("gather_batch throws course::Error when the order names an example the data set lacks", "[02.3]") {
  const int n = 6;
  const course::Dataset ds = labelled_dataset(n, 1, 2, 2);
  for (int missing : {-1, n, n + 40}) {
    CAPTURE(missing);
    const std::vector<int> order = {2, 0, missing, 5, 1, 3, 4};
    std::vector<float> x = course::test::nan_vector(size_t(order.size()) * 4);
    std::vector<int> labels(order.size(), -1);
    REQUIRE_THROWS_AS(gather_batch(ds, order, 1, 3, x.data(), labels.data()), course::Error);
    // A batch that does not reach the bad entry is fine.
    REQUIRE_NOTHROW(gather_batch(ds, order, 3, 4, x.data(), labels.data()));
  }
}
