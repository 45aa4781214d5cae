// `mpirun -np 2` where one rank fails alone: a truncated JPEG that only that rank's shard reads,
// under the default on_bad_image: fail. The other rank meanwhile waits in the gradient all-reduce for
// a rank that will never join it; the job must still end at once with the one-line message, exit 2,
// and leave no log behind on rank 0, whole or partial, as an error on rank 0 itself leaves none: the
// failing rank tells rank 0 (harness/peer_error_watch.h), which ends its log before mpirun kills it.
#include <chrono>
#include <string>
#include <vector>

#include "datasets/imagenet/folder.h"
#include "datasets/imagenet/synthetic.h"
#include "datasets/sharded_sampler.h"
#include "tests/e2e/cli_fixture.h"
#include "tests/test_paths.h"

namespace mlh {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr int64_t kGlobalBatch = 8;
constexpr int kRanks = 2;

// Training-set positions that `rank` reads in epoch `epoch` after its first step (so the other rank
// has trained a step with it and then sits in the next all-reduce).
std::vector<bool> read_after_first_step(int64_t samples, uint64_t seed, int64_t epoch, int rank) {
  ShardedSampler sampler(samples, kGlobalBatch, rank, kRanks, seed);
  sampler.set_epoch(epoch);
  std::vector<bool> read(static_cast<size_t>(samples), false);
  for (int64_t b = 1; b < sampler.num_batches(); ++b) {
    const ShardedSampler::Slice slice = sampler.slice(b);
    for (int64_t p = slice.begin; p < slice.end; ++p) read[static_cast<size_t>(sampler.permutation()[p])] = true;
  }
  return read;
}

class LoneFailingRank : public Cli, public ::testing::WithParamInterface<int> {};

TEST_P(LoneFailingRank, TruncatedJpegInItsShardEndsTheJobWithExit2NamingIt) {
  const int failing = GetParam();
  const std::string other = "(rank " + std::to_string(1 - failing) + ")";
  const fs::path data = dir_ / "imagenet";
  imagenet::SyntheticImageNetSpec spec;
  spec.classes = 4;
  spec.train_images_per_class = 8;
  spec.val_images_per_class = 2;
  spec.min_side = 40;
  spec.max_side = 64;
  imagenet::write_synthetic_imagenet(data.string(), spec);
  const imagenet::ImageFolder train = imagenet::scan_image_folder(
      (data / "train").string(), imagenet::read_class_index((data / imagenet::kClassIndexFileName).string()));

  // A seed and an image that the failing rank reads after its first step, and the other rank not at
  // all, in the first epoch whether the engine counts epochs from 0 or from 1 (each epoch shares its
  // images out once).
  uint64_t seed = 0;
  std::string victim;
  for (uint64_t s = 1; s <= 50 && victim.empty(); ++s) {
    const std::vector<bool> epoch0 = read_after_first_step(train.size(), s, 0, failing);
    const std::vector<bool> epoch1 = read_after_first_step(train.size(), s, 1, failing);
    for (size_t i = 0; i < epoch0.size() && victim.empty(); ++i) {
      if (epoch0[i] && epoch1[i]) {
        seed = s;
        victim = train.files[i];
      }
    }
  }
  ASSERT_FALSE(victim.empty());
  const std::string jpeg = read_file(victim);
  std::ofstream(victim, std::ios::binary | std::ios::trunc) << jpeg.substr(0, jpeg.size() / 2);

  const auto start = std::chrono::steady_clock::now();
  const Outcome outcome = run(
      "--workload resnet50 --seed " + std::to_string(seed) + " --set data_path='" + data.string() +
          "' --set num_classes=4 --set depth=18 --set width=0.125 --set image_size=32 --set eval_resize=36"
          " --set global_batch_size=" + std::to_string(kGlobalBatch) +
          " --set eval_batch_size=8 --set precision=fp32 --set channels_last=false --set loader_threads=1"
          " --set max_epochs=2 --set eval_every_epochs=1 --quiet",
      test_paths::mpirun() + " -np 2", 90);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  EXPECT_EQ(outcome.exit_code, 2) << outcome.err;
  EXPECT_LT(seconds, 30.0) << outcome.err;
  EXPECT_THAT(outcome.err, HasSubstr("mlharness: error (rank " + std::to_string(failing) + "): " + victim +
                                     ": not a decodable image"));
  EXPECT_THAT(outcome.err, Not(HasSubstr(other)));
  EXPECT_THAT(outcome.err, Not(HasSubstr("stack smashing")));
  EXPECT_THAT(outcome.err, Not(HasSubstr("Signal:")));
  // Under Open MPI's mpirun the failing rank exits (harness/world.h's abort_job): MPI_Abort's banner
  // races the job's end there and often reaches the user as "ORTE_ERROR_LOG: ... show_help.c".
  EXPECT_THAT(outcome.err, Not(HasSubstr("ORTE_ERROR_LOG")));
  EXPECT_THAT(outcome.err, Not(HasSubstr("MPI_ABORT was invoked")));
  ASSERT_TRUE(fs::exists(dir_ / "results")) << "the run never opened its log";
  for (const auto& entry : fs::recursive_directory_iterator(dir_ / "results"))
    EXPECT_FALSE(entry.is_regular_file()) << "left behind: " << entry.path();
}

INSTANTIATE_TEST_SUITE_P(Rank, LoneFailingRank, ::testing::Values(1, 0),
                         [](const ::testing::TestParamInfo<int>& info) { return "rank" + std::to_string(info.param); });

}  // namespace
}  // namespace mlh
