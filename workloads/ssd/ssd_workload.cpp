// SSD-ResNet34 object detection on COCO 2017 wired into the engine (spec/workloads.md §3, the v0.7
// reference): SGD with momentum, the MLPerf warm-up, step decay at epochs 40 and 50, weight decay on
// every parameter, evaluations after the listed epochs with BatchNorm statistics averaged over ranks,
// COCO box mAP (AP@[.5:.95]) as pycocotools computes it. Data: a folder in the COCO 2017 layout
// (data_source coco) or one generated in that layout under --data-dir (synthetic_coco, the mini's).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>

#include <torch/torch.h>

#include "base/user_error.h"
#include "compliance/mllog_keys.h"
#include "datasets/coco/annotations.h"
#include "datasets/coco/coco_eval.h"
#include "datasets/coco/detections_json.h"
#include "datasets/coco/synthetic.h"
#include "datasets/generated_folder.h"
#include "datasets/sharded_sampler.h"
#include "harness/batchnorm_statistics.h"
#include "harness/bench.h"
#include "harness/device.h"
#include "harness/gradient_allreduce.h"
#include "harness/setting_groups.h"
#include "harness/workload.h"
#include "workloads/common/box_ops.h"
#include "workloads/common/coco_data_settings.h"
#include "workloads/common/default_boxes.h"
#include "workloads/common/loader_bench_step.h"
#include "workloads/common/lr_schedules.h"
#include "workloads/common/recipe_setting_groups.h"
#include "workloads/common/workload_base.h"
#include "workloads/ssd/ssd300.h"
#include "workloads/ssd/ssd_detections.h"
#include "workloads/ssd/ssd_loader.h"
#include "workloads/ssd/ssd_trainer.h"

namespace mlh::ssd {

namespace {

namespace fs = std::filesystem;

struct SsdSettings : CocoDataSettings, ComputeSettings, BatchNormGroupSettings, DetectionBatchSettings {
  SsdSettings() : DetectionBatchSettings(/*global_batch=*/32, /*eval_batch=*/32, /*learning_rate=*/2.5e-3) {}

  std::string backbone_checkpoint;
  int64_t image_size = 300;
  double width = 1.0;
  std::vector<int64_t> extra_strides{2, 2, 2, 1, 1};
  std::vector<double> dbox_steps{8, 16, 32, 64, 100, 300};
  std::vector<double> dbox_scales{21, 45, 99, 153, 207, 261, 315};
  std::vector<double> dbox_aspect_ratios{2, 3};
  std::vector<int64_t> dbox_ratios_per_map{1, 2, 2, 2, 1, 1};
  int64_t max_samples = 1;
  bool random_crop = true;
  bool random_flip = true;
  bool color_jitter = true;
  double weight_decay = 5e-4;
  int64_t warmup_steps = 1;
  double warmup_factor = 0;
  std::vector<int64_t> decay_boundary_epochs{40, 50};
  double decay_factor = 0.1;
  double score_threshold = 0.05;
  int64_t max_candidates_per_class = 200;
  double nms_iou_threshold = 0.5;
  int64_t max_detections_per_image = 200;
  bool write_detections = false;
  double target_map = 0.23;

