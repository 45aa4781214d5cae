// NCF (NeuMF on MovieLens) wired into the engine: MovieLens or synthetic ratings, the leave-one-out
// split, 4 fresh training negatives per positive each epoch, Adam, and HR@10 against 999 negatives
// per user (spec/workloads.md §7).
#include <cmath>
#include <filesystem>

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "compliance/mllog_keys.h"
#include "base/user_error.h"
#include "datasets/movielens/hit_rate.h"
#include "datasets/movielens/negatives.h"
#include "datasets/movielens/ratings.h"
#include "datasets/movielens/synthetic.h"
#include "datasets/sharded_sampler.h"
#include "harness/bench.h"
#include "harness/device.h"
#include "harness/setting_groups.h"
#include "harness/train_step.h"
#include "harness/workload.h"
#include "workloads/common/workload_base.h"
#include "workloads/ncf/ncf_trainer.h"
#include "workloads/ncf/neumf.h"

namespace mlh::ncf {

namespace {

namespace fs = std::filesystem;

// MovieLens-20M sizes: the model size `bench` measures.
constexpr int64_t kMl20mUsers = 138493;
constexpr int64_t kMl20mItems = 26744;

struct NcfSettings : AdamSettings {
  enum class DataSource { kMovieLens, kSynthetic };

  DataSource data_source = DataSource::kMovieLens;
  std::string data_path;                  // ml-20m folder or ratings file
  int64_t synthetic_users = 6000;
  int64_t synthetic_items = 2000;
  int64_t synthetic_factors = 8;
  int64_t synthetic_mean_ratings_per_user = 50;
  int64_t synthetic_data_seed = 1;
  int64_t min_ratings = 20;
  int64_t mf_dim = 64;
  std::vector<int64_t> mlp_layer_sizes = {256, 256, 128, 64};
  int64_t train_negatives = 4;
  int64_t eval_negatives = 999;
  int64_t top_k = 10;
  int64_t global_batch_size = 2048;
  int64_t gradient_shards = 1;
  double learning_rate = 5e-4;
  double target_hit_rate = 0.635;

  NcfSettings() : AdamSettings(0.9, 0.999, 1e-8) {}

  void bind(ConfigMap& c) {
    c.bind_choice("data_source", data_source, "movielens (read data_path) or synthetic (generated)",
                  Choices<DataSource>{{"movielens", DataSource::kMovieLens}, {"synthetic", DataSource::kSynthetic}});
    c.bind("data_path", data_path, "MovieLens folder or ratings.csv / ratings.dat (data_source movielens)");
    c.bind("synthetic_users", synthetic_users, "users in the generated dataset", at_least(1));
    c.bind("synthetic_items", synthetic_items, "items in the generated dataset", at_least(1));
    c.bind("synthetic_factors", synthetic_factors, "latent factors of the generating model", at_least(1));
    c.bind("synthetic_mean_ratings_per_user", synthetic_mean_ratings_per_user, "mean ratings per user", at_least(1));
    c.bind("synthetic_data_seed", synthetic_data_seed, "seed of the generated dataset (not the run seed)");
    c.bind("min_ratings", min_ratings, "users with fewer ratings are dropped (reference: 20)");
    c.bind("mf_dim", mf_dim, "GMF embedding size", at_least(1));
    c.bind("mlp_layer_sizes", mlp_layer_sizes, "MLP layer sizes; the first is twice the MLP embedding", at_least(1));
    c.bind("train_negatives", train_negatives, "negatives drawn per positive each epoch", at_least(1));
    c.bind("eval_negatives", eval_negatives, "negatives per user for HR@K (MLPerf: 999)", at_least(1));
    c.bind("top_k", top_k, "K of HR@K", at_least(1));
    c.bind("global_batch_size", global_batch_size, "training samples per step over all ranks", at_least(1));
    c.bind("gradient_shards", gradient_shards,
           "the global batch's gradient is summed over this many shards in a fixed order (a power of "
           "two): any rank count dividing it trains alike, bitwise on 1 or 2 CPU ranks; 0 = one per rank",
           at_least(0));
    c.bind("learning_rate", learning_rate, "Adam learning rate", above(0.0));
    AdamSettings::bind(c);
    c.bind("target_hit_rate", target_hit_rate, "HR@K at which the run has converged", in_range(0.0, 1.0, Ends::kOpenLow));
  }

