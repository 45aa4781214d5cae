// ResNet-50 v1.5 image classification wired into the engine (spec/workloads.md §2): SGD with momentum
// or LARS, linear warm-up then polynomial decay, label smoothing, weight decay on everything but
// batch norm, top-1 on the whole eval set. Data: an ImageNet folder (data_source imagenet), a
// generated one in the same layout (synthetic_imagenet), or MNIST-family IDX files (fashion_mnist,
// the mini config's narrow small-input ResNet-50).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>

#include <torch/torch.h>

#include "compliance/mllog_keys.h"
#include "base/user_error.h"
#include "datasets/generated_folder.h"
#include "datasets/idx.h"
#include "datasets/imagenet/synthetic.h"
#include "datasets/sharded_sampler.h"
#include "harness/bench.h"
#include "harness/copy_ahead.h"
#include "harness/batchnorm_statistics.h"
#include "harness/device.h"
#include "harness/lars.h"
#include "harness/setting_groups.h"
#include "harness/train_step.h"
#include "harness/workload.h"
#include "workloads/common/batch_scaling.h"
#include "workloads/common/loader_bench_step.h"
#include "workloads/common/resnet.h"
#include "workloads/common/recipe_setting_groups.h"
#include "workloads/common/workload_base.h"
#include "workloads/resnet/device_jpeg_source.h"
#include "workloads/resnet/image_source.h"
#include "workloads/resnet/resnet_trainer.h"

namespace mlh::resnet {

namespace {

namespace fs = std::filesystem;

struct ResNetSettings : ComputeSettings, LabelSmoothingSettings, BatchNormGroupSettings {
  enum class DataSource { kImageNet, kSyntheticImageNet, kFashionMnist };
  enum class OptimizerKind { kSgd, kLars };

  DataSource data_source = DataSource::kImageNet;
  std::string data_path;
  std::string class_index_file = imagenet::kClassIndexFileName;
  std::string train_split = "train";
  std::string eval_split = "val";
  int64_t image_size = 224;
  int64_t eval_resize = 256;
  int64_t loader_threads = 0;
  int64_t prefetch_batches = 3;
  bool reduced_decode = true;
  JpegDecoderKind decoder = JpegDecoderKind::kCpu;
  imagenet::BadImagePolicy on_bad_image = imagenet::BadImagePolicy::kFail;
  int64_t synthetic_classes = 10;
  int64_t synthetic_train_images_per_class = 64;
  int64_t synthetic_val_images_per_class = 16;
  int64_t synthetic_min_side = 256;
  int64_t synthetic_max_side = 512;
  int64_t synthetic_data_seed = 1;
  int64_t depth = 50;
  double width = 1.0;
  int64_t num_classes = 1000;
  bool small_input = false;
  double pixel_mean = 0.2860;   // IDX sources: Fashion-MNIST train set
  double pixel_std = 0.3530;
  int64_t random_crop_padding = 2;
  bool random_flip = true;
  int64_t global_batch_size = 256;
  int64_t batch_size_per_device = 0;
  int64_t gradient_shards = 1;
  int64_t eval_batch_size = 250;
  OptimizerKind optimizer = OptimizerKind::kSgd;
  double base_learning_rate = 0.1;
  double end_learning_rate = 0.0001;
  double warmup_epochs = 1;
  double decay_epochs = 10;
  double poly_power = 2;
  double momentum = 0.9;
  double weight_decay = 5e-5;
  double lars_eta = 0.001;
  double lars_epsilon = 0.0;
  bool channels_last = false;
  double target_top1 = 0.759;