  void bind(ConfigMap& c) {
    CocoDataSettings::bind(c);
    c.bind("backbone_checkpoint", backbone_checkpoint,
           "a torchvision resnet34 state dict for the backbone (see README); empty: train from scratch");
    c.bind("image_size", image_size, "side of the square images the model sees (300 = SSD300)", at_least(32));
    c.bind("width", width, "channel width multiplier of backbone, extras and heads (1.0 = the reference)", above(0.0));
    c.bind("extra_strides", extra_strides, "stride of each extra block's 3x3 conv (2: pad 1, 1: pad 0)");
    c.bind("dbox_steps", dbox_steps, "default boxes: each map's step, pixels of image_size");
    c.bind("dbox_scales", dbox_scales, "default boxes: each map's scale and one more, pixels of image_size");
    c.bind("dbox_aspect_ratios", dbox_aspect_ratios, "default boxes: aspect ratios; map k uses the first dbox_ratios_per_map[k]");
    c.bind("dbox_ratios_per_map", dbox_ratios_per_map, "default boxes: how many of dbox_aspect_ratios each map uses");
    c.bind("max_samples", max_samples, "random crop: attempts per drawn option (MLPerf allows 1 or 50)", at_least(1));
    c.bind("random_crop", random_crop, "the SSD random crop (7 options)");
    c.bind("random_flip", random_flip, "left-right flips with probability 1/2");
    c.bind("color_jitter", color_jitter, "colour jitter (brightness .125, contrast .5, saturation .5, hue .05)");
    DetectionBatchSettings::bind(c);
    c.bind("weight_decay", weight_decay, "L2 on every parameter", at_least(0.0));
    c.bind("warmup_steps", warmup_steps, "MLPerf warm-up length in steps", at_least(1));
    c.bind("warmup_factor", warmup_factor, "MLPerf warm-up factor (0: linear from 0)", at_least(0.0));
    c.bind("decay_boundary_epochs", decay_boundary_epochs, "epochs after which the rate is multiplied by decay_factor");
    c.bind("decay_factor", decay_factor, "step decay factor", above(0.0));
    c.bind("score_threshold", score_threshold, "evaluation: class scores must exceed this", in_range(0.0, 1.0));
    c.bind("max_candidates_per_class", max_candidates_per_class, "evaluation: best boxes per class into NMS", at_least(1));
    c.bind("nms_iou_threshold", nms_iou_threshold, "evaluation: NMS overlap", in_range(0.0, 1.0));
    c.bind("max_detections_per_image", max_detections_per_image, "evaluation: best detections kept per image", at_least(1));
    c.bind("write_detections", write_detections,
           "write each evaluation's detections as a COCO results JSON beside the log (result_<i>_detections_epoch<N>.json)");
    BatchNormGroupSettings::bind(c);
    ComputeSettings::bind(c);
    c.bind("target_map", target_map, "COCO box mAP (AP@[.5:.95]) at which the run has converged", in_range(0.0, 1.0, Ends::kOpenLow));
  }

  void validate() const {
    validate_data("ssd-mini");
    for (size_t k = 1; k < decay_boundary_epochs.size(); ++k)
      if (decay_boundary_epochs[k] <= decay_boundary_epochs[k - 1])
        throw UserError("key 'decay_boundary_epochs' must increase");
    default_box_options();  // throws for inconsistent lists
  }

  // The default boxes of the configured model (their feature sizes come from the model's maps).
  common::DefaultBoxesOptions default_box_options(const std::vector<int64_t>& feature_sizes = {}) const {
    common::DefaultBoxesOptions o;
    o.figure_size_px = static_cast<double>(image_size);
    o.feature_sizes = feature_sizes;
    o.steps_px = dbox_steps;
    o.scales_px = dbox_scales;
    if (dbox_ratios_per_map.size() != extra_strides.size() + 1)
      throw UserError("key 'dbox_ratios_per_map' has " + std::to_string(dbox_ratios_per_map.size()) +
                      " entries; it needs one per map: " + std::to_string(extra_strides.size() + 1) +
                      " (the backbone's and one per entry of extra_strides)");
    for (const int64_t count : dbox_ratios_per_map) {
      if (count < 0 || count > static_cast<int64_t>(dbox_aspect_ratios.size()))
        throw UserError("key 'dbox_ratios_per_map': " + std::to_string(count) + " is not between 0 and the " +
                        std::to_string(dbox_aspect_ratios.size()) + " entries of dbox_aspect_ratios");
      o.aspect_ratios.emplace_back(dbox_aspect_ratios.begin(), dbox_aspect_ratios.begin() + count);
    }
    return o;
  }

