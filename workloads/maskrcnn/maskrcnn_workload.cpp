// Mask R-CNN R50-FPN instance segmentation on COCO 2017 wired into the engine (spec/workloads.md §4,
// the v0.7 reference, maskrcnn-benchmark): SGD with momentum, the biases at twice the rate and without
// weight decay, linear warm-up from a third, x0.1 at the decay steps, an evaluation after every epoch,
// box AP and mask AP (AP@[.5:.95], segm) as pycocotools computes them in one pass over the
// detections, and success only when both targets hold. Data: a folder in the COCO 2017 layout
// (data_source coco) or one generated in that layout under --data-dir (synthetic_coco, the mini's).
#include <algorithm>
#include <array>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "base/user_error.h"
#include "compliance/mllog_keys.h"
#include "datasets/coco/annotations.h"
#include "datasets/coco/coco_eval.h"
#include "datasets/coco/detections_json.h"
#include "datasets/coco/rle.h"
#include "datasets/sharded_sampler.h"
#include "harness/batchnorm_statistics.h"
#include "harness/bench.h"
#include "harness/device.h"
#include "harness/setting_groups.h"
#include "harness/workload.h"
#include "workloads/common/coco_data_settings.h"
#include "workloads/common/lr_schedules.h"
#include "workloads/common/recipe_setting_groups.h"
#include "workloads/common/resnet_checkpoint.h"
#include "workloads/common/torchvision_normalize.h"
#include "workloads/common/workload_base.h"
#include "workloads/maskrcnn/aspect_grouping.h"
#include "workloads/maskrcnn/mask_paste.h"
#include "workloads/maskrcnn/mask_rcnn.h"
#include "workloads/maskrcnn/maskrcnn_loader.h"
#include "workloads/maskrcnn/maskrcnn_trainer.h"

namespace mlh::maskrcnn {

namespace {

namespace fs = std::filesystem;

struct MaskRcnnSettings : CocoDataSettings, ComputeSettings, DetectionBatchSettings {
  MaskRcnnSettings() : DetectionBatchSettings(/*global_batch=*/16, /*eval_batch=*/2, /*learning_rate=*/0.02) {}

  enum class Norm { kFrozen, kBatch };
  enum class TrunkConvention { kAuto, kMsra, kTorchvision };

  std::string backbone_checkpoint;
  TrunkConvention trunk_convention = TrunkConvention::kAuto;
  int64_t min_image_size = 800;
  int64_t max_image_size = 1333;
  bool random_flip = true;
  double width = 1.0;
  int64_t fpn_channels = 256;
  Norm norm = Norm::kFrozen;
  int64_t frozen_stages = 2;
  std::vector<double> anchor_sizes{32, 64, 128, 256, 512};
  int64_t rpn_pre_nms_top_n_train = 2000;
  int64_t rpn_post_nms_top_n_train = 2000;
  int64_t num_image_candidates = 2000;
  int64_t rpn_pre_nms_top_n_test = 1000;
  int64_t rpn_post_nms_top_n_test = 1000;
  int64_t rpn_fpn_post_nms_top_n_test = 1000;
  int64_t rpn_batch_size_per_image = 256;
  int64_t roi_batch_size_per_image = 512;
  double roi_positive_fraction = 0.25;
  int64_t box_representation_size = 1024;
  std::vector<int64_t> mask_head_channels{256, 256, 256, 256};
  double weight_decay = 1e-4;
  double bias_learning_rate_factor = 2.0;
  int64_t warmup_steps = 500;
  double warmup_factor = 1.0 / 3.0;
  std::vector<int64_t> decay_steps{60000, 80000};
  double decay_factor = 0.1;
  double score_threshold = 0.05;
  double nms_iou_threshold = 0.5;
  int64_t detections_per_image = 100;
  double mask_threshold = 0.5;
  bool write_detections = false;
  double target_box_ap = 0.377;
  double target_mask_ap = 0.339;

