#pragma once
// A convolution's per-block statistics for the batch norm after it (lesson 09's tiled kernel and
// lesson 10's 10.6 write them): for every channel o, image n and band b of `band_rows` output rows
// (the last one shorter), the entry stats[3 (o * N * bands + n * bands + b) ..] must hold the band's
// count, the mean of its y and the squares of its y around that mean, in double from the y written.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace course::test {

struct BandStatisticsCheck {
  size_t bad = 0;     // entries off
  std::string first;  // the first of them, got and wanted
};

// FP32 sums of a few thousand values: the mean within 1e-5 of the magnitudes summed over the count,
// the squares within 1e-4 of themselves and 1e-5 of the magnitudes squared over the count.
inline BandStatisticsCheck check_band_statistics(const std::vector<float>& y, const std::vector<float>& stats, int N,
                                                 int O, int OH, int OW, int band_rows) {
  const int bands = (OH + band_rows - 1) / band_rows;
  const size_t entries = size_t(N) * bands;
  BandStatisticsCheck result;
  for (int o = 0; o < O; ++o)
    for (int n = 0; n < N; ++n)
      for (int b = 0; b < bands; ++b) {
        const int r0 = b * band_rows, rows = std::min(band_rows, OH - r0);
        const double count = double(rows) * OW;
        const float* plane = y.data() + (size_t(n) * O + o) * OH * OW + size_t(r0) * OW;
        double sum = 0, size = 0, squares = 0;
        for (int i = 0; i < rows * OW; ++i) sum += plane[i], size += std::fabs(plane[i]);
        const double mean = sum / count;
        for (int i = 0; i < rows * OW; ++i) squares += (plane[i] - mean) * (plane[i] - mean);
        const float* e = stats.data() + 3 * (size_t(o) * entries + size_t(n) * bands + b);
        const bool ok = double(e[0]) == count && std::fabs(e[1] - mean) <= 1e-5 * size / count &&
                        std::fabs(e[2] - squares) <= 1e-4 * squares + 1e-5 * size * size / count;
        if (!ok && result.bad++ == 0)
          result.first = "channel " + std::to_string(o) + " image " + std::to_string(n) + " band " + std::to_string(b) +
                         ": got (" + std::to_string(e[0]) + ", " + std::to_string(e[1]) + ", " + std::to_string(e[2]) +
                         "), want (" + std::to_string(count) + ", " + std::to_string(mean) + ", " +
                         std::to_string(squares) + ")";
      }
  return result;
}

}  // namespace course::test
