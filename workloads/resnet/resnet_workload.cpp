// ResNet-50 v1.5 image classification wired into the engine: SGD with momentum, linear warm-up then
// polynomial decay (the MLPerf SGD recipe), label smoothing, weight decay on conv and FC weights only,
// top-1 on the whole eval set (spec/workloads.md §2). Data: the MNIST-family IDX files (the mini
// config trains a narrow, small-input ResNet-50 on Fashion-MNIST); the ImageNet folder loader comes
// next and adds data_source imagenet.
#include <cmath>

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "compliance/mllog_keys.h"
#include "compliance/user_error.h"
#include "datasets/idx.h"
#include "datasets/movielens/negatives.h"
#include "datasets/sharded_sampler.h"
#include "harness/gradient_allreduce.h"
#include "harness/workload.h"
#include "workloads/common/resnet.h"

namespace mlh::resnet {

namespace {

struct ResNetSettings {
  std::string data_source = "fashion_mnist";
  std::string data_path = "/usr/share/datasets/fashion-mnist";
  int64_t depth = 50;
  double width = 1.0;
  int64_t num_classes = 1000;
  bool small_input = false;
  double pixel_mean = 0.2860;   // Fashion-MNIST train set
  double pixel_std = 0.3530;
  int64_t random_crop_padding = 2;
  bool random_flip = true;
  int64_t global_batch_size = 256;
  int64_t gradient_shards = 1;
  double base_learning_rate = 0.1;
  double end_learning_rate = 0.0001;
  double warmup_epochs = 1;
  double decay_epochs = 10;
  double poly_power = 2;
  double momentum = 0.9;
  double weight_decay = 5e-5;
  double label_smoothing = 0.1;
  double target_top1 = 0.759;

  void bind(ConfigMap& c) {
    c.bind("data_source", data_source, "fashion_mnist (IDX files in data_path)");
    c.bind("data_path", data_path, "folder holding the dataset");
    c.bind("depth", depth, "ResNet depth: 18, 34, 50, 101 or 152");
    c.bind("width", width, "channel width multiplier (1.0 = ResNet-50)");
    c.bind("num_classes", num_classes, "classifier outputs");
    c.bind("small_input", small_input, "3x3 stride-1 stem without max-pool, for 28x28 images");
    c.bind("pixel_mean", pixel_mean, "mean subtracted from pixels in [0,1]");
    c.bind("pixel_std", pixel_std, "pixels are divided by this after the mean");
    c.bind("random_crop_padding", random_crop_padding, "training crops: pad by this many pixels, crop back");
    c.bind("random_flip", random_flip, "training images flipped left-right with probability 1/2");
    c.bind("global_batch_size", global_batch_size, "training images per step over all ranks");
    c.bind("gradient_shards", gradient_shards, "gradient shards per global batch (a power of two)");
    c.bind("base_learning_rate", base_learning_rate, "SGD learning rate after warm-up");
    c.bind("end_learning_rate", end_learning_rate, "learning rate at the end of the decay");
    c.bind("warmup_epochs", warmup_epochs, "linear warm-up from 0, in epochs");
    c.bind("decay_epochs", decay_epochs, "polynomial decay length after warm-up, in epochs");
    c.bind("poly_power", poly_power, "power of the polynomial decay");
    c.bind("momentum", momentum, "SGD momentum");
    c.bind("weight_decay", weight_decay, "L2 on conv and FC weights (not BN, not biases)");
    c.bind("label_smoothing", label_smoothing, "label smoothing of the cross-entropy");
    c.bind("target_top1", target_top1, "top-1 accuracy at which the run has converged");
  }