  void bind(ConfigMap& c) {
    CocoDataSettings::bind(c);
    c.bind("backbone_checkpoint", backbone_checkpoint,
           "a torchvision resnet50 state dict for the backbone (see README); empty: train from scratch");
    c.bind_choice("trunk_convention", trunk_convention,
                  "the trunk's stride and pixels: msra (the reference's, as its R-50.pkl weights: the stride on each "
                  "stage's first 1x1, BGR on 0-255 less the means), torchvision (as torchvision's resnet50 weights: the "
                  "stride on the 3x3, RGB on 0-1 normalised by ImageNet's mean and std), or auto: torchvision with a "
                  "backbone_checkpoint, msra without",
                  Choices<TrunkConvention>{{"auto", TrunkConvention::kAuto},
                                           {"msra", TrunkConvention::kMsra},
                                           {"torchvision", TrunkConvention::kTorchvision}});
    c.bind("min_image_size", min_image_size, "resize: the shorter side, pixels (800 = the reference)", at_least(32));
    c.bind("max_image_size", max_image_size, "resize: the longer side at most, pixels (1333 = the reference)", at_least(32));
    c.bind("random_flip", random_flip, "left-right flips of training images with probability 1/2");
    c.bind("width", width, "channel width multiplier of the ResNet-50 trunk (1.0 = the reference)", above(0.0));
    c.bind("fpn_channels", fpn_channels, "channels of the FPN levels and the heads' inputs (256 = the reference)", at_least(1));
    c.bind_choice("norm", norm, "the trunk's norm layers: frozen (fixed affine, the reference's) or batch (trained BatchNorm)",
                  Choices<Norm>{{"frozen", Norm::kFrozen}, {"batch", Norm::kBatch}});
    c.bind("frozen_stages", frozen_stages, "trunk stages not trained: 2 = the stem and res2 (the reference), 0 = none",
           in_range(0, 5));
    c.bind("anchor_sizes", anchor_sizes, "RPN anchor size of each level P2..P6, pixels");
    c.bind("rpn_pre_nms_top_n_train", rpn_pre_nms_top_n_train, "RPN, training: best anchors per level and image into NMS", at_least(1));
    c.bind("rpn_post_nms_top_n_train", rpn_post_nms_top_n_train, "RPN, training: proposals kept per level and image after NMS", at_least(1));
    c.bind("num_image_candidates", num_image_candidates,
           "RPN, training: proposals kept over each gradient shard's whole batch (FPN_POST_NMS_TOP_N_TRAIN)", at_least(1));
    c.bind("rpn_pre_nms_top_n_test", rpn_pre_nms_top_n_test, "RPN, evaluation: best anchors per level and image into NMS", at_least(1));
    c.bind("rpn_post_nms_top_n_test", rpn_post_nms_top_n_test, "RPN, evaluation: proposals kept per level and image after NMS", at_least(1));
    c.bind("rpn_fpn_post_nms_top_n_test", rpn_fpn_post_nms_top_n_test, "RPN, evaluation: proposals kept per image", at_least(1));
    c.bind("rpn_batch_size_per_image", rpn_batch_size_per_image, "RPN: anchors sampled per image for its loss, half positive", at_least(1));
    c.bind("roi_batch_size_per_image", roi_batch_size_per_image, "box head: proposals sampled per image for its loss", at_least(1));
    c.bind("roi_positive_fraction", roi_positive_fraction, "box head: largest positive share of the sampled proposals",
           in_range(0.0, 1.0, Ends::kOpenLow));
    c.bind("box_representation_size", box_representation_size, "box head: width of its two fully connected layers", at_least(1));
    c.bind("mask_head_channels", mask_head_channels, "mask head: channels of each 3x3 conv (four of 256 = the reference)");
    DetectionBatchSettings::bind(c);
    c.bind("weight_decay", weight_decay, "L2 on the weights (none on biases)", at_least(0.0));
    c.bind("bias_learning_rate_factor", bias_learning_rate_factor, "biases train at this times the rate", above(0.0));
    c.bind("warmup_steps", warmup_steps, "linear warm-up length in steps", at_least(1));
    c.bind("warmup_factor", warmup_factor, "the warm-up's starting fraction of the rate", in_range(0.0, 1.0));
    c.bind("decay_steps", decay_steps, "steps after which the rate is multiplied by decay_factor");
    c.bind("decay_factor", decay_factor, "step decay factor", above(0.0));
    c.bind("score_threshold", score_threshold, "evaluation: class scores must exceed this", in_range(0.0, 1.0));
    c.bind("nms_iou_threshold", nms_iou_threshold, "evaluation: per-class NMS overlap", in_range(0.0, 1.0));
    c.bind("detections_per_image", detections_per_image, "evaluation: best detections kept per image", at_least(1));
    c.bind("mask_threshold", mask_threshold, "evaluation: a pasted mask's pixel is set above this probability",
           in_range(0.0, 1.0));
    c.bind("write_detections", write_detections,
           "write each evaluation's detections as COCO results JSON beside the log: the boxes "
           "(result_<i>_detections_epoch<N>.json) and the RLE masks (result_<i>_mask_detections_epoch<N>.json)");
    ComputeSettings::bind(c);
    c.bind("target_box_ap", target_box_ap, "COCO box AP@[.5:.95] the run must reach", in_range(0.0, 1.0, Ends::kOpenLow));
    c.bind("target_mask_ap", target_mask_ap, "COCO mask AP@[.5:.95] the run must reach at the same evaluation",
           in_range(0.0, 1.0, Ends::kOpenLow));
  }

