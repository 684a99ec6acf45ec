// Lesson 10 (given): what each number format keeps, for the program's table.
#include <cmath>

#include "course/error.hpp"
#include "tensor_cores.hpp"

namespace tensor_cores {

FormatInfo format_info(const std::string& name) {
  // bits, exponent bits, stored mantissa bits; the exponent bias is 2^(e-1) - 1.
  FormatInfo f;
  f.name = name;
  if (name == "fp32") f.bits = 32, f.exponent_bits = 8, f.mantissa_bits = 23;
  else if (name == "tf32") f.bits = 19, f.exponent_bits = 8, f.mantissa_bits = 10;
  else if (name == "bf16") f.bits = 16, f.exponent_bits = 8, f.mantissa_bits = 7;
  else if (name == "fp16") f.bits = 16, f.exponent_bits = 5, f.mantissa_bits = 10;
  else throw course::Error("format_info: unknown format '" + name + "' (fp32, tf32, bf16 or fp16)");
  const int bias = (1 << (f.exponent_bits - 1)) - 1;
  f.epsilon = std::ldexp(1.0, -f.mantissa_bits);
  f.smallest_normal = std::ldexp(1.0, 1 - bias);
  f.largest = (2.0 - f.epsilon) * std::ldexp(1.0, bias);  // the top exponent, every mantissa bit set
  return f;
}

}  // namespace tensor_cores
