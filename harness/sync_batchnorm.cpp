#include "harness/sync_batchnorm.h"

#include <ostream>

#include <torch/torch.h>
#include <torch/version.h>

#include "base/user_error.h"

#if TORCH_VERSION_MAJOR < 2
// LibTorch 1.13 declares BatchNormImplBase::pretty_print in its header and defines it in its library
// without exporting it (2.x defines it in the header). A subclass's construction vtables name it, so
// this translation unit, which emits SyncBatchNorm2dImpl's vtables, defines it for 1.13.
template <size_t D, typename Derived>
void torch::nn::BatchNormImplBase<D, Derived>::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::BatchNorm" << D << "d(" << this->options.num_features() << ")";
}
#endif

namespace mlh {

namespace {

// Sums `values` over the ranks of this rank's group, in double, through the world's communicator.
// Groups smaller than the world share one all-reduce: each rank writes its values into its group's row
// of a [groups, n] buffer of zeros, so every row sums its own group's ranks alone. Returns the sums on
// `values`' device.
torch::Tensor group_sum(const torch::Tensor& values, const BatchNormGroup& group) {
  const World& world = *group.world;
  const int groups = world.size() / group.size;
  const int64_t row = world.rank() / group.size;
  torch::Tensor buffer = torch::zeros({groups, values.numel()}, torch::TensorOptions(torch::kDouble).device(world.comm().device()));
  buffer[row].copy_(values.reshape({-1}));
  world.comm().allreduce_sum(buffer);
  return buffer[row].view(values.sizes()).to(values.device());
}

torch::Tensor per_channel(const torch::Tensor& values) { return values.view({1, -1, 1, 1}); }

// What the normalisation computes in: float for half and bfloat16 inputs (as BatchNorm does), else
// the input's own type.
torch::ScalarType compute_type(const torch::Tensor& x) {
  return x.scalar_type() == torch::kDouble ? torch::kDouble : torch::kFloat;
}

struct GroupCapsule : torch::CustomClassHolder {
  explicit GroupCapsule(const BatchNormGroup& g) : group(g) {}
  BatchNormGroup group;
};

// y = (x - mean) * invstd * weight + bias with the group's mean and invstd (constants to autograd:
// backward accounts for their dependence on x through the group's sums).
class SyncBatchNormFunction : public torch::autograd::Function<SyncBatchNormFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x, const torch::Tensor& weight,
                               const torch::Tensor& bias, const torch::Tensor& mean, const torch::Tensor& invstd,
                               const torch::Tensor& count, BatchNormGroup group) {
    ctx->save_for_backward({x, weight, mean, invstd, count});
    ctx->saved_data["group"] = c10::IValue::make_capsule(c10::make_intrusive<GroupCapsule>(group));
    const torch::Tensor scale = weight.defined() ? invstd * weight.to(invstd.scalar_type()) : invstd;
    torch::Tensor shift = -mean * scale;
    if (bias.defined()) shift = shift + bias.to(invstd.scalar_type());
    return (x.to(compute_type(x)) * per_channel(scale) + per_channel(shift)).to(x.scalar_type());
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor &x = saved[0], &weight = saved[1], &mean = saved[2], &invstd = saved[3], &count = saved[4];
    const BatchNormGroup group =
        c10::static_intrusive_pointer_cast<GroupCapsule>(ctx->saved_data["group"].toCapsule())->group;
    const torch::ScalarType type = compute_type(x);
    const torch::Tensor dy = grad_outputs[0].to(type);
    const torch::Tensor xhat = (x.to(type) - per_channel(mean)) * per_channel(invstd);
    const std::vector<int64_t> reduced{0, 2, 3};
    const torch::Tensor sum_dy = dy.sum(reduced), sum_dy_xhat = (dy * xhat).sum(reduced);
    // Every rank of the group all-reduces, whether or not its input needs a gradient.
    const torch::Tensor group_sums = group_sum(torch::stack({sum_dy, sum_dy_xhat}), group).to(type);
    const torch::Tensor n = count.to(type);
    const torch::Tensor scale = weight.defined() ? invstd * weight.to(type) : invstd;
    const torch::Tensor dx = (dy - per_channel(group_sums[0] / n) - xhat * per_channel(group_sums[1] / n)) *
                             per_channel(scale);
    torch::Tensor grad_weight, grad_bias;
    if (weight.defined()) {
      grad_weight = sum_dy_xhat.to(weight.scalar_type());
      grad_bias = sum_dy.to(weight.scalar_type());
    }
    return {dx.to(x.scalar_type()), grad_weight, grad_bias, torch::Tensor(), torch::Tensor(), torch::Tensor(),
            torch::Tensor()};
  }
};

}  // namespace