  void bind(ConfigMap& c) {
    c.bind_choice("data_source", data_source,
                  "imagenet (folder data_path), synthetic_imagenet (generated under --data-dir), fashion_mnist (IDX files)",
                  Choices<DataSource>{{"imagenet", DataSource::kImageNet},
                                      {"synthetic_imagenet", DataSource::kSyntheticImageNet},
                                      {"fashion_mnist", DataSource::kFashionMnist}});
    c.bind("data_path", data_path, "dataset folder: <wnid>/*.JPEG under train/ and val/, or the IDX files");
    c.bind("class_index_file", class_index_file, "class list in label order, relative to data_path (wnid first per line)");
    c.bind("train_split", train_split, "training split folder under data_path");
    c.bind("eval_split", eval_split, "evaluation split folder under data_path");
    c.bind("image_size", image_size, "JPEG sources: side of the square crops the model sees", at_least(16));
    c.bind("eval_resize", eval_resize, "JPEG sources: eval images are resized to this short side, then centre-cropped");
    c.bind("loader_threads", loader_threads, "JPEG sources: decode threads per rank (0 = the rank's cores)", at_least(0));
    c.bind("prefetch_batches", prefetch_batches, "JPEG sources: batches decoded ahead of the model", at_least(1));
    c.bind("reduced_decode", reduced_decode,
           "JPEG sources: decode at 1/2, 1/4 or 1/8 scale (libjpeg's DCT scaling) where the crop keeps image_size "
           "pixels (eval: the short side eval_resize); the crop's geometry is unchanged");
    c.bind_choice("decoder", decoder,
                  "JPEG sources: cpu (libjpeg in the loader threads) or gpu (nvJPEG on the rank's GPU at full size, "
                  "libnvjpeg loaded at run time; the loader threads only read the files); gpu falls back to cpu, with "
                  "a note saying why, without a CUDA build, a GPU or libnvjpeg",
                  Choices<JpegDecoderKind>{{"cpu", JpegDecoderKind::kCpu}, {"gpu", JpegDecoderKind::kGpu}});
    c.bind_choice("on_bad_image", on_bad_image, "a corrupt or truncated image: fail (exit 2, naming it) or skip (count it)",
                  Choices<imagenet::BadImagePolicy>{{"fail", imagenet::BadImagePolicy::kFail},
                                                    {"skip", imagenet::BadImagePolicy::kSkip}});
    c.bind("synthetic_classes", synthetic_classes, "synthetic_imagenet: classes", at_least(2));
    c.bind("synthetic_train_images_per_class", synthetic_train_images_per_class, "synthetic_imagenet: train images per class",
           at_least(1));
    c.bind("synthetic_val_images_per_class", synthetic_val_images_per_class, "synthetic_imagenet: val images per class",
           at_least(1));
    c.bind("synthetic_min_side", synthetic_min_side, "synthetic_imagenet: smallest image side, pixels", at_least(16));
    c.bind("synthetic_max_side", synthetic_max_side, "synthetic_imagenet: largest image side, pixels");
    c.bind("synthetic_data_seed", synthetic_data_seed, "synthetic_imagenet: seed of the generated images (not the run seed)");
    c.bind("depth", depth, "ResNet depth: 18, 34, 50, 101 or 152");
    c.bind("width", width, "channel width multiplier (1.0 = ResNet-50)", above(0.0));
    c.bind("num_classes", num_classes, "classifier outputs (1000, or 1001 with class 0 as background)", at_least(1));
    c.bind("small_input", small_input, "3x3 stride-1 stem without max-pool, for 28x28 images");
    c.bind("pixel_mean", pixel_mean, "IDX sources: mean subtracted from pixels in [0,1]");
    c.bind("pixel_std", pixel_std, "IDX sources: pixels are divided by this after the mean", above(0.0));
    c.bind("random_crop_padding", random_crop_padding, "IDX sources: pad by this many pixels, crop back", at_least(0));
    c.bind("random_flip", random_flip, "training images flipped left-right with probability 1/2");
    c.bind("global_batch_size", global_batch_size,
           "training images per step over all ranks; with batch_size_per_device, the batch base_learning_rate is for",
           at_least(1));
    c.bind("batch_size_per_device", batch_size_per_device,
           "training images per step per rank (global batch = this x ranks; sgd: the rate scales by global / "
           "global_batch_size; lars: the reference's table by global batch); 0 = global_batch_size as written",
           at_least(0));
    c.bind("gradient_shards", gradient_shards, "gradient shards per global batch: a power of two, or 0 = one per rank",
           at_least(0));
    c.bind("eval_batch_size", eval_batch_size, "evaluation images per forward pass, per rank", at_least(1));
    c.bind_choice("optimizer", optimizer, "sgd (momentum) or lars",
                  Choices<OptimizerKind>{{keys::kSgd, OptimizerKind::kSgd}, {keys::kLars, OptimizerKind::kLars}});
    c.bind("base_learning_rate", base_learning_rate, "learning rate after warm-up", above(0.0));
    c.bind("end_learning_rate", end_learning_rate, "learning rate at the end of the decay");
    c.bind("warmup_epochs", warmup_epochs, "linear warm-up from 0, in epochs", at_least(0.0));
    c.bind("decay_epochs", decay_epochs, "polynomial decay length after warm-up, in epochs", above(0.0));
    c.bind("poly_power", poly_power, "power of the polynomial decay");
    c.bind("momentum", momentum, "momentum", at_least(0.0));
    c.bind("weight_decay", weight_decay, "L2 on every parameter but batch norm's", at_least(0.0));
    c.bind("lars_eta", lars_eta, "lars: trust coefficient", above(0.0));
    c.bind("lars_epsilon", lars_epsilon, "lars: epsilon of the trust ratio", at_least(0.0));
    LabelSmoothingSettings::bind(c);
    BatchNormGroupSettings::bind(c);
    ComputeSettings::bind(c);
    c.bind("channels_last", channels_last, "NHWC memory format for weights and activations");
    c.bind("target_top1", target_top1, "top-1 accuracy at which the run has converged", in_range(0.0, 1.0, Ends::kOpenLow));
  }