  void validate() const {
    validate_data("maskrcnn-mini");
    if (min_image_size > max_image_size) throw UserError("key 'min_image_size' is above 'max_image_size'");
    if (anchor_sizes.size() != 5)
      throw UserError("key 'anchor_sizes' has " + std::to_string(anchor_sizes.size()) +
                      " entries; it needs one per level P2..P6 (5)");
    if (mask_head_channels.empty()) throw UserError("key 'mask_head_channels' needs at least one conv");
    for (size_t k = 1; k < decay_steps.size(); ++k)
      if (decay_steps[k] <= decay_steps[k - 1]) throw UserError("key 'decay_steps' must increase");
    model_options(2);  // throws for inconsistent options
  }

  bool torchvision_trunk() const {
    return trunk_convention == TrunkConvention::kTorchvision ||
           (trunk_convention == TrunkConvention::kAuto && !backbone_checkpoint.empty());
  }

  MaskRcnnOptions model_options(int64_t object_classes) const {
    MaskRcnnOptions o;
    o.num_classes = object_classes + 1;
    o.backbone.width(width)
        .fpn_channels(fpn_channels)
        .stride_in_1x1(!torchvision_trunk())
        .norm(norm == Norm::kFrozen ? common::ResNetNorm::kFrozenBatchNorm : common::ResNetNorm::kBatchNorm)
        .frozen_stages(frozen_stages);
    o.rpn.anchors.sizes = anchor_sizes;
    o.rpn.sampler.batch_size_per_image = rpn_batch_size_per_image;
    o.rpn.pre_nms_top_n_train = rpn_pre_nms_top_n_train;
    o.rpn.post_nms_top_n_train = rpn_post_nms_top_n_train;
    o.rpn.fpn_post_nms_top_n_train = num_image_candidates;
    o.rpn.pre_nms_top_n_test = rpn_pre_nms_top_n_test;
    o.rpn.post_nms_top_n_test = rpn_post_nms_top_n_test;
    o.rpn.fpn_post_nms_top_n_test = rpn_fpn_post_nms_top_n_test;
    o.box_head.representation_size = box_representation_size;
    o.box_head.sampler.batch_size_per_image = roi_batch_size_per_image;
    o.box_head.sampler.positive_fraction = roi_positive_fraction;
    o.box_head.score_threshold = score_threshold;
    o.box_head.nms_threshold = nms_iou_threshold;
    o.box_head.detections_per_image = detections_per_image;
    o.mask_head.conv_layers = mask_head_channels;
    mlh::maskrcnn::validate(o.rpn);
    return o;
  }

  MaskRcnnSgdOptions sgd_options(double learning_rate) const {
    MaskRcnnSgdOptions o;
    o.learning_rate = learning_rate;
    o.momentum = momentum;
    o.weight_decay = weight_decay;
    o.bias_learning_rate_factor = bias_learning_rate_factor;
    return o;
  }