BatchNormGroup make_batchnorm_group(const World& world, int64_t size, const std::string& key) {
  if (size < 1 || world.size() % size != 0)
    throw UserError("key '" + key + "' is " + std::to_string(size) + "; BatchNorm groups are blocks of ranks, so it must be " +
                    "at least 1 and divide the " + std::to_string(world.size()) + " rank" +
                    (world.size() > 1 ? "s" : "") + " of this run (1 = every rank on its own)");
  return BatchNormGroup{&world, static_cast<int>(size)};
}

torch::Tensor sync_batch_norm(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                              torch::Tensor running_mean, torch::Tensor running_var, double momentum, double eps,
                              const BatchNormGroup& group) {
  MLH_ASSERT(group.synchronised() && x.dim() == 4);
  const int64_t channels = x.size(1);
  const int64_t local_count = channels > 0 ? x.numel() / channels : 0;
  torch::Tensor mean, var, count;
  {
    torch::NoGradGuard no_grad;
    // This rank's count, sum and sum of squares per channel, from its own (numerically stable) mean
    // and variance; summed over the group in double.
    torch::Tensor local = torch::zeros({3, channels}, x.options().dtype(torch::kDouble));
    if (local_count > 0) {
      const auto [local_var, local_mean] =
          torch::var_mean(x.to(compute_type(x)), at::IntArrayRef{0, 2, 3}, /*unbiased=*/false, /*keepdim=*/false);
      const torch::Tensor mean_d = local_mean.to(torch::kDouble), var_d = local_var.to(torch::kDouble);
      local[0].fill_(static_cast<double>(local_count));
      local[1].copy_(mean_d * static_cast<double>(local_count));
      local[2].copy_((var_d + mean_d * mean_d) * static_cast<double>(local_count));
    }
    const torch::Tensor sums = group_sum(local, group);
    count = sums[0];
    mean = sums[1] / count;
    var = (sums[2] / count - mean * mean).clamp_min(0.0);
    if (running_mean.defined())
      running_mean.mul_(1.0 - momentum).add_(mean.to(running_mean.scalar_type()), momentum);
    if (running_var.defined())
      running_var.mul_(1.0 - momentum).add_((var * count / (count - 1.0)).to(running_var.scalar_type()), momentum);
  }
  const torch::ScalarType type = compute_type(x);
  return SyncBatchNormFunction::apply(x, weight, bias, mean.to(type), (var + eps).rsqrt().to(type), count, group);
}

torch::Tensor SyncBatchNorm2dImpl::forward(const torch::Tensor& input) {
  if (!group_.synchronised() || !is_training()) return torch::nn::BatchNorm2dImpl::forward(input);
  _check_input_dim(input);
  // BatchNorm2d's rule for the running statistics' factor (momentum, or the cumulative mean without one).
  double factor = options.momentum().value_or(0.0);
  if (options.track_running_stats() && num_batches_tracked.defined()) {
    num_batches_tracked += 1;
    factor = options.momentum() ? *options.momentum() : 1.0 / num_batches_tracked.item<double>();
  }
  return sync_batch_norm(input, weight, bias, running_mean, running_var, factor, options.eps(), group_);
}

void SyncBatchNorm2dImpl::pretty_print(std::ostream& stream) const {
  stream << "mlh::SyncBatchNorm2d(" << options.num_features() << ", eps=" << options.eps()
         << ", momentum=" << options.momentum().value_or(0.0) << ", group=" << group_.size << ")";
}

int64_t set_batchnorm_group(torch::nn::Module& model, const BatchNormGroup& group) {
  int64_t set = 0;
  for (const auto& module : model.modules(/*include_self=*/true))
    if (auto* norm = module->as<SyncBatchNorm2dImpl>()) {
      norm->set_group(group);
      ++set;
    }
  return set;
}

}  // namespace mlh
