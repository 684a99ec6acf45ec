// Lesson 14, step 14.3: random translations of a batch of images on the CPU.
#include "image_shift.hpp"
#include "speedrun.hpp"

namespace speedrun {

void shift_images(const float* x, float* y, int batch, int channels, int height, int width, int max_shift,
                  uint64_t key) {
  check_shift("shift_images", batch, channels, height, width, max_shift);
  const size_t plane = size_t(height) * width;
  for (int b = 0; b < batch; ++b) {
    const Shift s = example_shift(key, uint64_t(b), max_shift);  // one draw per image, all channels alike
    for (int c = 0; c < channels; ++c) {
      const size_t offset = (size_t(b) * channels + c) * plane;
      const float* in = x + offset;
      float* out = y + offset;
      for (int i = 0; i < height; ++i)
        for (int j = 0; j < width; ++j) {
          // Output (i, j) shows the pixel that moved there: it came from (i - dy, j - dx).
          const int from_i = i - s.dy, from_j = j - s.dx;
          const bool inside = from_i >= 0 && from_i < height && from_j >= 0 && from_j < width;
          out[size_t(i) * width + j] = inside ? in[size_t(from_i) * width + from_j] : 0.0f;
        }
    }
  }
}

}  // namespace speedrun