  MaskRcnnLoaderOptions loader_options(const World& world, bool train, uint64_t seed) const {
    MaskRcnnLoaderOptions o;
    o.threads = threads(world);
    o.prefetch_batches = static_cast<int>(prefetch_batches);
    o.on_bad_image = on_bad_image;
    o.min_size = min_image_size;
    o.max_size = max_image_size;
    o.train = train && random_flip;
    o.seed = seed;
    if (torchvision_trunk()) {  // torchvision's ToTensor and Normalize, which its resnet50 weights were trained on
      o.rgb = true;
      o.pixel_scale = 1.0f;
      o.pixel_means = common::kTorchvisionMeanRgb;
      o.pixel_stds = common::kTorchvisionStdRgb;
    }
    return o;
  }
};

// A loader batch without its skipped images: the images on `device`, their sizes and host targets.
struct KeptImages {
  torch::Tensor images;
  std::vector<ImageSize> image_sizes;
  std::vector<HostTargets> targets;
};

KeptImages kept_images(MaskRcnnBatch batch, const torch::Device& device) {
  KeptImages kept;
  std::vector<int64_t> indices;
  for (size_t i = 0; i < batch.targets.size(); ++i) {
    if (batch.targets[i].skipped) continue;
    indices.push_back(static_cast<int64_t>(i));
    kept.image_sizes.push_back(batch.image_sizes[i]);
    kept.targets.push_back(std::move(batch.targets[i]));
  }
  torch::Tensor images = batch.images;
  if (static_cast<int64_t>(indices.size()) != images.size(0)) images = images.index_select(0, torch::tensor(indices, torch::kLong));
  kept.images = to_device(images, device);
  return kept;
}

// A loader batch on the device as one gradient shard; skipped images are left out.
MaskRcnnShard to_shard(MaskRcnnBatch batch, const torch::Device& device, int64_t global_index) {
  KeptImages kept = kept_images(std::move(batch), device);
  MaskRcnnShard shard;
  shard.global_index = global_index;
  shard.images = std::move(kept.images);
  shard.image_sizes = std::move(kept.image_sizes);
  shard.targets = targets_on_device(kept.targets, device);
  return shard;
}

// One image's detections in COCO's results form, appended to `rows` (7 doubles each) and `masks` (one
// compressed RLE per line): boxes scaled from the resized image back to the original as the
// reference's BoxList.resize does, written [x, y, x2 - x + 1, y2 - y + 1] (its convert("xywh")), and
// masks pasted into the original image (mask_paste.h).
void append_detections(const MaskedDetections& found, const ImageSize& resized, const HostTargets& image,
                       const coco::Annotations& annotations, const PasteOptions& paste, std::vector<double>& rows,
                       std::string& masks) {
  const int64_t count = found.boxes_ltrb.size(0);
  if (count == 0) return;
  const float ratio_x = static_cast<float>(static_cast<double>(image.width) / static_cast<double>(resized.width));
  const float ratio_y = static_cast<float>(static_cast<double>(image.height) / static_cast<double>(resized.height));
  const torch::Tensor boxes =
      (found.boxes_ltrb.to(torch::kCPU, torch::kFloat) * torch::tensor({ratio_x, ratio_y, ratio_x, ratio_y})).contiguous();
  const std::vector<coco::RunLengthMask> pasted =
      paste_masks(found.masks.to(torch::kFloat), boxes, image.height, image.width, paste);
  const torch::Tensor labels = found.labels.to(torch::kCPU).contiguous();
  const torch::Tensor scores = found.scores.to(torch::kCPU, torch::kDouble).contiguous();
  const auto box = boxes.accessor<float, 2>();
  const auto label = labels.accessor<int64_t, 1>();
  const auto score = scores.accessor<double, 1>();
  for (int64_t k = 0; k < count; ++k) {
    const double category = static_cast<double>(annotations.categories[static_cast<size_t>(label[k] - 1)].id);
    const double x = box[k][0], y = box[k][1];
    rows.insert(rows.end(), {static_cast<double>(image.image_id), category, x, y, static_cast<double>(box[k][2]) - x + 1.0,
                             static_cast<double>(box[k][3]) - y + 1.0, score[k]});
    masks += coco::encode_rle_string(pasted[static_cast<size_t>(k)].counts);
    masks += '\n';
  }
}

class MaskRcnnWorkload final : public WorkloadBase<MaskRcnnSettings, MaskRcnnTrainer> {
 public:
  std::string benchmark() const override { return "maskrcnn"; }

  void prepare_data(const World& world, const std::string& data_root) override {
    root_ = settings_.coco_root(data_root);
    settings_.generate_synthetic_if_missing(root_, world);
  }

