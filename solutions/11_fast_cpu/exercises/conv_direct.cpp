// Lesson 11, steps 11.5 (forward) and 11.6 (backward): thin convolutions computed directly, 16
// output columns at a time.
#include <algorithm>
#include <vector>

#include "fast_cpu.hpp"

namespace fast_cpu {

namespace {

// Output columns handled together: one AVX-512 register, two AVX ones, four SSE ones. The lane
// loops below have this fixed length and independent lanes, so g++ -O3 turns each into a few
// vector instructions whatever the target.
constexpr int kLanes = 16;
// kLanes floats as one value of g++'s vector extension: the register-blocked kernels below keep
// their sums in these, so that they stay in registers (plain arrays there were kept in memory).
// Compiled to one AVX-512 register, two AVX ones or four SSE ones.
typedef float Lanes __attribute__((vector_size(kLanes * sizeof(float))));
inline Lanes load_lanes(const float* from) {
  Lanes v;
  __builtin_memcpy(&v, from, sizeof v);  // unaligned load
  return v;
}
inline void store_lanes(float* to, Lanes v) { __builtin_memcpy(to, &v, sizeof v); }

// The sizes of one image's planes copied with their zero padding, wide enough that every chunk
// of kLanes output columns reads inside them: no bounds test in the lane loops.
struct Padded {
  int OH, OW, chunks, rows, cols;  // chunks of kLanes output columns; rows x cols per input plane
  explicit Padded(const ConvShape& s)
      : OH(s.out_h()),
        OW(s.out_w()),
        chunks((OW + kLanes - 1) / kLanes),
        rows(OH > 0 ? (OH - 1) * s.stride + s.kernel_h : 0),
        cols(OW > 0 ? (chunks * kLanes - 1) * s.stride + s.kernel_w : 0) {}
  size_t plane() const { return size_t(rows) * cols; }
};

// planes [C][rows][cols] = image n of x, shifted by the padding, 0 outside it.
void pad_image(const ConvShape& s, const Padded& p, const float* x, int n, float* planes) {
  std::fill(planes, planes + size_t(s.in_channels) * p.plane(), 0.0f);
  for (int c = 0; c < s.in_channels; ++c)
    for (int iy = 0; iy < s.height; ++iy) {
      const int r = iy + s.pad;
      if (r >= p.rows) break;
      const float* from = x + ((size_t(n) * s.in_channels + c) * s.height + iy) * s.width;
      float* to = planes + c * p.plane() + size_t(r) * p.cols + std::min(s.pad, p.cols);
      const int count = std::min(s.width, p.cols - s.pad);  // columns no output reads are left out
      if (count > 0) std::copy(from, from + count, to);
    }
}

// Where tap t = (c*kh + i)*kw + j of an output reads, relative to its top-left input in the
// padded planes: plane c, row i, column j.
std::vector<int> tap_offsets(const ConvShape& s, const Padded& p) {
  std::vector<int> offsets;
  for (int c = 0; c < s.in_channels; ++c)
    for (int i = 0; i < s.kernel_h; ++i)
      for (int j = 0; j < s.kernel_w; ++j) offsets.push_back(int(c * p.plane() + size_t(i) * p.cols + j));
  return offsets;
}

// The lane kernels, one tap at a time over a whole plane of output chunks: kLanes independent
// multiply-adds per chunk, each lane its own sum (nothing reassociated), which g++ -O3 turns into
// vector instructions. kStride > 0: the stride known at compile time (1, the common case: the
// lanes read neighbouring floats, one vector load); 0: S at run time. Consecutive chunks are
// different sums, so their multiply-adds do not wait for each other.

// out[chunk][l] += w * in[chunk's first input + l*S]: one tap's share of every output of a plane
// (any stride; stride 1 has forward_images_stride1 below).
inline void tap_forward(const Padded& p, int S, float w, const float* __restrict__ in, float* __restrict__ out) {
  for (int oy = 0; oy < p.OH; ++oy)
    for (int ch = 0; ch < p.chunks; ++ch) {
      float* __restrict__ oc = out + size_t(oy * p.chunks + ch) * kLanes;
      const float* __restrict__ at = in + size_t(oy) * S * p.cols + size_t(ch) * kLanes * S;
      for (int l = 0; l < kLanes; ++l) oc[l] += w * at[l * S];
    }
}

void forward_images(const ConvShape& s, const Padded& p, const float* x, const float* W, const float* bias,
                    float* y, int n0, int n1) {
  const int S = s.stride;
  const std::vector<int> offsets = tap_offsets(s, p);
  const int taps = int(offsets.size());
  const int pitch = p.chunks * kLanes;  // of the sums' rows
  std::vector<float> planes(size_t(s.in_channels) * p.plane(), 0.0f);
  std::vector<float> sums(size_t(p.OH) * pitch);
  for (int n = n0; n < n1; ++n) {
    pad_image(s, p, x, n, planes.data());
    for (int o = 0; o < s.out_channels; ++o) {
      // Every output of the plane summed over the taps in lesson 01's order (c, i, j), then the bias.
      std::fill(sums.begin(), sums.end(), 0.0f);
      for (int t = 0; t < taps; ++t)
        tap_forward(p, S, W[size_t(o) * taps + t], planes.data() + offsets[t], sums.data());
      float* out = y + (size_t(n) * s.out_channels + o) * p.OH * p.OW;
      for (int oy = 0; oy < p.OH; ++oy)
        for (int ox = 0; ox < p.OW; ++ox) out[oy * p.OW + ox] = sums[size_t(oy) * pitch + ox] + bias[o];
    }
  }
}

// Stride 1, register-blocked: a chunk of kLanes outputs of kGroup output channels stays in
// registers while every tap is added (one load of the input per tap, kGroup multiply-adds on it),
// and is stored once, with the bias. Each output is still the sum over the taps in lesson 01's
// order from 0, then the bias: the same bits as a tap at a time over the plane.
constexpr int kGroup = 4;
void forward_images_stride1(const ConvShape& s, const Padded& p, const float* x, const float* W, const float* bias,
                            float* y, int n0, int n1) {
  const std::vector<int> offsets = tap_offsets(s, p);
  const int taps = int(offsets.size()), O = s.out_channels;
  std::vector<float> planes(size_t(s.in_channels) * p.plane(), 0.0f);
  std::vector<float> w(size_t(taps) * kGroup);  // w[t * kGroup + g]: a group's weights, tap by tap
  for (int n = n0; n < n1; ++n) {
    pad_image(s, p, x, n, planes.data());
    for (int o0 = 0; o0 < O; o0 += kGroup) {
      const int group = std::min(kGroup, O - o0);
      for (int t = 0; t < taps; ++t)
        for (int g = 0; g < kGroup; ++g) w[size_t(t) * kGroup + g] = g < group ? W[size_t(o0 + g) * taps + t] : 0.0f;
      for (int oy = 0; oy < p.OH; ++oy)
        for (int ch = 0; ch < p.chunks; ++ch) {
          const float* at = planes.data() + size_t(oy) * p.cols + size_t(ch) * kLanes;
          Lanes acc[kGroup] = {};
          for (int t = 0; t < taps; ++t) {
            const Lanes in = load_lanes(at + offsets[t]);
            for (int g = 0; g < kGroup; ++g) acc[g] += w[size_t(t) * kGroup + g] * in;
          }
          const int cols = std::min(kLanes, p.OW - ch * kLanes);
          for (int g = 0; g < group; ++g) {
            float* out = y + ((size_t(n) * O + o0 + g) * p.OH + oy) * p.OW + size_t(ch) * kLanes;
            const Lanes sum = acc[g] + bias[o0 + g];
            if (cols == kLanes) {
              store_lanes(out, sum);
            } else {
              for (int l = 0; l < cols; ++l) out[l] = sum[l];
            }
          }
        }
    }
  }
}

}  // namespace

void conv2d_direct_forward(const ConvShape& s, const float* x, const float* W, const float* bias, float* y,
                           int threads) {
  const Padded p(s);
  const bool empty = p.OH == 0 || p.OW == 0;
  const double flops = 2.0 * double(s.output_size()) * s.in_channels * s.kernel_h * s.kernel_w;
  parallel_ranges(threads, empty ? 0 : s.batch, flops, [&](int n0, int n1) {
    if (s.stride == 1)
      forward_images_stride1(s, p, x, W, bias, y, n0, n1);
    else
      forward_images(s, p, x, W, bias, y, n0, n1);
  });
}

// ---- 11.6: the backward pass, on 11.5's padded planes and taps ------------------------------

namespace {

// part[l] += sum over the chunks of one image and channel of d[l] * in[l*S]: d holds dy's rows cut
// into chunks of kLanes (zeros past each row's end), `in` is one tap's first input.
template <int kStride>
inline void tap_partials(const Padded& p, int S, const float* __restrict__ d, const float* __restrict__ in,
                         float* __restrict__ part) {
  if (kStride > 0) S = kStride;
  float sum[kLanes];
  for (int l = 0; l < kLanes; ++l) sum[l] = part[l];
  for (int oy = 0; oy < p.OH; ++oy)
    for (int ch = 0; ch < p.chunks; ++ch) {
      const float* __restrict__ dc = d + size_t(oy * p.chunks + ch) * kLanes;
      const float* __restrict__ at = in + size_t(oy) * S * p.cols + size_t(ch) * kLanes * S;
#pragma GCC unroll 16
      for (int l = 0; l < kLanes; ++l) sum[l] += dc[l] * at[l * S];
    }
  for (int l = 0; l < kLanes; ++l) part[l] = sum[l];
}

// out[l*S] += w * d[l]: one tap's share of dx from a chunk of dy.
template <int kStride>
inline void scatter_chunk(float* __restrict__ out, float w, const float* __restrict__ d, int S) {
  if (kStride > 0) S = kStride;
  for (int l = 0; l < kLanes; ++l) out[l * S] += w * d[l];
}

// d = dy's plane of image n, channel o, as OH rows of chunks of kLanes (zeros past each row's end).
void chunk_dy(const ConvShape& s, const Padded& p, const float* dy, int n, int o, float* d) {
  const float* plane = dy + (size_t(n) * s.out_channels + o) * p.OH * p.OW;
  for (int oy = 0; oy < p.OH; ++oy)
    for (int x = 0; x < p.chunks * kLanes; ++x) d[size_t(oy) * p.chunks * kLanes + x] = x < p.OW ? plane[oy * p.OW + x] : 0.0f;
}

// part [o - o0][tap][lane], then [o - o0][taps][lane] for the bias: kLanes partial sums per tap.
template <int kStride>
void weight_partials(const ConvShape& s, const Padded& p, const float* x, const float* dy, int o0, int o1,
                     float* part) {
  const int S = kStride > 0 ? kStride : s.stride;
  const std::vector<int> offsets = tap_offsets(s, p);
  const int taps = int(offsets.size());
  std::vector<float> planes(size_t(s.in_channels) * p.plane()), d(size_t(p.OH) * p.chunks * kLanes);
  for (int n = 0; n < s.batch; ++n) {
    pad_image(s, p, x, n, planes.data());
    for (int o = o0; o < o1; ++o) {
      chunk_dy(s, p, dy, n, o, d.data());
      float* part_o = part + size_t(o - o0) * (taps + 1) * kLanes;
      for (int t = 0; t < taps; ++t)
        tap_partials<kStride>(p, S, d.data(), planes.data() + offsets[t], part_o + size_t(t) * kLanes);
      float* bias_part = part_o + size_t(taps) * kLanes;
      for (size_t k = 0; k < d.size(); k += kLanes)
        for (int l = 0; l < kLanes; ++l) bias_part[l] += d[k + l];
    }
  }
}

// Stride 1, register-blocked: for each chunk of dy, the kTaps partial sums of its channel stay in
// registers (one load of dy, one load of the input and one multiply-add per tap). dy is read in
// place; only the last chunk of a row, which runs past OW, is copied with zeros. The same partial
// sums as weight_partials (lane l of tap t sums the same products), added in another order.
template <int kTaps>
void weight_partials_taps(const ConvShape& s, const Padded& p, const float* x, const float* dy, int o0, int o1,
                          float* part) {
  const std::vector<int> offsets = tap_offsets(s, p);
  std::vector<float> planes(size_t(s.in_channels) * p.plane());
  float tail[kLanes];
  for (int n = 0; n < s.batch; ++n) {
    pad_image(s, p, x, n, planes.data());
    for (int o = o0; o < o1; ++o) {
      float* part_o = part + size_t(o - o0) * (kTaps + 1) * kLanes;
      Lanes acc[kTaps + 1];
      for (int t = 0; t <= kTaps; ++t) acc[t] = load_lanes(part_o + t * kLanes);
      const float* plane = dy + (size_t(n) * s.out_channels + o) * p.OH * p.OW;
      for (int oy = 0; oy < p.OH; ++oy)
        for (int ch = 0; ch < p.chunks; ++ch) {
          const int cols = std::min(kLanes, p.OW - ch * kLanes);
          const float* from = plane + size_t(oy) * p.OW + size_t(ch) * kLanes;
          if (cols < kLanes) {
            for (int l = 0; l < kLanes; ++l) tail[l] = l < cols ? from[l] : 0.0f;
            from = tail;
          }
          const Lanes d = load_lanes(from);
          const float* at = planes.data() + size_t(oy) * p.cols + size_t(ch) * kLanes;
          for (int t = 0; t < kTaps; ++t) acc[t] += d * load_lanes(at + offsets[t]);
          acc[kTaps] += d;
        }
      for (int t = 0; t <= kTaps; ++t) store_lanes(part_o + t * kLanes, acc[t]);
    }
  }
}

// dx of images [n0, n1): every output's dy times the weights, added to the padded input positions
// it read; then each image's part of the padded planes copied out (the padding dropped).
template <int kStride>
void input_gradients(const ConvShape& s, const Padded& p, const float* W, const float* dy, float* dx, int n0,
                     int n1) {
  const int S = kStride > 0 ? kStride : s.stride, C = s.in_channels;
  const std::vector<int> offsets = tap_offsets(s, p);
  const int taps = int(offsets.size());
  std::vector<float> planes(size_t(C) * p.plane()), d(size_t(p.OH) * p.chunks * kLanes);
  for (int n = n0; n < n1; ++n) {
    std::fill(planes.begin(), planes.end(), 0.0f);
    for (int o = 0; o < s.out_channels; ++o) {
      chunk_dy(s, p, dy, n, o, d.data());
      const float* w = W + size_t(o) * taps;
      for (int oy = 0; oy < p.OH; ++oy)
        for (int ch = 0; ch < p.chunks; ++ch) {
          float* first = planes.data() + size_t(oy) * S * p.cols + size_t(ch) * kLanes * S;
          const float* dc = d.data() + size_t(oy * p.chunks + ch) * kLanes;
          for (int t = 0; t < taps; ++t) scatter_chunk<kStride>(first + offsets[t], w[t], dc, S);
        }
    }
    for (int c = 0; c < C; ++c)
      for (int iy = 0; iy < s.height; ++iy) {
        float* to = dx + ((size_t(n) * C + c) * s.height + iy) * s.width;
        const int r = iy + s.pad;
        for (int ix = 0; ix < s.width; ++ix) {
          const int col = ix + s.pad;
          to[ix] = (r < p.rows && col < p.cols) ? planes[c * p.plane() + size_t(r) * p.cols + col] : 0.0f;
        }
      }
  }
}

}  // namespace

void conv2d_direct_backward(const ConvShape& s, const float* x, const float* W, const float* dy, float* dx,
                            float* dW, float* dbias, int threads, bool input_grad) {
  const Padded p(s);
  const bool empty = p.OH == 0 || p.OW == 0;
  const int taps = s.in_channels * s.kernel_h * s.kernel_w;
  const double flops = 2.0 * double(s.output_size()) * taps;  // of dW, and of dx
  // dW and dbias, split by output channel: all of channel o's sums are made by one thread, and its
  // partial sums are added up in lane order at the end: a fixed order whatever the thread count.
  parallel_ranges(threads, s.out_channels, flops, [&](int o0, int o1) {
    std::vector<float> part(size_t(o1 - o0) * (taps + 1) * kLanes, 0.0f);
    if (!empty) {
      if (s.stride == 1 && taps == 9)  // 3x3 on one channel, lesson 02's first layer
        weight_partials_taps<9>(s, p, x, dy, o0, o1, part.data());
      else if (s.stride == 1)
        weight_partials<1>(s, p, x, dy, o0, o1, part.data());
      else
        weight_partials<0>(s, p, x, dy, o0, o1, part.data());
    }
    for (int o = o0; o < o1; ++o)
      for (int t = 0; t <= taps; ++t) {
        const float* lanes = part.data() + (size_t(o - o0) * (taps + 1) + t) * kLanes;
        float sum = 0.0f;
        for (int l = 0; l < kLanes; ++l) sum += lanes[l];
        if (t < taps)
          dW[size_t(o) * taps + t] = sum;
        else
          dbias[o] = sum;
      }
  });
  if (!input_grad) return;
  parallel_ranges(threads, s.batch, flops, [&](int n0, int n1) {
    if (empty)
      std::fill(dx + size_t(n0) * s.in_channels * s.height * s.width,
                dx + size_t(n1) * s.in_channels * s.height * s.width, 0.0f);
    else if (s.stride == 1)
      input_gradients<1>(s, p, W, dy, dx, n0, n1);
    else
      input_gradients<0>(s, p, W, dy, dx, n0, n1);
  });
}

}  // namespace fast_cpu