  std::vector<int64_t> boxes_per_location() const {
    std::vector<int64_t> boxes;
    for (const int64_t count : dbox_ratios_per_map) boxes.push_back(2 + 2 * count);
    return boxes;
  }

  SsdTransformOptions transform_options() const {
    SsdTransformOptions o;
    o.out_size = static_cast<int>(image_size);
    o.random_crop = random_crop;
    o.crop_max_samples = static_cast<int>(max_samples);
    o.random_flip = random_flip;
    o.color_jitter = color_jitter;
    return o;
  }

  // The evaluation's post-processing, which the inference bench times as well.
  DetectionOptions detection_options() const {
    DetectionOptions o;
    o.score_threshold = score_threshold;
    o.max_candidates_per_class = max_candidates_per_class;
    o.nms_iou_threshold = nms_iou_threshold;
    o.max_detections_per_image = max_detections_per_image;
    return o;
  }

};

SsdLoaderOptions loader_options(const SsdSettings& s, const World& world, bool train, uint64_t seed) {
  SsdLoaderOptions o;
  o.threads = s.threads(world);
  o.prefetch_batches = static_cast<int>(s.prefetch_batches);
  o.transform = s.transform_options();
  o.train = train;
  o.seed = seed;
  o.on_bad_image = s.on_bad_image;
  return o;
}

Ssd300 make_model(const SsdSettings& s, int64_t num_classes) {
  return Ssd300(Ssd300Options{}
                    .num_classes(num_classes + 1)
                    .width(s.width)
                    .image_size(s.image_size)
                    .extra_strides(s.extra_strides)
                    .boxes_per_location(s.boxes_per_location()));
}

// The training step of `model` (moved to options.device) with SGD at `learning_rate` and the default
// boxes of its maps: what training and the bench both step through.
std::unique_ptr<SsdTrainer> make_trainer(const SsdSettings& s, Ssd300 model, double learning_rate, const World& world,
                                         TrainStepOptions options) {
  s.apply_batchnorm_group(*model, world);
  model->to(options.device);
  const common::DefaultBoxes defaults = common::make_default_boxes(s.default_box_options(model->feature_sizes()));
  return std::make_unique<SsdTrainer>(model, defaults, make_ssd_sgd(model, learning_rate, s.momentum, s.weight_decay),
                                      world, options);
}

// A host batch's images as a tensor on `device`, and its targets, without skipped slots.
struct DeviceBatch {
  torch::Tensor images;                      // [n, 3, S, S]
  std::vector<DetectionTarget> targets;
};

DeviceBatch to_device_batch(SsdLoader& loader, int64_t image_size, const torch::Device& device) {
  torch::Tensor host;
  DetectionBatch batch = loader.next_into([&](int64_t count) {
    host = torch::empty({count, 3, image_size, image_size}, host_staging_options(torch::kFloat, device));
    return host.data_ptr<float>();
  });
  DeviceBatch out;
  if (batch.skipped > 0) {
    std::vector<int64_t> kept;
    for (int64_t i = 0; i < batch.count; ++i)
      if (!batch.targets[static_cast<size_t>(i)].skipped) kept.push_back(i);
    host = host.index_select(0, torch::tensor(kept, torch::kLong));
    for (int64_t i : kept) out.targets.push_back(std::move(batch.targets[static_cast<size_t>(i)]));
  } else {
    out.targets = std::move(batch.targets);
  }
  out.images = to_device(host, device);
  return out;
}

class SsdWorkload final : public WorkloadBase<SsdSettings, SsdTrainer> {
 public:
  std::string benchmark() const override { return "ssd"; }

  void prepare_data(const World& world, const std::string& data_root) override {
    root_ = settings_.coco_root(data_root);
    settings_.generate_synthetic_if_missing(root_, world);
  }

  std::vector<std::string> data_files() const override {
    return {coco_annotations_file(root_, settings_.train_split), coco_annotations_file(root_, settings_.eval_split)};
  }