  std::vector<std::string> data_files() const override {
    return {coco_annotations_file(root_, settings_.train_split), coco_annotations_file(root_, settings_.eval_split)};
  }

  WorkloadInfo init(const RunContext& context) override {
    start_run(context);
    const MaskRcnnSettings& s = settings_;
    train_annotations_ = coco::read_annotations(coco_annotations_file(root_, s.train_split));
    eval_annotations_ = coco::read_annotations(coco_annotations_file(root_, s.eval_split),
                                               coco::ReadOptions{/*keep_images_without_annotations=*/true});
    if (eval_annotations_.num_classes() != train_annotations_.num_classes())
      throw UserError(eval_annotations_.path + ": " + std::to_string(eval_annotations_.num_classes()) +
                      " categories, the training file has " + std::to_string(train_annotations_.num_classes()));
    train_images_ = training_image_indices(train_annotations_);
    if (train_images_.empty())
      throw UserError(train_annotations_.path + ": no image has an object with a box over 1 pixel to train on");
    group_of_.assign(train_annotations_.images.size(), 0);
    for (const int32_t i : train_images_) {
      const coco::Image& image = train_annotations_.images[static_cast<size_t>(i)];
      group_of_[static_cast<size_t>(i)] = aspect_group(image.width, image.height);
    }
    const DetectionBatchSettings::AtRanks recipe = s.at_ranks(world_->size());
    global_batch_ = recipe.global_batch;
    base_learning_rate_ = recipe.base_learning_rate;
    warmup_steps_ = recipe.steps(s.warmup_steps);
    decay_steps_.clear();
    for (const int64_t step : s.decay_steps) decay_steps_.push_back(recipe.steps(step));
    if (global_batch_ < gradient_shards_)
      throw UserError("global batch " + std::to_string(global_batch_) + " is smaller than its " +
                      std::to_string(gradient_shards_) + " gradient shards; each shard needs an image");
    sampler_ = std::make_unique<ShardedSampler>(static_cast<int64_t>(train_images_.size()), global_batch_, world_->rank(),
                                                world_->size(), seed_);
    train_ = std::make_unique<MaskRcnnLoader>(train_annotations_, (fs::path(root_) / s.train_split).string(),
                                              s.loader_options(*world_, true, seed_));
    eval_ = std::make_unique<MaskRcnnLoader>(eval_annotations_, (fs::path(root_) / s.eval_split).string(),
                                             s.loader_options(*world_, false, seed_));
    steps_per_epoch_ = static_cast<int64_t>(epoch_batches(1).size());

    torch::manual_seed(seed_);
    MaskRcnn model(s.model_options(train_annotations_.num_classes()));
    if (!s.backbone_checkpoint.empty()) common::load_torchvision_resnet(model->backbone->body, s.backbone_checkpoint, "resnet50");
    model->to(device_);
    trainer_ = std::make_unique<MaskRcnnTrainer>(model, make_maskrcnn_sgd(model, s.sgd_options(base_learning_rate_)), *world_,
                                                 TrainStepOptions{precision_, device_});
    log_hyperparameters(context.logger);

    WorkloadInfo info;
    info.global_batch_size = global_batch_;
    info.train_samples = static_cast<int64_t>(train_images_.size());
    info.eval_samples = static_cast<int64_t>(eval_annotations_.images.size());
    for (const auto& p : trainer_->model()->parameters()) info.parameter_count += p.numel();
    info.targets = {{"BBOX", s.target_box_ap}, {"SEGM", s.target_mask_ap}};
    info.precision = precision_;
    info.schedule = {{"warmup_steps", static_cast<double>(warmup_steps_)}};
    for (size_t k = 0; k < decay_steps_.size(); ++k)
      info.schedule["decay_step_" + std::to_string(k + 1)] = static_cast<double>(decay_steps_[k]);
    info.schedule["backbone_from_checkpoint"] = s.backbone_checkpoint.empty() ? 0.0 : 1.0;
    info.schedule["torchvision_trunk_convention"] = s.torchvision_trunk() ? 1.0 : 0.0;
    return info;
  }

  int64_t steps_per_epoch() const override { return steps_per_epoch_; }