  bool jpeg_source() const { return data_source != DataSource::kFashionMnist; }

  void validate() const {
    if (data_source != DataSource::kSyntheticImageNet && data_path.empty())
      throw UserError(std::string("key 'data_path' is empty; data_source ") +
                      (jpeg_source() ? "imagenet" : "fashion_mnist") +
                      " reads its files from there (--set data_path=/path/to/" +
                      (jpeg_source() ? "imagenet" : "fashion-mnist") + ")");
    if (eval_resize < image_size) throw UserError("key 'eval_resize' must be >= image_size");
    if (synthetic_max_side < synthetic_min_side)
      throw UserError("key 'synthetic_max_side' must be >= synthetic_min_side");
  }

  imagenet::SyntheticImageNetSpec synthetic_spec() const {
    imagenet::SyntheticImageNetSpec spec;
    spec.classes = static_cast<int>(synthetic_classes);
    spec.train_images_per_class = static_cast<int>(synthetic_train_images_per_class);
    spec.val_images_per_class = static_cast<int>(synthetic_val_images_per_class);
    spec.min_side = static_cast<int>(synthetic_min_side);
    spec.max_side = static_cast<int>(synthetic_max_side);
    spec.seed = static_cast<uint64_t>(synthetic_data_seed);
    return spec;
  }
};

common::ResNet build_model(const ResNetSettings& s, int64_t in_channels) {
  return common::ResNet(common::ResNetOptions(s.depth)
                            .num_classes(s.num_classes)
                            .width(s.width)
                            .in_channels(in_channels)
                            .small_input(s.small_input));
}

// The keys of the optimizer's hyperparameters in the reference logs (closed_resnet_{sgd,lars}.yaml).
struct OptimizerKeys {
  const char* name;
  const char* base_learning_rate;
  const char* end_learning_rate;
  const char* decay_poly_power;
  const char* decay_steps;
  const char* weight_decay;
  const char* momentum;
  const char* warmup_epochs;
};
constexpr OptimizerKeys kSgdKeys{keys::kSgd,
                                 keys::kSgdOptBaseLearningRate,
                                 keys::kSgdOptEndLearningRate,
                                 keys::kSgdOptLearningRateDecayPolyPower,
                                 keys::kSgdOptLearningRateDecaySteps,
                                 keys::kSgdOptWeightDecay,
                                 keys::kSgdOptMomentum,
                                 keys::kOptLearningRateWarmupEpochs};
constexpr OptimizerKeys kLarsKeys{keys::kLars,
                                  keys::kLarsOptBaseLearningRate,
                                  keys::kLarsOptEndLearningRate,
                                  keys::kLarsOptLearningRateDecayPolyPower,
                                  keys::kLarsOptLearningRateDecaySteps,
                                  keys::kLarsOptWeightDecay,
                                  keys::kLarsOptMomentum,
                                  keys::kLarsOptLearningRateWarmupEpochs};

std::unique_ptr<Optimizer> make_optimizer(common::ResNet& model, const ResNetSettings& s) {
  std::vector<ParameterGroup> groups = parameter_groups(model, s.weight_decay);
  if (s.optimizer == ResNetSettings::OptimizerKind::kLars)
    return make_lars(std::move(groups), LarsOptions{s.base_learning_rate, s.momentum, s.lars_eta, s.lars_epsilon});
  return make_sgd(std::move(groups), SgdOptions{s.base_learning_rate, s.momentum});
}

// The schedule at the run's global batch: the keys as written, or with batch_size_per_device the
// recipe's rule (workloads/common/batch_scaling.h).
struct ResolvedSchedule {
  double base_learning_rate, warmup_epochs, decay_epochs;
};
ResolvedSchedule resolve_schedule(const ResNetSettings& s, int64_t global_batch) {
  if (s.batch_size_per_device == 0) return {s.base_learning_rate, s.warmup_epochs, s.decay_epochs};
  if (s.optimizer == ResNetSettings::OptimizerKind::kLars) {
    const common::LarsSchedule lars = common::mlperf_lars_schedule(global_batch);
    const double end_epoch = s.warmup_epochs + s.decay_epochs;
    return {lars.peak_learning_rate, lars.warmup_epochs, std::max(1.0, end_epoch - lars.warmup_epochs)};
  }
  return {common::linearly_scaled_learning_rate(s.base_learning_rate, s.global_batch_size, global_batch),
          s.warmup_epochs, s.decay_epochs};
}

// Linear warm-up from 0 to the base rate, then polynomial decay to the end rate.
double scheduled_learning_rate(const ResNetSettings& s, double base_learning_rate, int64_t step, int64_t warmup_steps,
                               int64_t decay_steps) {
  if (step < warmup_steps)
    return base_learning_rate * static_cast<double>(step + 1) / static_cast<double>(warmup_steps);
  const double progress = std::min(1.0, static_cast<double>(step - warmup_steps) / static_cast<double>(decay_steps));
  return (base_learning_rate - s.end_learning_rate) * std::pow(1.0 - progress, s.poly_power) + s.end_learning_rate;
}

torch::MemoryFormat memory_format(bool channels_last) {
  return channels_last ? torch::MemoryFormat::ChannelsLast : torch::MemoryFormat::Contiguous;
}

// The configured model on `device` (channels-last when asked), its optimizer and its training step,
// built alike for training and `bench`.
std::unique_ptr<ResNetTrainer> make_trainer(const ResNetSettings& s, int64_t in_channels, const World& world,
                                            const torch::Device& device, Precision precision, bool channels_last) {
  common::ResNet model = build_model(s, in_channels);
  s.apply_batchnorm_group(*model, world);
  model->to(device);
  if (channels_last) common::convert_memory_format(*model, torch::MemoryFormat::ChannelsLast);
  std::unique_ptr<Optimizer> optimizer = make_optimizer(model, s);
  return std::make_unique<ResNetTrainer>(model, std::move(optimizer), s.label_smoothing, world,
                                         TrainStepOptions{precision, device});
}

// The JPEG folder a JPEG data source reads: data_path, or the generated folder under data_root.
std::string jpeg_root(const ResNetSettings& s, const std::string& data_root) {
  if (s.data_source == ResNetSettings::DataSource::kImageNet) return s.data_path;
  const auto spec = s.synthetic_spec();
  return (fs::path(data_root) /
          ("imagenet-synthetic-c" + std::to_string(spec.classes) + "-t" + std::to_string(spec.train_images_per_class) +
           "-v" + std::to_string(spec.val_images_per_class) + "-s" + std::to_string(spec.min_side) + "x" +
           std::to_string(spec.max_side) + "-d" + std::to_string(spec.seed)))
      .string();
}

// Writes the synthetic folder once (rank 0; the others wait at the engine's barrier or ours).
void generate_synthetic_if_missing(const ResNetSettings& s, const std::string& root, const World& world) {
  if (s.data_source != ResNetSettings::DataSource::kSyntheticImageNet || !world.is_root()) return;
  generate_folder_once(root, [&](const std::string& folder) { imagenet::write_synthetic_imagenet(folder, s.synthetic_spec()); });
}

imagenet::LoaderOptions loader_options(const ResNetSettings& s, const World& world, bool train, uint64_t seed) {
  imagenet::LoaderOptions options;
  options.threads = static_cast<int>(s.loader_threads > 0 ? s.loader_threads : world.cores_per_rank());
  options.prefetch_batches = static_cast<int>(s.prefetch_batches);
  options.image_size = static_cast<int>(s.image_size);
  options.eval_resize = static_cast<int>(s.eval_resize);
  options.train = train;
  options.random_flip = s.random_flip;
  options.reduced_decode = s.reduced_decode;
  options.seed = seed;
  options.on_bad_image = s.on_bad_image;
  return options;
}

// Opens split `split` of the JPEG folder, checking the class count against the model's head when
// there is a model (not for the loader bench). With a GPU decoder (jpeg_decoder_for), decoded there.
std::unique_ptr<ImageSource> open_jpeg_split(const ResNetSettings& s, const std::string& root, const std::string& split,
                                             const World& world, bool train, uint64_t seed,
                                             const std::shared_ptr<DeviceJpegDecoder>& gpu_decoder,
                                             bool check_head = true) {
  const std::string index_path = (fs::path(root) / s.class_index_file).string();
  const std::vector<std::string> classes = imagenet::read_class_index(index_path);
  const int64_t offset = check_head ? s.num_classes - static_cast<int64_t>(classes.size()) : 0;
  if (offset != 0 && offset != 1)
    throw UserError(index_path + ": " + std::to_string(classes.size()) + " classes, but num_classes is " +
                    std::to_string(s.num_classes) + " (it must equal the class count, or be one more with class 0 as background)");
  imagenet::ImageFolder folder = imagenet::scan_image_folder((fs::path(root) / split).string(), classes);
  if (gpu_decoder != nullptr)
    return std::make_unique<DeviceJpegSource>(std::move(folder), loader_options(s, world, train, seed), offset, gpu_decoder);
  return std::make_unique<JpegFolderSource>(std::move(folder), loader_options(s, world, train, seed), offset);
}

class ResNetWorkload final : public WorkloadBase<ResNetSettings, ResNetTrainer> {
 public:
  std::string benchmark() const override { return "resnet"; }