  void validate() const {
    if (data_source != "fashion_mnist")
      throw UserError("key 'data_source' is '" + data_source + "'; expected fashion_mnist");
    if (global_batch_size < 1) throw UserError("key 'global_batch_size' must be positive");
    if (base_learning_rate <= 0) throw UserError("key 'base_learning_rate' must be positive");
    if (warmup_epochs < 0 || decay_epochs <= 0) throw UserError("keys 'warmup_epochs' >= 0 and 'decay_epochs' > 0");
    if (pixel_std <= 0) throw UserError("key 'pixel_std' must be positive");
    if (random_crop_padding < 0) throw UserError("key 'random_crop_padding' must be >= 0");
    if (!(target_top1 > 0 && target_top1 <= 1)) throw UserError("key 'target_top1' must be in (0, 1]");
  }
};

common::ResNet build_model(const ResNetSettings& s, int64_t in_channels) {
  return common::ResNet(common::ResNetOptions(s.depth)
                            .num_classes(s.num_classes)
                            .width(s.width)
                            .in_channels(in_channels)
                            .small_input(s.small_input));
}

// SGD with momentum; weight decay only on conv and FC weights, as the reference applies L2.
std::unique_ptr<torch::optim::SGD> build_optimizer(common::ResNet& model, const ResNetSettings& s) {
  std::vector<torch::Tensor> decayed, plain;
  for (const auto& named : model->named_parameters()) {
    const bool is_weight = named.value().dim() > 1;
    (is_weight ? decayed : plain).push_back(named.value());
  }
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(decayed, std::make_unique<torch::optim::SGDOptions>(
                                   torch::optim::SGDOptions(s.base_learning_rate).momentum(s.momentum).weight_decay(s.weight_decay)));
  groups.emplace_back(plain, std::make_unique<torch::optim::SGDOptions>(
                                 torch::optim::SGDOptions(s.base_learning_rate).momentum(s.momentum)));
  return std::make_unique<torch::optim::SGD>(groups, torch::optim::SGDOptions(s.base_learning_rate));
}

class ResNetWorkload final : public Workload {
 public:
  std::string benchmark() const override { return "resnet"; }
  void bind_settings(ConfigMap& config) override { settings_.bind(config); }
  void validate_settings() const override { settings_.validate(); }
  std::vector<std::string> data_files() const override { return {}; }

  WorkloadInfo init(const RunContext& context) override {
    world_ = &context.world;
    seed_ = context.seed;
    train_ = read_mnist_folder(settings_.data_path, "train");
    eval_ = read_mnist_folder(settings_.data_path, "t10k");
    for (const LabeledImages* set : {&train_, &eval_})
      for (uint8_t label : set->labels)
        if (label >= settings_.num_classes)
          throw UserError(set->labels_path + ": label " + std::to_string(label) + " is not below num_classes " +
                          std::to_string(settings_.num_classes));
    shards_per_rank(settings_.gradient_shards, world_->size(), "gradient_shards");
    sampler_ = std::make_unique<ShardedSampler>(train_.count, settings_.global_batch_size, world_->rank(),
                                                world_->size(), seed_);
    torch::manual_seed(seed_);
    model_ = build_model(settings_, 1);
    optimizer_ = build_optimizer(model_, settings_);
    parameters_ = model_->parameters();
    gradient_ = std::make_unique<ShardedGradient>(parameters_, *world_);
    gradient_->broadcast_parameters();

    const int64_t steps = sampler_->num_batches();
    warmup_steps_ = static_cast<int64_t>(std::llround(settings_.warmup_epochs * steps));
    decay_steps_ = static_cast<int64_t>(std::llround(settings_.decay_epochs * steps));

    MLLogger& log = context.logger;
    log.event(keys::kOptName, "sgd");
    log.event("sgd_opt_base_learning_rate", settings_.base_learning_rate);
    log.event("sgd_opt_end_learning_rate", settings_.end_learning_rate);
    log.event("sgd_opt_learning_rate_decay_poly_power", settings_.poly_power);
    log.event("sgd_opt_learning_rate_decay_steps", decay_steps_);
    log.event("sgd_opt_weight_decay", settings_.weight_decay);
    log.event("sgd_opt_momentum", settings_.momentum);
    log.event("opt_learning_rate_warmup_epochs", settings_.warmup_epochs);
    log.event("model_bn_span", settings_.global_batch_size / settings_.gradient_shards);
    log.event("label_smoothing", settings_.label_smoothing);
    log.event(keys::kEvalTarget, settings_.target_top1);

    WorkloadInfo info;
    info.global_batch_size = settings_.global_batch_size;
    info.train_samples = train_.count;
    info.eval_samples = eval_.count;
    info.parameter_count = 0;
    for (const auto& p : parameters_) info.parameter_count += p.numel();
    info.quality_name = "top1";
    info.target = settings_.target_top1;
    return info;
  }