  TrainStats train_epoch(int64_t epoch, Progress& progress) override {
    const MaskRcnnSettings& s = settings_;
    trainer_->model()->train();
    const std::vector<std::vector<int32_t>> batches = epoch_batches(epoch);
    // Each global batch in gradient_shards_ shards (proportional parts); this rank loads its own,
    // each shard one loader batch, padded on its own as a reference GPU pads its batch.
    const int64_t local = gradient_shards_ / world_->size();
    const int64_t first_shard = world_->rank() * local;
    std::vector<std::vector<int32_t>> plan;
    for (const std::vector<int32_t>& batch : batches)
      for (int64_t k = first_shard; k < first_shard + local; ++k)
        plan.push_back(shard_of(batch, k, gradient_shards_));
    train_->start(std::move(plan), epoch);
    for (const std::vector<int32_t>& batch : batches) {
      trainer_->step().set_learning_rate(common::linear_warmup_multistep_learning_rate(
          step_, base_learning_rate_, warmup_steps_, s.warmup_factor, decay_steps_, s.decay_factor));
      MaskRcnnStepBatch step;
      step.global_shards = std::min<int64_t>(gradient_shards_, static_cast<int64_t>(batch.size()));
      step.sampling_seed = seed_ * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(step_);
      for (int64_t k = first_shard; k < first_shard + local; ++k) step.shards.push_back(to_shard(train_->next(), device_, k));
      ++step_;
      const torch::Tensor loss = trainer_->train_on(step);
      progress.step(static_cast<int64_t>(batch.size()), loss / static_cast<double>(step.global_shards));
    }
    const int64_t samples = static_cast<int64_t>(train_images_.size());
    return trainer_->step().take_epoch_stats(samples, static_cast<double>(steps_per_epoch_ * gradient_shards_));
  }

  Quality evaluate(int64_t epoch) override {
    const MaskRcnnSettings& s = settings_;
    MaskRcnn& model = trainer_->model();
    average_batchnorm_statistics(*model, *world_);  // each rank judges its share of the images by one model
    model->eval();
    torch::NoGradGuard no_grad;
    const int64_t images = static_cast<int64_t>(eval_annotations_.images.size());
    std::vector<std::vector<int32_t>> plan = part_in_batches(images, world_->size(), world_->rank(), s.eval_batch_size);
    const size_t batches = plan.size();
    eval_->start(std::move(plan), epoch);
    const PasteOptions paste{static_cast<float>(s.mask_threshold), 1};
    // This rank's detections: rows of 7 doubles (image id, category id, x, y, w, h, score) and their
    // masks as compressed RLE strings, one line each.
    std::vector<double> rows;
    std::string masks;
    for (size_t b = 0; b < batches; ++b) {
      const KeptImages batch = kept_images(eval_->next(), device_);  // targets: ids and original sizes
      if (batch.images.size(0) == 0) continue;
      std::vector<MaskedDetections> found;
      {
        AutocastScope autocast(precision_, device_);
        found = model->detect(batch.images, batch.image_sizes);
      }
      for (size_t i = 0; i < found.size(); ++i)
        append_detections(found[i], batch.image_sizes[i], batch.targets[i], eval_annotations_, paste, rows, masks);
    }
    return score(epoch, rows, masks);
  }

  std::unique_ptr<BenchStep> model_bench_step(const BenchSpec& spec, const World& world) override;
  bool image_layouts() const override { return true; }

 private:
  // The epoch's global batches: a permutation of the training images (the ShardedSampler's, the same
  // on every rank), grouped by aspect ratio into batches of the global batch size.
  std::vector<std::vector<int32_t>> epoch_batches(int64_t epoch) const {
    sampler_->set_epoch(epoch);
    std::vector<int32_t> order;
    order.reserve(train_images_.size());
    for (const int32_t position : sampler_->permutation()) order.push_back(train_images_[static_cast<size_t>(position)]);
    return group_batches(order, group_of_, global_batch_);
  }

