#include "harness/adam_kernel.h"

#include <cmath>

// Built with -fno-math-errno and -ffp-contract=off (harness/CMakeLists.txt): sqrt needs no errno
// branch, so the loop vectorises, and no multiply-add is fused, so every vector width rounds alike.
// On x86-64 the loop is cloned for AVX-512, AVX2 and the baseline; the dynamic loader picks the
// widest the CPU has.
namespace mlh {

#if defined(__x86_64__) && defined(__GNUC__)
[[gnu::target_clones("avx512f", "avx2", "default")]]
#endif
void adam_update(float* __restrict param, const float* __restrict grad, float* __restrict exp_avg,
                 float* __restrict exp_avg_sq, int64_t n, const AdamStepConstants& constants) {
  const AdamStepConstants c = constants;  // a local copy: no reload after every store
  for (int64_t i = 0; i < n; ++i) {
    const float g = grad[i] + c.weight_decay * param[i];
    const float m = c.beta1 * exp_avg[i] + c.one_minus_beta1 * g;
    const float v = c.beta2 * exp_avg_sq[i] + c.one_minus_beta2 * g * g;
    exp_avg[i] = m;
    exp_avg_sq[i] = v;
    const float denom = std::sqrt(v) * c.inverse_bias_correction2_sqrt + c.epsilon;
    param[i] -= c.step_size * m / denom;
  }
}

}  // namespace mlh
