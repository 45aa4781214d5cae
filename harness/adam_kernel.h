// The elementwise Adam update on float arrays, in one pass over memory (harness/fused_adam.h runs it
// over parallel chunks of each parameter). No LibTorch: a plain loop the compiler vectorises.
#pragma once

#include <cstdint>

namespace mlh {

struct AdamStepConstants {
  float beta1, one_minus_beta1, beta2, one_minus_beta2;
  float step_size;                      // lr / (1 - beta1^t)
  float inverse_bias_correction2_sqrt;  // 1 / sqrt(1 - beta2^t)
  float epsilon;
  float weight_decay;
};

// For each of the n elements, torch.optim.Adam's arithmetic in float:
//   g = grad + weight_decay * param; m = beta1 m + (1 - beta1) g; v = beta2 v + (1 - beta2) g g;
//   param -= step_size * m / (sqrt(v) / sqrt(1 - beta2^t) + epsilon).
// The arrays do not overlap. Every operation is rounded on its own (no fused multiply-add), so the
// result is the same on every CPU, whichever vector width runs it.
void adam_update(float* param, const float* grad, float* exp_avg, float* exp_avg_sq, int64_t n,
                 const AdamStepConstants& constants);

}  // namespace mlh