  WorkloadInfo init(const RunContext& context) override {
    start_run(context);
    const SsdSettings& s = settings_;
    train_annotations_ = coco::read_annotations(coco_annotations_file(root_, s.train_split));
    eval_annotations_ = coco::read_annotations(coco_annotations_file(root_, s.eval_split));
    if (eval_annotations_.num_classes() != train_annotations_.num_classes())
      throw UserError(eval_annotations_.path + ": " + std::to_string(eval_annotations_.num_classes()) +
                      " categories, the training file has " + std::to_string(train_annotations_.num_classes()));
    train_ = std::make_unique<SsdLoader>(train_annotations_, (fs::path(root_) / s.train_split).string(),
                                                     loader_options(s, *world_, true, seed_));
    eval_ = std::make_unique<SsdLoader>(eval_annotations_, (fs::path(root_) / s.eval_split).string(),
                                                    loader_options(s, *world_, false, seed_));
    const DetectionBatchSettings::AtRanks recipe = s.at_ranks(world_->size());
    global_batch_ = recipe.global_batch;
    base_learning_rate_ = recipe.base_learning_rate;
    warmup_steps_ = recipe.steps(s.warmup_steps);
    sampler_ = std::make_unique<ShardedSampler>(static_cast<int64_t>(train_annotations_.images.size()), global_batch_,
                                                world_->rank(), world_->size(), seed_);
    torch::manual_seed(seed_);
    Ssd300 model = make_model(s, train_annotations_.num_classes());
    if (!s.backbone_checkpoint.empty()) load_backbone_checkpoint(model->backbone, s.backbone_checkpoint);
    trainer_ = make_trainer(s, model, base_learning_rate_, *world_, TrainStepOptions{precision_, device_});
    const int64_t steps = sampler_->num_batches();
    boundary_steps_.clear();
    for (const int64_t epoch : s.decay_boundary_epochs) boundary_steps_.push_back(epoch * steps);
    log_hyperparameters(context.logger);

    WorkloadInfo info;
    info.global_batch_size = global_batch_;
    info.train_samples = static_cast<int64_t>(train_annotations_.images.size());
    info.eval_samples = static_cast<int64_t>(eval_annotations_.images.size());
    for (const auto& p : trainer_->model()->parameters()) info.parameter_count += p.numel();
    info.targets = {{"mAP", s.target_map}};
    info.precision = precision_;
    info.schedule = {{"warmup_steps", static_cast<double>(warmup_steps_)}};
    for (size_t k = 0; k < boundary_steps_.size(); ++k)
      info.schedule["decay_boundary_step_" + std::to_string(k + 1)] = static_cast<double>(boundary_steps_[k]);
    info.schedule["backbone_from_checkpoint"] = s.backbone_checkpoint.empty() ? 0.0 : 1.0;
    return info;
  }

  int64_t steps_per_epoch() const override { return sampler_->num_batches(); }

