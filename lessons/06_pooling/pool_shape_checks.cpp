// Shape checks for every launcher of lesson 06 (read-only): a bad shape is a clear error,
// never an out-of-bounds kernel.
#include <climits>
#include <string>

#include "course/error.hpp"
#include "pooling.hpp"

namespace pooling {

void check_shape(const PoolShape& s, const char* function) {
  const std::string where = std::string(function) + ": ";
  if (s.batch < 1 || s.channels < 1)
    throw course::Error(where + "batch and channels must be >= 1, got batch " + std::to_string(s.batch) +
                        ", channels " + std::to_string(s.channels));
  if (s.window < 1 || s.stride < 1)
    throw course::Error(where + "window and stride must be >= 1, got window " + std::to_string(s.window) +
                        ", stride " + std::to_string(s.stride));
  if (s.height < s.window || s.width < s.window)
    throw course::Error(where + "a " + std::to_string(s.window) + "x" + std::to_string(s.window) +
                        " window does not fit a " + std::to_string(s.height) + "x" + std::to_string(s.width) +
                        " image");
  // argmax holds flat indices into x as int.
  if (s.input_size() > size_t(INT_MAX))
    throw course::Error(where + std::to_string(s.input_size()) +
                        " inputs: more than an int index can address (2^31 - 1)");
}

void check_mask_shape(const PoolShape& s, const char* function) {
  check_shape(s, function);
  if (windows_overlap(s))
    throw course::Error(std::string(function) + ": window " + std::to_string(s.window) + " > stride " +
                        std::to_string(s.stride) +
                        ": the windows overlap and one 0/1 mask entry per input cannot say which window "
                        "chose it; use the argmax or recompute variant");
}

}  // namespace pooling
