#pragma once
// A planned conv or max-pool layer as lesson 01's shape, for `batch` examples: the one conversion
// from a LayerPlan that the trainers run the conv and pool functions with.
#include "host_layers.hpp"
#include "host_training.hpp"

namespace host_training {

inline host_layers::ConvShape conv_shape_of(const LayerPlan& plan, int batch) {
  host_layers::ConvShape s;
  s.batch = batch, s.in_channels = plan.in_c, s.height = plan.in_h, s.width = plan.in_w;
  s.out_channels = plan.out_c, s.kernel_h = s.kernel_w = plan.spec.kernel;
  s.stride = plan.spec.stride, s.pad = plan.spec.pad;
  return s;
}

inline host_layers::PoolShape pool_shape_of(const LayerPlan& plan, int batch) {
  host_layers::PoolShape s;
  s.batch = batch, s.channels = plan.in_c, s.height = plan.in_h, s.width = plan.in_w;
  s.window = plan.spec.window, s.stride = plan.spec.stride;
  return s;
}

}  // namespace host_training