  void prepare_data(const World& world, const std::string& data_root) override {
    if (!settings_.jpeg_source()) return;
    root_ = jpeg_root(settings_, data_root);
    generate_synthetic_if_missing(settings_, root_, world);
  }

  WorkloadInfo init(const RunContext& context) override {
    start_run(context);
    open_sources();
    train_->stage_for(device_);
    eval_->stage_for(device_);
    global_batch_ = common::global_batch_size(settings_.batch_size_per_device, settings_.global_batch_size, world_->size());
    schedule_ = resolve_schedule(settings_, global_batch_);
    sampler_ = std::make_unique<ShardedSampler>(train_->size(), global_batch_, world_->rank(), world_->size(), seed_);
    torch::manual_seed(seed_);
    trainer_ = make_trainer(settings_, train_->channels(), *world_, device_, precision_, settings_.channels_last);

    const int64_t steps = sampler_->num_batches();
    warmup_steps_ = static_cast<int64_t>(std::llround(schedule_.warmup_epochs * steps));
    decay_steps_ = std::max<int64_t>(1, std::llround(schedule_.decay_epochs * steps));
    log_hyperparameters(context.logger);

    WorkloadInfo info;
    info.global_batch_size = global_batch_;
    info.train_samples = train_->size();
    info.eval_samples = eval_->size();
    for (const auto& p : trainer_->step().parameters()) info.parameter_count += p.numel();
    info.targets = {{"top1", settings_.target_top1}};
    info.precision = precision_;
    return info;
  }