  TrainStats train_epoch(int64_t epoch, Progress& progress) override {
    const SsdSettings& s = settings_;
    trainer_->model()->train();
    sampler_->set_epoch(epoch);
    ShardedSampler::EpochPlan plan = sampler_->epoch_plan(gradient_shards_);
    const std::vector<std::vector<ShardedSampler::Slice>> batch_shards = std::move(plan.shards);
    train_->start(std::move(plan.indices), epoch);
    for (int64_t b = 0; b < sampler_->num_batches(); ++b) {
      trainer_->step().set_learning_rate(common::warmup_step_decay_learning_rate(
          step_++, base_learning_rate_, warmup_steps_, s.warmup_factor, boundary_steps_, s.decay_factor));
      const auto& shards = batch_shards[static_cast<size_t>(b)];
      const int64_t global_count = shards.front().global_size;
      DeviceBatch host = to_device_batch(*train_, s.image_size, device_);
      SsdBatch batch{{}, global_count};
      // A skipped image leaves its shard one short: the shards are cut from the kept images in order.
      int64_t taken = 0;
      const int64_t planned = shards.back().end - shards.front().begin;
      const int64_t kept = host.images.size(0);
      for (const ShardedSampler::Slice& slice : shards) {
        const int64_t end = (slice.end - shards.front().begin) * kept / std::max<int64_t>(planned, 1);
        DetectionShard shard;
        shard.images = host.images.narrow(0, taken, end - taken);
        // The shard's targets in one staging buffer each (pinned on a GPU), one asynchronous copy
        // each, and each image's rows a view of them on the device.
        int64_t shard_boxes = 0;
        for (int64_t i = taken; i < end; ++i)
          shard_boxes += static_cast<int64_t>(host.targets[static_cast<size_t>(i)].labels.size());
        torch::Tensor boxes_host = torch::empty({shard_boxes, 4}, host_staging_options(torch::kFloat, device_));
        torch::Tensor labels_host = torch::empty({shard_boxes}, host_staging_options(torch::kLong, device_));
        int64_t row = 0;
        for (int64_t i = taken; i < end; ++i) {
          const DetectionTarget& target = host.targets[static_cast<size_t>(i)];
          const int64_t boxes = static_cast<int64_t>(target.labels.size());
          std::copy(target.boxes_ltrb.begin(), target.boxes_ltrb.end(), boxes_host.data_ptr<float>() + 4 * row);
          std::copy(target.labels.begin(), target.labels.end(), labels_host.data_ptr<int64_t>() + row);
          row += boxes;
        }
        const torch::Tensor boxes_on_device = to_device(boxes_host, device_);
        const torch::Tensor labels_on_device = to_device(labels_host, device_);
        row = 0;
        for (int64_t i = taken; i < end; ++i) {
          const int64_t boxes = static_cast<int64_t>(host.targets[static_cast<size_t>(i)].labels.size());
          shard.boxes_ltrb.push_back(boxes_on_device.narrow(0, row, boxes));
          shard.labels.push_back(labels_on_device.narrow(0, row, boxes));
          row += boxes;
        }
        batch.shards.push_back(std::move(shard));
        taken = end;
      }
      const torch::Tensor loss = trainer_->train_on(batch);
      progress.step(global_count, loss / std::max<int64_t>(kept, 1));
    }
    const int64_t samples = static_cast<int64_t>(train_annotations_.images.size());
    return trainer_->step().take_epoch_stats(samples, static_cast<double>(samples));
  }