  // Every rank's detections gathered, box and mask AP in one pass over them.
  Quality score(int64_t epoch, const std::vector<double>& rows, const std::string& masks) const {
    const std::vector<double> all_rows = world_->allgather(rows);
    std::vector<std::string> mask_lines;
    for (const std::string& rank_masks : world_->allgather_string(masks)) {
      size_t begin = 0;
      for (size_t end = rank_masks.find('\n'); end != std::string::npos; end = rank_masks.find('\n', begin)) {
        mask_lines.push_back(rank_masks.substr(begin, end - begin));
        begin = end + 1;
      }
    }
    MLH_ASSERT(mask_lines.size() * 7 == all_rows.size());
    // Box results as the reference's bbox file; mask results as its segm file, which has no bbox, so
    // loadRes takes each box and area from the mask.
    std::vector<coco::Detection> boxes, masks_found;
    boxes.reserve(mask_lines.size());
    masks_found.reserve(mask_lines.size());
    for (size_t d = 0; d < mask_lines.size(); ++d) {
      const double* r = all_rows.data() + 7 * d;
      boxes.push_back(coco::box_detection(static_cast<int64_t>(r[0]), static_cast<int64_t>(r[1]), r[2], r[3], r[4], r[5], r[6]));
      const coco::Image& image = eval_annotations_.images[static_cast<size_t>(eval_annotations_.image_index.at(boxes.back().image_id))];
      coco::Detection mask = boxes.back();
      mask.segmentation.height = image.height;
      mask.segmentation.width = image.width;
      const std::string error = coco::decode_rle_string(mask_lines[d], mask.segmentation.counts);
      MLH_ASSERT(error.empty());
      const std::array<double, 4> box = coco::mask_box(mask.segmentation);
      mask.x = box[0], mask.y = box[1], mask.w = box[2], mask.h = box[3];
      mask.area = static_cast<double>(coco::mask_area(mask.segmentation));
      masks_found.push_back(std::move(mask));
    }
    if (settings_.write_detections && world_->is_root()) {
      // Two files, as the reference writes bbox.json and segm.json: one file of boxes each with its
      // mask would be read as mask results (loadRes), whose boxes are the masks' extents, and its
      // box AP would not be the one logged.
      const std::string epoch_suffix = "_epoch" + std::to_string(epoch) + ".json";
      coco::write_detections_json(output_stem_ + "_detections" + epoch_suffix, boxes);
      coco::write_detections_json(output_stem_ + "_mask_detections" + epoch_suffix, masks_found);
    }
    const coco::CocoEvalStats box = coco::evaluate_detections(eval_annotations_, boxes, coco::IouType::kBox);
    const coco::CocoEvalStats mask = coco::evaluate_detections(eval_annotations_, masks_found, coco::IouType::kSegmentation);
    Quality quality;
    quality.values["BBOX"] = box.ap;
    quality.values["SEGM"] = mask.ap;
    quality.values["BBOX_AP50"] = box.ap50;
    quality.values["SEGM_AP50"] = mask.ap50;
    return quality;
  }

  void log_hyperparameters(MLLogger& log) const {
    const MaskRcnnSettings& s = settings_;
    log.event(keys::kOptName, keys::kSgd);
    log.event(keys::kOptBaseLearningRate, base_learning_rate_);
    log.event(keys::kOptWeightDecay, s.weight_decay);
    log.event(keys::kOptLearningRateWarmupSteps, warmup_steps_);
    log.event(keys::kOptLearningRateWarmupFactor, s.warmup_factor);
    log.event(keys::kOptLearningRateDecayFactor, s.decay_factor);
    log.event(keys::kOptLearningRateDecaySteps, decay_steps_);
    log.event(keys::kNumImageCandidates, s.num_image_candidates);
    log.event(keys::kMinImageSize, s.min_image_size);
    log.event(keys::kMaxImageSize, s.max_image_size);
    log.event(keys::kEvalTarget, nlohmann::json{{"BBOX", s.target_box_ap}, {"SEGM", s.target_mask_ap}});
  }