  int64_t steps_per_epoch() const override { return sampler_->num_batches(); }

  TrainStats train_epoch(int64_t epoch, Progress& progress) override {
    model_->train();
    sampler_->set_epoch(epoch);
    double local_loss = 0;
    for (int64_t b = 0; b < sampler_->num_batches(); ++b) {
      set_learning_rate(step_++);
      optimizer_->zero_grad();
      const auto shards = sampler_->local_shards(b, settings_.gradient_shards);
      const int64_t global_count = shards.front().global_size;
      const int64_t count = shards.back().end - shards.front().begin;
      const double loss_total = gradient_->compute(static_cast<int64_t>(shards.size()), [&](int64_t k) {
        const ShardedSampler::Slice& slice = shards[static_cast<size_t>(k)];
        const int64_t n = slice.end - slice.begin;
        if (n == 0) return 0.0;
        auto [images, labels] = batch(train_, sampler_->indices(slice), n, epoch, true);
        torch::Tensor loss = torch::nn::functional::cross_entropy(
            model_->forward(images), labels,
            torch::nn::functional::CrossEntropyFuncOptions().label_smoothing(settings_.label_smoothing)
                .reduction(torch::kSum));
        (loss / static_cast<double>(global_count)).backward();
        return loss.item<double>();
      });
      optimizer_->step();
      local_loss += loss_total;
      progress.step(global_count, count > 0 ? loss_total / count : 0.0);
    }
    TrainStats stats;
    stats.samples = train_.count;
    stats.mean_loss = world_->allreduce_sum(local_loss) / static_cast<double>(train_.count);
    return stats;
  }

  Quality evaluate(int64_t epoch) override {
    model_->eval();
    torch::NoGradGuard no_grad;
    const auto [first, last] = proportional_part(eval_.count, world_->size(), world_->rank());
    std::vector<int32_t> indices(static_cast<size_t>(last - first));
    for (int64_t i = first; i < last; ++i) indices[static_cast<size_t>(i - first)] = static_cast<int32_t>(i);
    int64_t correct = 0;
    const int64_t chunk = 500;
    for (int64_t begin = 0; begin < static_cast<int64_t>(indices.size()); begin += chunk) {
      const int64_t n = std::min<int64_t>(chunk, static_cast<int64_t>(indices.size()) - begin);
      auto [images, labels] = batch(eval_, indices.data() + begin, n, epoch, false);
      correct += model_->forward(images).argmax(1).eq(labels).sum().item<int64_t>();
    }
    Quality quality;
    quality.primary = "top1";
    quality.values["top1"] = world_->allreduce_sum(static_cast<double>(correct)) / static_cast<double>(eval_.count);
    return quality;
  }

  std::unique_ptr<BenchStep> make_bench_step(const BenchSpec& spec, const World& world) override;

 private:
  // Normalised images [n, 1, rows, cols] and labels for the given sample indices. Training images
  // get a random flip and a random crop from the zero-padded image, each drawn from (seed, epoch,
  // sample) alone, so any rank count draws the same augmentation.
  std::pair<torch::Tensor, torch::Tensor> batch(const LabeledImages& set, const int32_t* indices, int64_t n,
                                                int64_t epoch, bool augment) const {
    const int64_t rows = set.rows, cols = set.cols, pad = augment ? settings_.random_crop_padding : 0;
    torch::Tensor images = torch::empty({n, 1, rows, cols}, torch::kFloat);
    torch::Tensor labels = torch::empty({n}, torch::kLong);
    float* out = images.data_ptr<float>();
    int64_t* label_out = labels.data_ptr<int64_t>();
    const float scale = static_cast<float>(1.0 / (255.0 * settings_.pixel_std));
    const float shift = static_cast<float>(settings_.pixel_mean / settings_.pixel_std);
    at::parallel_for(0, n, 64, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const int64_t sample = indices[i];
        const uint64_t r = augment ? movielens::counter_random(seed_, 0x696d616765ULL + epoch, sample) : 0;
        const bool flip = augment && settings_.random_flip && (r & 1);
        const int64_t dy = pad ? static_cast<int64_t>((r >> 8) % (2 * pad + 1)) - pad : 0;
        const int64_t dx = pad ? static_cast<int64_t>((r >> 24) % (2 * pad + 1)) - pad : 0;
        const uint8_t* src = set.pixels.data() + sample * rows * cols;
        float* dst = out + i * rows * cols;
        for (int64_t y = 0; y < rows; ++y) {
          for (int64_t x = 0; x < cols; ++x) {
            const int64_t sy = y + dy, sx0 = x + dx;
            const int64_t sx = flip ? cols - 1 - sx0 : sx0;
            const bool inside = sy >= 0 && sy < rows && sx0 >= 0 && sx0 < cols;
            dst[y * cols + x] = (inside ? src[sy * cols + sx] : 0) * scale - shift;
          }
        }
        label_out[i] = set.labels[static_cast<size_t>(sample)];
      }
    });
    return {images, labels};
  }