  int64_t steps_per_epoch() const override { return sampler_->num_batches(); }

  TrainStats train_epoch(int64_t epoch, Progress& progress) override {
    trainer_->model()->train();
    sampler_->set_epoch(epoch);
    // The plan: this rank's slice of every global batch, in order; the loader decodes ahead.
    ShardedSampler::EpochPlan plan = sampler_->epoch_plan(gradient_shards_);
    const std::vector<std::vector<ShardedSampler::Slice>> batch_shards = std::move(plan.shards);
    train_->start(std::move(plan.indices), epoch);
    // Batch b + 1 is decoded and copied (on its own stream) while the device computes step b.
    CopyAhead ahead(device_);
    const auto copy_ahead = [&](int64_t b) {
      const HostBatch host = train_->next();
      const auto& shards = batch_shards[static_cast<size_t>(b)];
      std::vector<torch::Tensor> tensors;  // images, labels of each shard
      for (const ShardedSampler::Slice& slice : shards) {
        const int64_t begin = slice.begin - shards.front().begin, n = slice.end - slice.begin;
        auto [images, labels] = without_skipped(host.images.narrow(0, begin, n), host.labels.narrow(0, begin, n));
        tensors.push_back(images);
        tensors.push_back(labels);
      }
      ahead.start(std::move(tensors));
    };
    if (sampler_->num_batches() > 0) copy_ahead(0);
    for (int64_t b = 0; b < sampler_->num_batches(); ++b) {
      trainer_->step().set_learning_rate(scheduled_learning_rate(settings_, schedule_.base_learning_rate, step_++, warmup_steps_, decay_steps_));
      const int64_t global_count = batch_shards[static_cast<size_t>(b)].front().global_size;
      const std::vector<torch::Tensor> on_device = ahead.take();
      ResNetBatch batch{{}, global_count};
      int64_t count = 0;
      for (size_t i = 0; i < on_device.size(); i += 2) {
        batch.shards.push_back({model_input(*train_, on_device[i]), on_device[i + 1]});
        count += on_device[i + 1].size(0);
      }
      const torch::Tensor loss = trainer_->train_on(batch);
      if (b + 1 < sampler_->num_batches()) copy_ahead(b + 1);
      progress.step(global_count, loss / std::max<int64_t>(count, 1));
    }
    return trainer_->step().take_epoch_stats(train_->size(), static_cast<double>(train_->size()));
  }

