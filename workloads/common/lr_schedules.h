// Learning-rate schedules the detection workloads share (SSD, spec/workloads.md §3; Mask R-CNN, §4),
// as pure functions of the step, so a resumed or re-sharded run computes the same rate.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace mlh::common {

// The MLPerf SSD warm-up (v0.6/v0.7 reference, `lr_warmup`), then step decay: for step b (from 0)
// below warmup_steps, base - (warmup_steps - b) * base / (warmup_steps * 2^warmup_factor) (factor 0:
// linear from 0); from then on base * decay_factor^k, k the number of boundary steps <= b.
inline double warmup_step_decay_learning_rate(int64_t step, double base, int64_t warmup_steps, double warmup_factor,
                                              const std::vector<int64_t>& boundary_steps, double decay_factor) {
  if (step < warmup_steps)
    return base - static_cast<double>(warmup_steps - step) * base /
                      (static_cast<double>(warmup_steps) * std::pow(2.0, warmup_factor));
  double rate = base;
  for (const int64_t boundary : boundary_steps)
    if (step >= boundary) rate *= decay_factor;
  return rate;
}

// Mask R-CNN's WarmupMultiStepLR (maskrcnn_benchmark/solver/lr_scheduler.py, linear warm-up) at our
// step b (from 0). The reference steps its scheduler before each iteration, so its iteration b + 1
// trains at last_epoch = b + 1: with i = b + 1, base * f * decay_factor^k, k the boundaries <= i, and f
// = warmup_factor (1 - i / warmup_steps) + i / warmup_steps while i < warmup_steps, else 1.
inline double linear_warmup_multistep_learning_rate(int64_t step, double base, int64_t warmup_steps,
                                                    double warmup_factor, const std::vector<int64_t>& boundary_steps,
                                                    double decay_factor) {
  const int64_t iteration = step + 1;
  double rate = base;
  if (iteration < warmup_steps) {
    const double alpha = static_cast<double>(iteration) / static_cast<double>(warmup_steps);
    rate *= warmup_factor * (1.0 - alpha) + alpha;
  }
  for (const int64_t boundary : boundary_steps)
    if (iteration >= boundary) rate *= decay_factor;
  return rate;
}

}  // namespace mlh::common
