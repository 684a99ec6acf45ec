// Lesson 10, step 10.1: float -> BF16 and float -> TF32 on the host, bit for bit against the
// reference of format_reference.hpp: special values, ties, carries into the exponent, overflow,
// subnormals, NaNs whose payload lies only in the dropped bits, and a million random patterns.
#include <cstdint>
#include <string>
#include <vector>

#include "course_test.hpp"
#include "format_reference.hpp"
#include "tensor_cores.hpp"

using course::test::bits_float;
using course::test::float_bits;

namespace {

// Patterns worth a look: every sign of zero, Inf, NaN payloads, the ends of the ranges, ties and
// near-ties for both formats around several exponents.
std::vector<uint32_t> special_patterns() {
  std::vector<uint32_t> p = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u,
                             0x7f800001u, 0xff800001u, 0x7f801fffu, 0x7f80ffffu, 0x7fbfffffu, 0x7f7fffffu,
                             0xff7fffffu, 0x7f7f8000u, 0x7f7f7fffu, 0x00000001u, 0x80000001u, 0x00007fffu,
                             0x00008000u, 0x00018000u, 0x007fffffu, 0x00800000u, 0x3f800000u, 0x3fffffffu,
                             0xbfffffffu, 0x477fe000u, 0x477fefffu, 0x477ff000u};
  for (uint32_t exponent : {0x00u, 0x01u, 0x7fu, 0x80u, 0xfeu})
    for (uint32_t mantissa : {0x8000u, 0x18000u, 0x7fffu, 0x8001u, 0x1000u, 0x3000u, 0x0fffu, 0x1001u, 0x7fffffu})
      for (uint32_t sign : {0u, 0x80000000u}) p.push_back(sign | exponent << 23 | mantissa);
  return p;
}

std::string hex(uint32_t u) {
  char s[16];
  std::snprintf(s, sizeof s, "0x%08x", u);
  return s;
}

void check_pattern(uint32_t u) {
  const float x = bits_float(u);
  const uint16_t want_bf16 = course::test::reference_bf16(x);
  const uint16_t got_bf16 = tensor_cores::float_to_bf16(x);
  const uint32_t want_tf32 = float_bits(course::test::reference_tf32(x));
  const uint32_t got_tf32 = float_bits(tensor_cores::round_to_tf32(x));
  // NaNs: any NaN of the right sign will do (the payload's kept bits are free).
  const bool nan = std::isnan(x);
  const auto same_nan = [&](uint32_t got, uint32_t want, uint32_t exponent_mask, uint32_t mantissa_mask) {
    return (got & exponent_mask) == exponent_mask && (got & mantissa_mask) != 0 && (got >> 31) == (want >> 31);
  };
  INFO("x = " << hex(u) << " (" << x << ")");
  if (nan) {
    CHECK(same_nan(uint32_t(got_bf16) << 16, uint32_t(want_bf16) << 16, 0x7f800000u, 0x007f0000u));
    CHECK(same_nan(got_tf32, want_tf32, 0x7f800000u, 0x007fe000u));
    CHECK((got_tf32 & 0x1fffu) == 0);
  } else {
    CHECK(hex(got_bf16) == hex(want_bf16));
    CHECK(hex(got_tf32) == hex(want_tf32));
  }
}

}  // namespace

TEST_CASE("float_to_bf16 and round_to_tf32 round to nearest, ties to even, on special values", "[10.1]") {
  for (uint32_t u : special_patterns()) check_pattern(u);
}

TEST_CASE("float_to_bf16 and round_to_tf32 on a million random bit patterns", "[10.1]") {
  course::Rng rng(101);
  size_t wrong = 0;
  uint32_t first = 0;
  for (int i = 0; i < 1000000; ++i) {
    const uint32_t u = uint32_t(rng.uniform01() * 4294967296.0);
    const float x = bits_float(u);
    if (std::isnan(x)) continue;  // the special-value case checks NaNs
    const bool ok = tensor_cores::float_to_bf16(x) == course::test::reference_bf16(x) &&
                    float_bits(tensor_cores::round_to_tf32(x)) == float_bits(course::test::reference_tf32(x));
    if (!ok && wrong++ == 0) first = u;
  }
  INFO(wrong << " of a million patterns rounded wrongly; the first: " << hex(first));
  if (wrong != 0) check_pattern(first);  // says what came out for it
  REQUIRE(wrong == 0);
}

TEST_CASE("bf16_to_float is exact and undoes float_to_bf16 on BF16 values", "[10.1]") {
  for (uint32_t top = 0; top < 0x10000u; top += 7) {
    const uint16_t b = uint16_t(top);
    const float x = tensor_cores::bf16_to_float(b);
    REQUIRE(float_bits(x) == uint32_t(b) << 16);
    if (!std::isnan(x)) REQUIRE(tensor_cores::float_to_bf16(x) == b);
  }
}

// Given code (float_to_fp16), checked here too: the same patterns and a million random ones.
TEST_CASE("float_to_fp16 rounds to nearest, ties to even, with FP16's range and subnormals", "[10.1]") {
  std::vector<uint32_t> patterns = special_patterns();
  for (float v : {65504.0f, 65519.99f, 65520.0f, 65535.0f, 0x1p-14f, 0x1p-24f, 0x1p-25f, 0x1.000002p-25f, 0x1.8p-24f,
                  0x1.4p-24f, 0x1.ffcp-15f, 0x1.ffep-15f, 6.1e-5f, -2.5e-7f})
    patterns.push_back(float_bits(v));
  course::Rng rng(303);
  for (int i = 0; i < 1000000; ++i) {
    // Half of them near FP16's range, where it differs from BF16's: exponents 2^-30 .. 2^17.
    const uint32_t u = uint32_t(rng.uniform01() * 4294967296.0);
    patterns.push_back(i % 2 ? u : (u & 0x807fffffu) | ((97u + uint32_t(rng.uniform_int(48))) << 23));
  }
  size_t wrong = 0;
  uint32_t first = 0;
  for (uint32_t u : patterns) {
    const float x = bits_float(u);
    const uint16_t got = tensor_cores::float_to_fp16(x), want = course::test::reference_fp16(x);
    const bool ok = std::isnan(x) ? ((got & 0x7c00) == 0x7c00 && (got & 0x3ff) != 0 && (got >> 15) == (want >> 15))
                                  : got == want;
    if (!ok && wrong++ == 0) first = u;
  }
  INFO(wrong << " of " << patterns.size() << " patterns rounded wrongly; the first: " << hex(first) << " -> "
              << hex(tensor_cores::float_to_fp16(bits_float(first))) << ", expected "
              << hex(course::test::reference_fp16(bits_float(first))));
  REQUIRE(wrong == 0);
}

TEST_CASE("format_info: what each format keeps", "[10.1]") {
  const auto bf16 = tensor_cores::format_info("bf16");
  CHECK(bf16.mantissa_bits == 7);
  CHECK(bf16.epsilon == Approx(0x1p-7));
  CHECK(tensor_cores::format_info("fp16").largest == Approx(65504.0));
  CHECK(tensor_cores::format_info("tf32").smallest_normal == Approx(0x1p-126));
  CHECK(tensor_cores::format_info("fp32").largest == Approx(3.4028234663852886e38));
  REQUIRE_THROWS_AS(tensor_cores::format_info("fp8"), course::Error);
}
