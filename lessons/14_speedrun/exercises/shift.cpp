// Lesson 14, step 14.3: random translations of a batch of images on the CPU. YOUR FILE.
// The contract is in speedrun.hpp, each image's (dy, dx) in image_shift.hpp (given).
// Uncomment the parameter names when you write it.
#include "course/error.hpp"
#include "image_shift.hpp"
#include "speedrun.hpp"

namespace speedrun {

void shift_images(const float* /*x*/, float* /*y*/, int /*batch*/, int /*channels*/, int /*height*/, int /*width*/,
                  int /*max_shift*/, uint64_t /*key*/) {
  // TODO(14.3): check_shift("shift_images", batch, channels, height, width, max_shift) before
  // anything else; then for every image b, s = example_shift(key, b, max_shift), and every output
  // pixel y[b][c][i][j] = x[b][c][i - s.dy][j - s.dx] where that source pixel is inside the image,
  // else 0. Every channel of an image moves by the same (dy, dx).
  course::todo("14.3", "shift_images (each image moved by its own example_shift, zeros where nothing moved in)");
}

}  // namespace speedrun