  Quality evaluate(int64_t epoch) override {
    common::ResNet& model = trainer_->model();
    // Each rank's BatchNorm statistics come from its own samples; its shard of the evaluation is
    // judged by the statistics of all of them.
    average_batchnorm_statistics(*model, *world_);
    model->eval();
    torch::NoGradGuard no_grad;
    std::vector<std::vector<int32_t>> plan =
        part_in_batches(eval_->size(), world_->size(), world_->rank(), settings_.eval_batch_size);
    const size_t batches = plan.size();
    eval_->start(std::move(plan), epoch);
    torch::Tensor correct = torch::zeros({}, torch::TensorOptions(device_).dtype(torch::kLong));  // read once
    for (size_t b = 0; b < batches; ++b) {
      const HostBatch batch = eval_->next();
      const auto [images, labels] = without_skipped(batch.images, batch.labels);
      AutocastScope autocast(precision_, device_);
      correct += model->forward(model_input(*eval_, stage_to_device(images, device_)))
                     .argmax(1)
                     .eq(stage_to_device(labels, device_))
                     .sum();
    }
    // A skipped eval image counts as wrong: the denominator stays the whole eval set.
    Quality quality;
    quality.values["top1"] =
        world_->allreduce_sum(static_cast<double>(correct.item<int64_t>())) / static_cast<double>(eval_->size());
    return quality;
  }