  void validate() const {
    if (data_source == DataSource::kMovieLens && data_path.empty())
      throw UserError("key 'data_path' must name a MovieLens folder or ratings file (--set data_path=DIR)");
    if (gradient_shards > global_batch_size)
      throw UserError("key 'gradient_shards' must not exceed global_batch_size");
  }

  movielens::SyntheticRatingsSpec synthetic_spec() const {
    movielens::SyntheticRatingsSpec spec;
    spec.num_users = static_cast<int32_t>(synthetic_users);
    spec.num_items = static_cast<int32_t>(synthetic_items);
    spec.factors = static_cast<int32_t>(synthetic_factors);
    spec.mean_ratings_per_user = static_cast<int32_t>(synthetic_mean_ratings_per_user);
    spec.min_ratings_per_user = static_cast<int32_t>(min_ratings);
    spec.seed = static_cast<uint64_t>(synthetic_data_seed);
    return spec;
  }
};

// The training step (or the forward pass) at MovieLens-20M size on random ids: the rank's part of
// the batch cut into the configured gradient shards, as training cuts it.
std::unique_ptr<BenchStep> make_ncf_bench_step(const NcfSettings& settings, const BenchSpec& spec, const World& world) {
  const Precision precision = parse_precision(spec.precision, "bench precision");
  const int64_t batch = spec.batch_size;
  const int64_t shards_per_rank = mlh::shards_per_rank(settings.gradient_shards, world.size(), "gradient_shards");
  torch::manual_seed(0);
  const torch::Device device = spec.device;
  auto trainer = std::make_shared<NcfTrainer>(
      NeuMF(NeuMFOptions(kMl20mUsers, kMl20mItems).mf_dim(settings.mf_dim).mlp_layer_sizes(settings.mlp_layer_sizes)),
      settings.adam_options(settings.learning_rate), world, precision, device);
  const auto ids = torch::TensorOptions(torch::kLong).device(device);
  const int64_t global_count = batch * world.size();
  auto random_batch = [=] {
    NcfBatch random{{}, global_count};
    for (int64_t k = 0; k < shards_per_rank; ++k) {
      const auto [begin, end] = proportional_part(batch, shards_per_rank, k);
      const int64_t n = end - begin;
      random.shards.push_back({torch::randint(kMl20mUsers, {n}, ids), torch::randint(kMl20mItems, {n}, ids),
                               torch::randint(2, {n}, ids.dtype(torch::kFloat))});
    }
    return random;
  };
  DeviceBenchStep::Spec bench{device, precision, batch};
  if (spec.mode != BenchMode::kInference) return make_train_bench_step<NcfBatch>(bench, trainer, random_batch);
  return std::make_unique<DeviceBenchStep>(bench, [=] {
    const NcfBatch random = random_batch();
    torch::NoGradGuard no_grad;
    AutocastScope autocast(precision, device);
    for (const NcfShard& shard : random.shards) trainer->model()->forward(shard.user, shard.item);
  });
}

class NcfWorkload final : public WorkloadBase<NcfSettings, NcfTrainer> {
 public:
  std::string benchmark() const override { return "ncf"; }

  void prepare_data(const World& world, const std::string& data_root) override {
    if (settings_.data_source == NcfSettings::DataSource::kMovieLens) {
      data_path_ = settings_.data_path;
      return;
    }
    const auto spec = settings_.synthetic_spec();
    const fs::path folder = fs::path(data_root) /
                            ("ncf-synthetic-u" + std::to_string(spec.num_users) + "-i" +
                             std::to_string(spec.num_items) + "-f" + std::to_string(spec.factors) +
                             "-r" + std::to_string(spec.mean_ratings_per_user) + "-m" +
                             std::to_string(spec.min_ratings_per_user) + "-s" + std::to_string(spec.seed));
    data_path_ = (folder / "ratings.csv").string();
    if (world.is_root() && !fs::exists(data_path_)) {
      const std::string temporary = data_path_ + ".tmp";
      movielens::write_synthetic_ratings(temporary, spec);
      fs::rename(temporary, data_path_);
    }
  }

