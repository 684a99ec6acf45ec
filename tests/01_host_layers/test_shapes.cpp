// The output sizes every later lesson takes from lesson 01's ConvShape and PoolShape.
#include "host_layers.hpp"
#include "layer_test_support.hpp"

TEST_CASE("conv and pool output sizes, including a kernel larger than the padded image", "[shapes]") {
  host_layers::ConvShape c;
  c.height = 28, c.width = 27, c.kernel_h = 5, c.kernel_w = 5, c.stride = 1, c.pad = 2;
  CHECK(c.out_h() == 28);
  CHECK(c.out_w() == 27);
  c.height = 2, c.width = 2, c.pad = 1, c.stride = 3;  // padded 4 < kernel 5: no window fits
  CHECK(c.out_h() == 0);
  CHECK(c.out_w() == 0);
  CHECK(c.output_size() == 0);
  c.height = 3, c.width = 4, c.pad = 1, c.stride = 3;  // padded 5 x 6: one window down, one across
  CHECK(c.out_h() == 1);
  CHECK(c.out_w() == 1);

  host_layers::PoolShape p;
  p.height = 7, p.width = 6, p.window = 3, p.stride = 2;
  CHECK(p.out_h() == 3);
  CHECK(p.out_w() == 2);
  p.height = 1, p.width = 2, p.window = 3;  // the window does not fit
  CHECK(p.out_h() == 0);
  CHECK(p.out_w() == 0);
}