  std::unique_ptr<BenchStep> model_bench_step(const BenchSpec& spec, const World& world) override;
  std::unique_ptr<BenchStep> loader_bench_step(const BenchSpec& spec, const World& world) override;
  bool image_layouts() const override { return true; }

 private:
  void open_sources() {
    if (settings_.jpeg_source()) {
      const std::shared_ptr<DeviceJpegDecoder> decoder = jpeg_decoder_for(settings_.decoder, device_, world_->is_root());
      train_ = open_jpeg_split(settings_, root_, settings_.train_split, *world_, true, seed_, decoder);
      eval_ = open_jpeg_split(settings_, root_, settings_.eval_split, *world_, false, seed_, decoder);
      return;
    }
    IdxAugmentation augmentation{true, settings_.random_crop_padding, settings_.random_flip,
                                 settings_.pixel_mean, settings_.pixel_std, seed_};
    auto train = std::make_unique<IdxImageSource>(read_mnist_folder(settings_.data_path, "train"), augmentation);
    augmentation.augment = false;
    auto eval = std::make_unique<IdxImageSource>(read_mnist_folder(settings_.data_path, "t10k"), augmentation);
    for (const IdxImageSource* source : {train.get(), eval.get()})
      for (uint8_t label : source->images().labels)
        if (label >= settings_.num_classes)
          throw UserError(source->images().labels_path + ": label " + std::to_string(label) +
                          " is not below num_classes " + std::to_string(settings_.num_classes));
    train_ = std::move(train);
    eval_ = std::move(eval);
  }

  // A host batch without the slots of skipped images (then in pageable memory, which
  // stage_to_device pins on its way to a GPU).
  std::pair<torch::Tensor, torch::Tensor> without_skipped(torch::Tensor images, torch::Tensor labels) const {
    if (train_->skipped_images() + eval_->skipped_images() > 0) {
      const torch::Tensor kept = labels.ge(0).nonzero().squeeze(1);
      images = images.index_select(0, kept.to(images.device()));  // a GPU decoder's are on the GPU already
      labels = labels.index_select(0, kept);
    }
    return {images, labels};
  }

  // A batch's images on the device as the model's input, in its memory format.
  torch::Tensor model_input(const ImageSource& source, const torch::Tensor& images_on_device) const {
    return source.model_input(images_on_device).contiguous(memory_format(settings_.channels_last));
  }

  void log_hyperparameters(MLLogger& log) const {
    const ResNetSettings& s = settings_;
    const bool lars = s.optimizer == ResNetSettings::OptimizerKind::kLars;
    const OptimizerKeys& k = lars ? kLarsKeys : kSgdKeys;
    log.event(keys::kOptName, k.name);
    log.event(k.base_learning_rate, schedule_.base_learning_rate);
    log.event(k.end_learning_rate, s.end_learning_rate);
    log.event(k.decay_poly_power, s.poly_power);
    log.event(k.decay_steps, decay_steps_);
    log.event(k.weight_decay, s.weight_decay);
    log.event(k.momentum, s.momentum);
    if (lars) log.event(keys::kLarsEpsilon, s.lars_epsilon);
    log.event(k.warmup_epochs, schedule_.warmup_epochs);
    log.event(keys::kModelBnSpan, s.batchnorm_span(global_batch_ / gradient_shards_));
    s.log_label_smoothing(log);
    log.event(keys::kEvalTarget, s.target_top1);
  }