  std::vector<std::string> data_files() const override {
    if (fs::is_directory(data_path_))
      for (const char* name : {"ratings.csv", "ratings.dat"})
        if (fs::exists(fs::path(data_path_) / name)) return {(fs::path(data_path_) / name).string()};
    return {data_path_};
  }

  WorkloadInfo init(const RunContext& context) override {
    start_run(context);
    MLLogger& log = context.logger;

    const movielens::RatingsTable ratings = movielens::read_ratings(data_path_);
    split_ = movielens::leave_one_out(ratings, static_cast<int>(settings_.min_ratings));
    eval_negatives_ = movielens::make_eval_negatives(split_, static_cast<int>(settings_.eval_negatives),
                                                     seed_ ^ 0x6576616cULL);
    num_positives_ = split_.num_train();
    samples_per_epoch_ = num_positives_ * (1 + settings_.train_negatives);
    sampler_ = std::make_unique<ShardedSampler>(samples_per_epoch_, settings_.global_batch_size,
                                                world_->rank(), world_->size(), seed_);

    torch::manual_seed(seed_);
    NeuMF model(NeuMFOptions(split_.num_users, split_.num_items)
                    .mf_dim(settings_.mf_dim)
                    .mlp_layer_sizes(settings_.mlp_layer_sizes));
    trainer_ = std::make_unique<NcfTrainer>(model, settings_.adam_options(settings_.learning_rate), *world_,
                                            precision_, device_);

    settings_.log_adam(log, settings_.learning_rate);
    log.event(keys::kPreprocHpMinRatings, settings_.min_ratings);
    log.event(keys::kPreprocHpNumEval, settings_.eval_negatives);
    log.event(keys::kPreprocHpSampleEvalReplacement, true);
    log.event(keys::kInputHpNumNeg, settings_.train_negatives);
    log.event(keys::kInputHpSampleTrainReplacement, true);
    log.event(keys::kEvalHpNumUsers, split_.num_users);
    log.event(keys::kEvalHpNumNeg, settings_.eval_negatives);
    log.event(keys::kModelHpLossFn, "binary_cross_entropy");
    log.event(keys::kModelHpMfDim, settings_.mf_dim);
    log.event(keys::kModelHpMlpLayerSizes, settings_.mlp_layer_sizes);
    log.event(keys::kEvalTarget, settings_.target_hit_rate);

    WorkloadInfo info;
    info.global_batch_size = settings_.global_batch_size;
    info.train_samples = samples_per_epoch_;
    info.eval_samples = split_.num_users * (1 + settings_.eval_negatives);
    info.parameter_count = count_parameters(*trainer_->model());
    info.targets = {{"hr@" + std::to_string(settings_.top_k), settings_.target_hit_rate}};
    return info;
  }

  std::map<std::string, double> baselines() override {
    std::vector<int64_t> counts(static_cast<size_t>(split_.num_items), 0);
    for (int32_t item : split_.train_item) ++counts[static_cast<size_t>(item)];
    return {{"popularity baseline", movielens::popularity_hit_rate_at_k(
                                        counts.data(), split_.test_item.data(), eval_negatives_.data(),
                                        split_.num_users, settings_.eval_negatives,
                                        static_cast<int>(settings_.top_k))}};
  }

  int64_t steps_per_epoch() const override { return sampler_->num_batches(); }

  TrainStats train_epoch(int64_t epoch, Progress& progress) override {
    trainer_->model()->train();
    sampler_->set_epoch(epoch);
    for (int64_t b = 0; b < sampler_->num_batches(); ++b) {
      NcfBatch batch;
      int64_t count = 0;
      for (const ShardedSampler::Slice& slice : sampler_->local_shards(b, gradient_shards_)) {
        const int64_t n = slice.end - slice.begin;
        const auto ids = host_staging_options(torch::kLong, device_);
        NcfShard shard{torch::empty({n}, ids), torch::empty({n}, ids), torch::empty({n}, ids.dtype(torch::kFloat))};
        fill_samples(sampler_->indices(slice), n, epoch, shard.user.data_ptr<int64_t>(),
                     shard.item.data_ptr<int64_t>(), shard.label.data_ptr<float>());
        batch.shards.push_back({to_device(shard.user, device_), to_device(shard.item, device_),
                                to_device(shard.label, device_)});
        count += n;
        batch.global_count = slice.global_size;
      }
      const torch::Tensor loss = trainer_->train_on(batch);
      progress.step(batch.global_count, loss / std::max<int64_t>(count, 1));
    }
    return trainer_->step().take_epoch_stats(samples_per_epoch_, static_cast<double>(samples_per_epoch_));
  }

