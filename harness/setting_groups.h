// Groups of settings several workloads bind alike, each with its keys, help, bounds and choices in
// one place. A workload's settings struct derives from the groups it has, so each key stays a field
// of the workload's settings under the key's own name, and calls each group's bind from its own.
#pragma once

#include <string>

#include "compliance/mllog_keys.h"
#include "compliance/mllogger.h"
#include "harness/fused_adam.h"
#include "harness/mixed_precision.h"
#include "harness/settings.h"

namespace mlh {

// In what precision the model computes (where is the engine's `device`): precision.
struct ComputeSettings {
  Precision precision = Precision::kFp32;

  void bind(ConfigMap& c) {
    c.bind_choice("precision", precision,
                  "fp32 (TF32 on Ampere and newer GPUs while allow_tf32 is on); fp32-strict: fp32 with TF32 off; amp: fp16 autocast + loss scaling on CUDA, bf16 autocast on CPU; bf16: bf16 autocast on either", precision_names());
  }
};

// Adam's hyperparameters but the learning rate (which each workload schedules its own way):
// adam_beta1, adam_beta2, adam_epsilon.
struct AdamSettings {
  double adam_beta1;
  double adam_beta2;
  double adam_epsilon;

  AdamSettings(double beta1, double beta2, double epsilon) : adam_beta1(beta1), adam_beta2(beta2), adam_epsilon(epsilon) {}

  void bind(ConfigMap& c) {
    c.bind("adam_beta1", adam_beta1, "Adam beta1", in_range(0.0, 1.0, Ends::kOpenHigh));
    c.bind("adam_beta2", adam_beta2, "Adam beta2", in_range(0.0, 1.0, Ends::kOpenHigh));
    c.bind("adam_epsilon", adam_epsilon, "Adam epsilon", above(0.0));
  }

  AdamOptions adam_options(double learning_rate) const {
    return AdamOptions{learning_rate, adam_beta1, adam_beta2, adam_epsilon};
  }

  // opt_name adam, opt_base_learning_rate and the opt_adam_* keys.
  void log_adam(MLLogger& log, double base_learning_rate) const {
    log.event(keys::kOptName, keys::kAdam);
    log.event(keys::kOptBaseLearningRate, base_learning_rate);
    log.event(keys::kOptAdamBeta1, adam_beta1);
    log.event(keys::kOptAdamBeta2, adam_beta2);
    log.event(keys::kOptAdamEpsilon, adam_epsilon);
  }
};

}  // namespace mlh