  std::string root_;
  std::unique_ptr<ImageSource> train_, eval_;
  std::optional<std::shared_ptr<DeviceJpegDecoder>> bench_decoder_;  // the loader bench's, once chosen
  std::unique_ptr<ShardedSampler> sampler_;
  int64_t warmup_steps_ = 0, decay_steps_ = 1;
  int64_t global_batch_ = 0;
  ResolvedSchedule schedule_{};
};

// The training step (or the forward pass) of the configured model on random images of the
// configured size: the rank's batch cut into the configured gradient shards, as training cuts it.
std::unique_ptr<BenchStep> make_model_bench_step(const ResNetSettings& s, const BenchSpec& spec, const World& world) {
  const torch::Device device = spec.device;
  const Precision precision = parse_precision(spec.precision, "bench precision");
  const int64_t batch = spec.batch_size;
  const int64_t in_channels = s.jpeg_source() ? 3 : 1;
  const int64_t size = s.jpeg_source() ? s.image_size : 28;
  const int64_t shards = shards_per_rank(s.gradient_shards, world.size(), "gradient_shards");
  torch::manual_seed(0);
  std::shared_ptr<ResNetTrainer> trainer = make_trainer(s, in_channels, world, device, precision, spec.channels_last);
  const torch::Tensor images =
      torch::randn({batch, in_channels, size, size}).to(device).contiguous(memory_format(spec.channels_last));
  const torch::Tensor labels = torch::randint(s.num_classes, {batch}, torch::kLong).to(device);
  DeviceBenchStep::Spec bench{device, precision, batch, "images", spec.channels_last ? "channels_last" : "nchw"};
  if (spec.mode == BenchMode::kInference)
    return std::make_unique<DeviceBenchStep>(bench, [=] {
      trainer->model()->eval();
      torch::NoGradGuard no_grad;
      AutocastScope autocast(precision, device);
      trainer->model()->forward(images);
    });
  ResNetBatch fixed{{}, batch * world.size()};
  for (int64_t k = 0; k < shards; ++k) {
    const auto [begin, end] = proportional_part(batch, shards, k);
    fixed.shards.push_back({images.narrow(0, begin, end - begin), labels.narrow(0, begin, end - begin)});
  }
  return make_train_bench_step<ResNetBatch>(bench, trainer, [fixed] { return fixed; });
}

// The data pipeline alone: decode and augment the training split's JPEGs, batch after batch.
std::unique_ptr<BenchStep> make_loader_bench_step(const ResNetSettings& settings, const BenchSpec& spec,
                                                  const World& world, const std::shared_ptr<DeviceJpegDecoder>& decoder) {
  if (!settings.jpeg_source())
    throw UserError("--loader needs JPEG data: data_source imagenet or synthetic_imagenet (this config reads IDX files)");
  const std::string root = jpeg_root(settings, spec.data_root);
  generate_synthetic_if_missing(settings, root, world);
  world.comm().barrier();
  std::shared_ptr<ImageSource> source =
      open_jpeg_split(settings, root, settings.train_split, world, true, 1, decoder, /*check_head=*/false);
  return std::make_unique<common::LoaderBenchStep>(
      spec.batch_size, source->size(),
      [source](std::vector<std::vector<int32_t>> plan, int64_t epoch) { source->start(std::move(plan), epoch); },
      [source] { source->next(); }, loader_options(settings, world, true, 1).threads,
      decoder != nullptr ? decoder->device() : torch::Device(torch::kCPU));
}

std::unique_ptr<BenchStep> ResNetWorkload::model_bench_step(const BenchSpec& spec, const World& world) {
  return make_model_bench_step(settings_, spec, world);
}

std::unique_ptr<BenchStep> ResNetWorkload::loader_bench_step(const BenchSpec& spec, const World& world) {
  if (!bench_decoder_)  // once for all cases
    bench_decoder_ = settings_.jpeg_source() ? jpeg_decoder_for(settings_.decoder, spec.device, world.is_root()) : nullptr;
  return make_loader_bench_step(settings_, spec, world, *bench_decoder_);
}

}  // namespace

MLH_REGISTER_WORKLOAD("resnet50", "ResNet-50 v1.5 image classification, top-1 (MLPerf)", ResNetWorkload);

}  // namespace mlh::resnet