  Quality evaluate(int64_t epoch) override {
    NeuMF& model = trainer_->model();
    model->eval();
    torch::NoGradGuard no_grad;
    const int64_t users = split_.num_users;
    const int64_t first = users * world_->rank() / world_->size();
    const int64_t last = users * (world_->rank() + 1) / world_->size();
    const int64_t per_user = settings_.eval_negatives;
    const int64_t chunk_users = std::max<int64_t>(1, (int64_t{1} << 17) / (per_user + 1));
    int64_t hits = 0;
    for (int64_t begin = first; begin < last; begin += chunk_users) {
      const int64_t n = std::min(chunk_users, last - begin);
      torch::Tensor user = torch::arange(begin, begin + n, torch::kLong).unsqueeze(1).expand({n, per_user + 1});
      torch::Tensor item = torch::empty({n, per_user + 1}, torch::kLong);
      int64_t* item_data = item.data_ptr<int64_t>();
      for (int64_t u = 0; u < n; ++u) {
        item_data[u * (per_user + 1)] = split_.test_item[static_cast<size_t>(begin + u)];
        const int32_t* negatives = eval_negatives_.data() + (begin + u) * per_user;
        for (int64_t j = 0; j < per_user; ++j) item_data[u * (per_user + 1) + 1 + j] = negatives[j];
      }
      torch::Tensor scores = model->forward(to_device(user.reshape({-1}), device_), to_device(item.reshape({-1}), device_))
                                 .reshape({n, per_user + 1})
                                 .to(torch::kCPU, torch::kFloat);
      torch::Tensor positive = scores.select(1, 0).contiguous();
      torch::Tensor negative = scores.narrow(1, 1, per_user).contiguous();
      hits += movielens::count_hits_at_k(positive.data_ptr<float>(), negative.data_ptr<float>(),
                                         eval_negatives_.data() + begin * per_user, n, per_user,
                                         static_cast<int>(settings_.top_k));
    }
    const double total_hits = world_->allreduce_sum(static_cast<double>(hits));
    Quality quality;
    quality.values["hr@" + std::to_string(settings_.top_k)] = total_hits / static_cast<double>(users);
    return quality;
  }

  // No loader bench: the negatives are drawn in the step.
  std::unique_ptr<BenchStep> model_bench_step(const BenchSpec& spec, const World& world) override {
    return make_ncf_bench_step(settings_, spec, world);
  }

 private:
  // Fills the samples at permutation positions `indices`: positives first in sample order, then
  // `train_negatives` negatives per positive, each drawn from (seed, epoch, index) alone.
  void fill_samples(const int32_t* indices, int64_t count, int64_t epoch, int64_t* user,
                    int64_t* item, float* label) const {
    at::parallel_for(0, count, 4096, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const int64_t sample = indices[i];
        if (sample < num_positives_) {
          user[i] = split_.train_user[static_cast<size_t>(sample)];
          item[i] = split_.train_item[static_cast<size_t>(sample)];
          label[i] = 1.0f;
        } else {
          const int64_t negative = sample - num_positives_;
          const int32_t u = split_.train_user[static_cast<size_t>(negative / settings_.train_negatives)];
          user[i] = u;
          item[i] = movielens::train_negative(split_, u, seed_, epoch, negative);
          label[i] = 0.0f;
        }
      }
    });
  }

  std::string data_path_;
  movielens::LeaveOneOutSplit split_;
  std::vector<int32_t> eval_negatives_;
  int64_t num_positives_ = 0;
  int64_t samples_per_epoch_ = 0;
  std::unique_ptr<ShardedSampler> sampler_;
};

}  // namespace

MLH_REGISTER_WORKLOAD("ncf", "NCF: NeuMF on MovieLens, HR@10 (MLPerf v0.5)", NcfWorkload);

}  // namespace mlh::ncf
