#include "harness/engine_settings.h"

#include "base/user_error.h"

namespace mlh {

void EngineSettings::bind(ConfigMap& config) {
  config.bind("max_epochs", max_epochs, "stop with status aborted after this many epochs");
  config.bind("eval_every_epochs", eval_every_epochs,
              "evaluate every this many epochs (from epoch eval_offset + 1); an evaluation ends each block");
  config.bind("eval_offset", eval_offset,
              "the first evaluation follows epoch eval_offset + 1, from 0 to eval_every_epochs - 1 (ResNet "
              "v0.7: every 4 epochs, offset 0-3); -1: eval_every_epochs - 1, i.e. after epochs N, 2N, ...");
  config.bind("eval_epochs", eval_epochs,
              "evaluate after exactly these epochs, strictly increasing (SSD v0.7: [40, 50, 55, 60, 65, 70, 75, "
              "80]); empty: every eval_every_epochs. max_epochs always ends with an evaluation");
  config.bind("throughput_warmup_steps", throughput_warmup_steps,
              "training steps left out of the steady-state throughput", at_least(0));
  config.bind("blas_threads", blas_threads,
              "threads of the BLAS library's own pool (0: one per core); 1 keeps results independent "
              "of the rank count",
              at_least(0));
  config.bind("intra_op_threads", intra_op_threads,
              "LibTorch's intra-op threads per rank (0: one per core of the rank's share); 1 suits "
              "models whose matrices are too small to split",
              at_least(0));
  config.bind("openmp_spin_count", openmp_spin_count,
              "GOMP_SPINCOUNT of the OpenMP threads (-1: libgomp's default); small values stop idle "
              "threads from spinning on cores the BLAS threads need",
              at_least(-1));
  config.bind("device", device,
              "auto: one GPU per rank (local rank r on GPU r) when the build and machine have GPUs, "
              "else the CPU; cpu; cuda (an error without a GPU)",
              one_of({"auto", "cpu", "cuda"}));
  config.bind("cudnn_benchmark", gpu_math.cudnn_benchmark,
              "GPU: let cuDNN time its algorithms for each new input shape and keep the fastest");
  config.bind("cudnn_deterministic", gpu_math.cudnn_deterministic,
              "GPU: deterministic algorithms only (slower; a warning where an op has none)");
  config.bind("allow_tf32", gpu_math.allow_tf32,
              "GPU: fp32 matrix products and convolutions on TF32 tensor cores (Ampere and newer), as "
              "PyTorch's references ran on A100");
  config.bind("submission_org", submission_org, "MLPerf submission_org");
  config.bind("submission_division", submission_division, "MLPerf submission_division",
              one_of({"closed", "open"}));
  config.bind("submission_status", submission_status, "MLPerf submission_status",
              one_of({"cloud", "onprem", "preview", "research"}));
}

void EngineSettings::validate() const {
  eval_schedule();
  if (submission_org.empty()) throw UserError("key 'submission_org' must not be empty");
}

EvalSchedule EngineSettings::eval_schedule() const {
  if (eval_epochs.empty()) return EvalSchedule::every(eval_every_epochs, eval_offset, max_epochs);
  if (eval_every_epochs != 1 || eval_offset != -1)
    throw UserError("keys 'eval_epochs' and 'eval_every_epochs' / 'eval_offset' are two evaluation schedules; set "
                    "one (with eval_epochs, leave eval_every_epochs at 1 and eval_offset at -1)");
  return EvalSchedule::at_epochs(eval_epochs, max_epochs);
}

}  // namespace mlh
