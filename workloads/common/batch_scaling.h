// The image workloads' per-device batch and the learning-rate rules that follow the global batch it
// makes, as pure functions (spec/workloads.md §2 ResNet-50, §3 SSD). A config's global_batch_size,
// base_learning_rate and warm-up are the recipe's reference point; batch_size_per_device > 0 makes the
// global batch per-device x ranks and moves the rate and warm-up by the recipe's rule:
//  - ResNet-50 SGD: rate x global / reference (the reference's 0.128 x B/256, resnet_run_loop.py
//    learning_rate_with_decay), warm-up epochs as written (5 at any batch in the reference);
//  - ResNet-50 LARS: the reference's table by global batch (poly_rate_fn, T06/T07): peak 5.0 below
//    8k, 10.0 below 16k, 25.0 below 32k, else 32.0; warm-up 5 epochs, 14 from 32k; the decay ends at
//    the epoch the configured one ends (the reference decays to its 90th epoch);
//  - SSD: rate x global / reference (train.py: lr x global_batch / 32), warm-up kept in samples (the
//    v0.7 reference gives it as a fraction of an epoch: wb = int(warmup x images / global_batch)).
// batch_size_per_device 0 leaves every key as written.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "base/user_error.h"

namespace mlh::common {

// The global batch: global_batch_size when per_device is 0, else per_device x world_size.
inline int64_t global_batch_size(int64_t per_device, int64_t global_batch_size, int world_size) {
  if (per_device < 0) throw UserError("key 'batch_size_per_device' is " + std::to_string(per_device) + "; 0 (use global_batch_size) or more");
  return per_device == 0 ? global_batch_size : per_device * world_size;
}

inline double linearly_scaled_learning_rate(double rate, int64_t reference_batch, int64_t global_batch) {
  return rate * static_cast<double>(global_batch) / static_cast<double>(reference_batch);
}

// Warm-up steps that cover the same samples at global_batch as `steps` do at reference_batch; at least 1.
inline int64_t warmup_steps_at_batch(int64_t steps, int64_t reference_batch, int64_t global_batch) {
  return std::max<int64_t>(1, std::llround(static_cast<double>(steps) * static_cast<double>(reference_batch) /
                                           static_cast<double>(global_batch)));
}

struct LarsSchedule {
  double peak_learning_rate;
  double warmup_epochs;
};

inline LarsSchedule mlperf_lars_schedule(int64_t global_batch) {
  if (global_batch < 8192) return {5.0, 5};
  if (global_batch < 16384) return {10.0, 5};
  if (global_batch < 32768) return {25.0, 5};
  return {32.0, 14};
}

}  // namespace mlh::common