  std::string root_;
  coco::Annotations train_annotations_, eval_annotations_;
  std::vector<int32_t> train_images_;  // indices into train_annotations_.images
  std::vector<int32_t> group_of_;      // aspect group by image index
  std::unique_ptr<MaskRcnnLoader> train_, eval_;
  std::unique_ptr<ShardedSampler> sampler_;
  std::vector<int64_t> decay_steps_;
  int64_t global_batch_ = 0, warmup_steps_ = 1, steps_per_epoch_ = 0;
  double base_learning_rate_ = 0;
};

// Random square images of min_image_size (rounded up to 32), each with three random boxes, their
// rectangles as polygon masks, of random classes: the training step (RPN, sampling, both heads, the
// mask targets, backward, reduction, update) or detection with the evaluation's post-processing
// (proposals, per-class NMS, the mask head, masks pasted and run-length encoded).
std::unique_ptr<BenchStep> make_model_bench_step(const MaskRcnnSettings& s, const BenchSpec& spec, const World& world) {
  if (spec.channels_last) throw UserError("bench: maskrcnn runs in NCHW only (drop --channels-last)");
  const torch::Device device = spec.device;
  const Precision precision = parse_precision(spec.precision, "bench precision");
  const int64_t batch = spec.batch_size;
  const int64_t side = (s.min_image_size + 31) / 32 * 32;
  const int64_t classes = s.data_source == CocoDataSettings::DataSource::kCoco ? 80 : s.synthetic.categories;
  const int64_t shards = shards_per_rank(s.gradient_shards, world.size(), "gradient_shards");
  torch::manual_seed(0);
  MaskRcnn model(s.model_options(classes));
  model->to(device);
  auto trainer = std::make_shared<MaskRcnnTrainer>(model, make_maskrcnn_sgd(model, s.sgd_options(1e-4)), world,
                                                   TrainStepOptions{precision, device});
  const torch::Tensor images = torch::randn({batch, 3, side, side}).to(device);
  const std::vector<ImageSize> sizes(static_cast<size_t>(batch), ImageSize{side, side});
  DeviceBenchStep::Spec bench{device, precision, batch, "images", "nchw"};
  if (spec.mode == BenchMode::kInference) {
    const PasteOptions paste{static_cast<float>(s.mask_threshold), 1};
    return std::make_unique<DeviceBenchStep>(bench, [=] {
      trainer->model()->eval();
      torch::NoGradGuard no_grad;
      std::vector<MaskedDetections> found;
      {
        AutocastScope autocast(precision, device);
        found = trainer->model()->detect(images, sizes);
      }
      for (const MaskedDetections& d : found)
        for (const coco::RunLengthMask& mask : paste_masks(d.masks.to(torch::kFloat), d.boxes_ltrb.to(torch::kCPU, torch::kFloat), side, side, paste))
          coco::encode_rle_string(mask.counts);
    });
  }
  MaskRcnnStepBatch fixed;
  fixed.global_shards = shards * world.size();
  for (int64_t k = 0; k < shards; ++k) {
    const auto [begin, end] = proportional_part(batch, shards, k);
    MaskRcnnShard shard;
    shard.images = images.narrow(0, begin, end - begin);
    shard.image_sizes.assign(static_cast<size_t>(end - begin), ImageSize{side, side});
    shard.global_index = world.rank() * shards + k;
    for (int64_t i = begin; i < end; ++i) {
      const torch::Tensor corner = torch::rand({3, 2}) * 0.6 * static_cast<double>(side);
      const torch::Tensor boxes = torch::cat({corner, corner + (0.1 + torch::rand({3, 2}) * 0.3) * static_cast<double>(side)}, 1);
      ImageTargets target;
      target.boxes_ltrb = boxes.to(device);
      target.labels = torch::randint(1, classes + 1, {3}, torch::kLong).to(device);
      const auto b = boxes.accessor<float, 2>();
      for (int64_t j = 0; j < 3; ++j) {
        coco::Segmentation polygon;
        polygon.kind = coco::Segmentation::Kind::kPolygons;
        polygon.polygons = {{b[j][0], b[j][1], b[j][2], b[j][1], b[j][2], b[j][3], b[j][0], b[j][3]}};
        target.masks.push_back(std::move(polygon));
      }
      shard.targets.push_back(std::move(target));
    }
    fixed.shards.push_back(std::move(shard));
  }
  return make_train_bench_step<MaskRcnnStepBatch>(bench, trainer, [fixed]() mutable {
    ++fixed.sampling_seed;
    return fixed;
  });
}

std::unique_ptr<BenchStep> MaskRcnnWorkload::model_bench_step(const BenchSpec& spec, const World& world) {
  return make_model_bench_step(settings_, spec, world);
}

}  // namespace

MLH_REGISTER_WORKLOAD("maskrcnn", "Mask R-CNN R50-FPN instance segmentation on COCO, box and mask AP (MLPerf)",
                      MaskRcnnWorkload);

}  // namespace mlh::maskrcnn