  // Linear warm-up from 0 to the base rate, then polynomial decay to the end rate.
  void set_learning_rate(int64_t step) {
    double lr;
    if (step < warmup_steps_) {
      lr = settings_.base_learning_rate * static_cast<double>(step + 1) / static_cast<double>(warmup_steps_);
    } else {
      const double progress = std::min(1.0, static_cast<double>(step - warmup_steps_) / static_cast<double>(decay_steps_));
      lr = (settings_.base_learning_rate - settings_.end_learning_rate) * std::pow(1.0 - progress, settings_.poly_power) +
           settings_.end_learning_rate;
    }
    for (auto& group : optimizer_->param_groups())
      static_cast<torch::optim::SGDOptions&>(group.options()).lr(lr);
  }

  ResNetSettings settings_;
  const World* world_ = nullptr;
  uint64_t seed_ = 0;
  LabeledImages train_, eval_;
  std::unique_ptr<ShardedSampler> sampler_;
  common::ResNet model_{nullptr};
  std::unique_ptr<torch::optim::SGD> optimizer_;
  std::vector<torch::Tensor> parameters_;
  std::unique_ptr<ShardedGradient> gradient_;
  int64_t warmup_steps_ = 0, decay_steps_ = 1, step_ = 0;
};

// A training (or forward-only) step of the configured model on random images of the configured size.
class ResNetBenchStep final : public BenchStep {
 public:
  ResNetBenchStep(const ResNetSettings& settings, const BenchSpec& spec, const World& world)
      : batch_(spec.batch_size), inference_(spec.inference), world_(world) {
    if (spec.precision != "fp32")
      throw UserError("resnet bench supports precision fp32 (asked for '" + spec.precision + "')");
    torch::manual_seed(0);
    const int64_t in_channels = settings.data_source == "fashion_mnist" ? 1 : 3;
    const int64_t size = settings.small_input ? 28 : 224;
    model_ = build_model(settings, in_channels);
    optimizer_ = build_optimizer(model_, settings);
    reducer_ = std::make_unique<GradientAllReducer>(model_->parameters(), world);
    images_ = torch::randn({batch_, in_channels, size, size});
    labels_ = torch::randint(settings.num_classes, {batch_}, torch::kLong);
  }
  void run() override {
    if (inference_) {
      model_->eval();
      torch::NoGradGuard no_grad;
      model_->forward(images_);
      return;
    }
    optimizer_->zero_grad();
    torch::nn::functional::cross_entropy(model_->forward(images_), labels_).backward();
    reducer_->allreduce_sum();
    optimizer_->step();
  }
  int64_t samples_per_step() const override { return batch_; }
  std::string sample_unit() const override { return "images"; }

 private:
  int64_t batch_;
  bool inference_;
  const World& world_;
  common::ResNet model_{nullptr};
  std::unique_ptr<torch::optim::SGD> optimizer_;
  std::unique_ptr<GradientAllReducer> reducer_;
  torch::Tensor images_, labels_;
};

std::unique_ptr<BenchStep> ResNetWorkload::make_bench_step(const BenchSpec& spec, const World& world) {
  return std::make_unique<ResNetBenchStep>(settings_, spec, world);
}

}  // namespace

MLH_REGISTER_WORKLOAD("resnet50", "ResNet-50 v1.5 image classification, top-1 (MLPerf)", ResNetWorkload);

}  // namespace mlh::resnet