  Quality evaluate(int64_t epoch) override {
    const SsdSettings& s = settings_;
    Ssd300& model = trainer_->model();
    average_batchnorm_statistics(*model, *world_);
    model->eval();
    torch::NoGradGuard no_grad;
    const int64_t images = static_cast<int64_t>(eval_annotations_.images.size());
    std::vector<std::vector<int32_t>> plan = part_in_batches(images, world_->size(), world_->rank(), s.eval_batch_size);
    const size_t batches = plan.size();
    eval_->start(std::move(plan), epoch);
    const DetectionOptions options = s.detection_options();
    // This rank's detections as rows of 7 doubles: image id, category id, x, y, w, h (pixels), score.
    std::vector<double> rows;
    for (size_t b = 0; b < batches; ++b) {
      DeviceBatch batch = to_device_batch(*eval_, s.image_size, device_);
      if (batch.images.size(0) == 0) continue;
      torch::Tensor locations, scores;
      {
        AutocastScope autocast(precision_, device_);
        std::tie(locations, scores) = model->forward(batch.images);
      }
      const std::vector<ImageDetections> found =
          decode_detections(locations.to(torch::kFloat), scores.to(torch::kFloat),
                                    trainer_->default_boxes(), options);
      for (size_t i = 0; i < found.size(); ++i) {
        const DetectionTarget& target = batch.targets[i];
        const torch::Tensor boxes = found[i].boxes_ltrb.to(torch::kCPU, torch::kDouble).contiguous();
        const torch::Tensor labels = found[i].labels.to(torch::kCPU).contiguous();
        const torch::Tensor confidence = found[i].scores.to(torch::kCPU, torch::kDouble).contiguous();
        const auto box = boxes.accessor<double, 2>();
        const auto label = labels.accessor<int64_t, 1>();
        const auto score = confidence.accessor<double, 1>();
        const double w = static_cast<double>(target.width), h = static_cast<double>(target.height);
        for (int64_t k = 0; k < boxes.size(0); ++k) {
          const double category = static_cast<double>(
              eval_annotations_.categories[static_cast<size_t>(label[k] - 1)].id);
          rows.insert(rows.end(), {static_cast<double>(target.image_id), category, box[k][0] * w, box[k][1] * h,
                                   (box[k][2] - box[k][0]) * w, (box[k][3] - box[k][1]) * h, score[k]});
        }
      }
    }
    const std::vector<double> all = world_->allgather(rows);
    std::vector<coco::Detection> detections;
    detections.reserve(all.size() / 7);
    for (size_t r = 0; r + 7 <= all.size(); r += 7)
      detections.push_back(coco::box_detection(static_cast<int64_t>(all[r]), static_cast<int64_t>(all[r + 1]), all[r + 2],
                                                all[r + 3], all[r + 4], all[r + 5], all[r + 6]));
    if (s.write_detections && world_->is_root())
      coco::write_detections_json(output_stem_ + "_detections_epoch" + std::to_string(epoch) + ".json", detections);
    const coco::CocoEvalStats stats = coco::evaluate_detections(eval_annotations_, detections, coco::IouType::kBox);
    Quality quality;
    quality.values["mAP"] = stats.ap;
    quality.values["AP50"] = stats.ap50;
    quality.values["AP75"] = stats.ap75;
    quality.values["AR100"] = stats.ar100;
    return quality;
  }

  std::unique_ptr<BenchStep> model_bench_step(const BenchSpec& spec, const World& world) override;
  std::unique_ptr<BenchStep> loader_bench_step(const BenchSpec& spec, const World& world) override;
  bool image_layouts() const override { return true; }

 private:
  void log_hyperparameters(MLLogger& log) const {
    const SsdSettings& s = settings_;
    log.event(keys::kOptName, keys::kSgd);
    log.event(keys::kOptBaseLearningRate, base_learning_rate_);
    log.event(keys::kOptWeightDecay, s.weight_decay);
    log.event(keys::kOptLearningRateWarmupSteps, warmup_steps_);
    log.event(keys::kOptLearningRateWarmupFactor, s.warmup_factor);
    log.event(keys::kOptLearningRateDecayBoundaryEpochs, s.decay_boundary_epochs);
    log.event(keys::kOptLearningRateDecaySteps, boundary_steps_);
    log.event(keys::kMaxSamples, s.max_samples);
    log.event(keys::kModelBnSpan, s.batchnorm_span(global_batch_ / gradient_shards_));
    log.event(keys::kEvalTarget, s.target_map);
  }

  std::string root_;
  coco::Annotations train_annotations_, eval_annotations_;
  std::unique_ptr<SsdLoader> train_, eval_;
  std::unique_ptr<ShardedSampler> sampler_;
  std::vector<int64_t> boundary_steps_;
  int64_t global_batch_ = 0, warmup_steps_ = 1;
  double base_learning_rate_ = 0;
};

// Random images of the configured size, each with three random boxes of random classes: the
// training step (matching, forward, loss, backward, reduction, update) or the forward pass with the
// evaluation's post-processing (decode, per-class NMS, top detections).
std::unique_ptr<BenchStep> make_model_bench_step(const SsdSettings& s, const BenchSpec& spec, const World& world) {
  if (spec.channels_last) throw UserError("bench: ssd runs in NCHW only (drop --channels-last)");
  const torch::Device device = spec.device;
  const Precision precision = parse_precision(spec.precision, "bench precision");
  const int64_t batch = spec.batch_size;
  const int64_t classes = s.data_source == CocoDataSettings::DataSource::kCoco ? 80 : s.synthetic.categories;
  const int64_t shards = shards_per_rank(s.gradient_shards, world.size(), "gradient_shards");
  torch::manual_seed(0);
  std::shared_ptr<SsdTrainer> trainer =
      make_trainer(s, make_model(s, classes), 1e-4, world, TrainStepOptions{precision, device});
  const torch::Tensor images = torch::randn({batch, 3, s.image_size, s.image_size}).to(device);
  DeviceBenchStep::Spec bench{device, precision, batch, "images", "nchw"};
  if (spec.mode == BenchMode::kInference) {
    const DetectionOptions options = s.detection_options();
    return std::make_unique<DeviceBenchStep>(bench, [=] {
      trainer->model()->eval();
      torch::NoGradGuard no_grad;
      torch::Tensor locations, scores;
      {
        AutocastScope autocast(precision, device);
        std::tie(locations, scores) = trainer->model()->forward(images);
      }
      decode_detections(locations.to(torch::kFloat), scores.to(torch::kFloat), trainer->default_boxes(),
                                options);
    });
  }
  SsdBatch fixed{{}, batch * world.size()};
  for (int64_t k = 0; k < shards; ++k) {
    const auto [begin, end] = proportional_part(batch, shards, k);
    DetectionShard shard;
    shard.images = images.narrow(0, begin, end - begin);
    for (int64_t i = begin; i < end; ++i) {
      const torch::Tensor corner = torch::rand({3, 2}) * 0.6;
      shard.boxes_ltrb.push_back(torch::cat({corner, corner + 0.1 + torch::rand({3, 2}) * 0.3}, 1).to(device));
      shard.labels.push_back(torch::randint(1, classes + 1, {3}, torch::kLong).to(device));
    }
    fixed.shards.push_back(std::move(shard));
  }
  return make_train_bench_step<SsdBatch>(bench, trainer, [fixed] { return fixed; });
}

// The data pipeline alone: decode and augment training images (crop, flip, jitter, resize), batch
// after batch.
std::unique_ptr<BenchStep> make_loader_bench_step(const SsdSettings& settings, const BenchSpec& spec,
                                                  const World& world) {
  const std::string root = settings.coco_root(spec.data_root);
  settings.generate_synthetic_if_missing(root, world);
  world.comm().barrier();
  struct Pipeline {
    coco::Annotations annotations;
    std::unique_ptr<SsdLoader> loader;
  };
  auto pipeline = std::make_shared<Pipeline>();
  pipeline->annotations = coco::read_annotations(coco_annotations_file(root, settings.train_split));
  pipeline->loader = std::make_unique<SsdLoader>(
      pipeline->annotations, (fs::path(root) / settings.train_split).string(), loader_options(settings, world, true, 1));
  return std::make_unique<common::LoaderBenchStep>(
      spec.batch_size, static_cast<int64_t>(pipeline->annotations.images.size()),
      [pipeline](std::vector<std::vector<int32_t>> plan, int64_t epoch) {
        pipeline->loader->start(std::move(plan), epoch);
      },
      [pipeline] { pipeline->loader->recycle(pipeline->loader->next()); });
}

std::unique_ptr<BenchStep> SsdWorkload::model_bench_step(const BenchSpec& spec, const World& world) {
  return make_model_bench_step(settings_, spec, world);
}

std::unique_ptr<BenchStep> SsdWorkload::loader_bench_step(const BenchSpec& spec, const World& world) {
  return make_loader_bench_step(settings_, spec, world);
}

}  // namespace

MLH_REGISTER_WORKLOAD("ssd", "SSD-ResNet34 object detection on COCO, box mAP (MLPerf)", SsdWorkload);

}  // namespace mlh::ssd
