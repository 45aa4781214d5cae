#include "datasets/sample_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/user_error.h"
#include "datasets/counter_random.h"
#include "datasets/sharded_sampler.h"

namespace mlh {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A sample of any size: index % 7 values drawn from (seed, epoch, index) only.
using Values = std::vector<uint64_t>;
constexpr uint64_t kSeed = 11;
using Plan = std::vector<std::vector<int32_t>>;

void decode_values(int32_t index, int64_t epoch, Values& sample) {
  sample.resize(static_cast<size_t>(index % 7));
  for (size_t i = 0; i < sample.size(); ++i) {
    sample[i] = counter_random(kSeed, static_cast<uint64_t>(epoch), static_cast<uint64_t>(index) * 8 + i);
  }
}

Values expected_values(int32_t index, int64_t epoch) {
  Values values;
  decode_values(index, epoch, values);
  return values;
}

SampleLoaderOptions options(int threads, int prefetch_batches = 2) {
  SampleLoaderOptions result;
  result.threads = threads;
  result.prefetch_batches = prefetch_batches;
  return result;
}

// Consecutive indices [0, count) cut into batches of the given sizes, in a scrambled order.
Plan make_plan(const std::vector<int>& sizes) {
  Plan plan;
  int32_t next = 0;
  for (const int size : sizes) {
    plan.emplace_back();
    for (int i = 0; i < size; ++i) plan.back().push_back((next++ * 37) % 1009);
  }
  return plan;
}

std::vector<SampleBatch<Values>> run_plan(SampleLoader<Values>& loader, const Plan& plan, int64_t epoch) {
  loader.start(plan, epoch);
  std::vector<SampleBatch<Values>> batches;
  for (size_t b = 0; b < plan.size(); ++b) batches.push_back(loader.next());
  return batches;
}

// Decodes after a pause that varies with the index, so threads finish out of order.
void jittery_decode(int32_t index, int64_t epoch, Values& sample) {
  std::this_thread::sleep_for(std::chrono::microseconds((index * 7919) % 2000));
  decode_values(index, epoch, sample);
}

TEST(SampleLoader, RejectsOptionsOutOfRange) {
  EXPECT_THROW(SampleLoader<Values>(options(0), decode_values), UserError);
  EXPECT_THROW(SampleLoader<Values>(options(1, 0), decode_values), UserError);
}

TEST(SampleLoader, DeliversBatchesOfAnySizeInPlanOrder) {
  SampleLoader<Values> loader(options(3), jittery_decode);
  const Plan plan = {{5, 0}, {11, 3, 7}, {2}, {}, {8, 9, 10, 1, 13, 20, 6}};
  const std::vector<SampleBatch<Values>> batches = run_plan(loader, plan, 4);
  for (size_t b = 0; b < plan.size(); ++b) {
    EXPECT_EQ(batches[b].indices, plan[b]);
    ASSERT_EQ(batches[b].samples.size(), plan[b].size());
    EXPECT_EQ(batches[b].skipped, std::vector<uint8_t>(plan[b].size(), 0));
    EXPECT_EQ(batches[b].skipped_count, 0);
    for (size_t i = 0; i < plan[b].size(); ++i) {
      EXPECT_EQ(batches[b].samples[i], expected_values(plan[b][i], 4)) << "index " << plan[b][i];
    }
  }
  EXPECT_THROW(loader.next(), InternalError);
}

TEST(SampleLoader, OutputDoesNotDependOnThreadsPrefetchOrTiming) {
  const Plan plan = make_plan({16, 3, 1, 0, 40, 9, 9, 9, 2});
  SampleLoader<Values> reference_loader(options(1, 1), decode_values);
  const std::vector<SampleBatch<Values>> reference = run_plan(reference_loader, plan, 2);
  for (const int threads : {2, 5}) {
    for (const int prefetch : {1, 4}) {
      SampleLoader<Values> loader(options(threads, prefetch), jittery_decode);
      const std::vector<SampleBatch<Values>> got = run_plan(loader, plan, 2);
      ASSERT_EQ(got.size(), reference.size());
      for (size_t b = 0; b < got.size(); ++b) {
        EXPECT_EQ(got[b].samples, reference[b].samples) << threads << " threads, batch " << b;
      }
    }
  }
}

// Each rank loads its ShardedSampler slices; side by side, the ranks' batches are one rank's.
TEST(SampleLoader, RanksLoadingTheirShardsTogetherGiveTheOneRankBatches) {
  constexpr int64_t kSamples = 50, kGlobalBatch = 8, kEpoch = 3;
  const auto rank_plan = [&](int rank, int world_size) {
    ShardedSampler sampler(kSamples, kGlobalBatch, rank, world_size, /*seed=*/5);
    sampler.set_epoch(kEpoch);
    Plan plan;
    for (int64_t b = 0; b < sampler.num_batches(); ++b) {
      const ShardedSampler::Slice slice = sampler.slice(b);
      plan.emplace_back(sampler.indices(slice), sampler.indices(slice) + (slice.end - slice.begin));
    }
    return plan;
  };
  SampleLoader<Values> alone(options(2), jittery_decode);
  const std::vector<SampleBatch<Values>> expected = run_plan(alone, rank_plan(0, 1), kEpoch);
  SampleLoader<Values> rank0(options(1), jittery_decode);
  SampleLoader<Values> rank1(options(3), jittery_decode);
  const std::vector<SampleBatch<Values>> first = run_plan(rank0, rank_plan(0, 2), kEpoch);
  const std::vector<SampleBatch<Values>> second = run_plan(rank1, rank_plan(1, 2), kEpoch);
  ASSERT_EQ(first.size(), expected.size());
  ASSERT_EQ(second.size(), expected.size());
  for (size_t b = 0; b < expected.size(); ++b) {
    std::vector<Values> together = first[b].samples;
    together.insert(together.end(), second[b].samples.begin(), second[b].samples.end());
    EXPECT_EQ(together, expected[b].samples) << "batch " << b;
  }
}

TEST(SampleLoader, RecycledSamplesGiveTheSameBatches) {
  SampleLoader<Values> fresh(options(2), decode_values);
  SampleLoader<Values> recycling(options(3), decode_values);
  for (int64_t epoch = 0; epoch < 3; ++epoch) {
    const Plan plan = make_plan({5, 9, 2, 7});
    fresh.start(plan, epoch);
    recycling.start(plan, epoch);
    for (size_t b = 0; b < plan.size(); ++b) {
      const SampleBatch<Values> expected = fresh.next();
      SampleBatch<Values> got = recycling.next();
      EXPECT_EQ(got.samples, expected.samples) << "epoch " << epoch << " batch " << b;
      recycling.recycle(std::move(got));
    }
  }
}

// open_batch prepares every sample of a batch before its decode (here: the position first); recycled
// samples do not replace prepared ones.
TEST(SampleLoader, OpenBatchPreparesTheSamplesBeforeTheirDecode) {
  const auto decode = [](int32_t index, int64_t epoch, Values& sample) {
    ASSERT_EQ(sample.size(), 1u) << "not prepared, or a recycled sample";
    const Values values = expected_values(index, epoch);
    sample.insert(sample.end(), values.begin(), values.end());
  };
  const auto open_batch = [](SampleBatch<Values>& batch) {
    for (size_t i = 0; i < batch.samples.size(); ++i) batch.samples[i] = Values{1000 + i};
  };
  SampleLoader<Values> loader(options(3), decode, open_batch);
  const Plan plan = {{3, 4, 12}, {}, {5, 6}, {13, 20, 27, 34}};
  for (int64_t epoch = 0; epoch < 2; ++epoch) {
    loader.start(plan, epoch);
    for (const std::vector<int32_t>& indices : plan) {
      SampleBatch<Values> batch = loader.next();
      ASSERT_EQ(batch.indices, indices);
      for (size_t i = 0; i < indices.size(); ++i) {
        Values expected{1000 + i};
        const Values values = expected_values(indices[i], epoch);
        expected.insert(expected.end(), values.begin(), values.end());
        EXPECT_EQ(batch.samples[i], expected);
      }
      loader.recycle(std::move(batch));
    }
  }
}

// Each decode checks that its batch lies within prefetch_batches of the batches the consumer has
// taken; without any next(), exactly the first prefetch_batches batches are decoded.
TEST(SampleLoader, DecodesAtMostPrefetchBatchesAhead) {
  constexpr int kPrefetch = 2;
  constexpr int kBatchSize = 3;
  std::atomic<int> taken{0};
  std::atomic<int> decoded{0};
  std::atomic<int> furthest_ahead{0};
  const auto decode = [&](int32_t index, int64_t epoch, Values& sample) {
    const int ahead = index / kBatchSize - taken.load();
    int seen = furthest_ahead.load();
    while (ahead > seen && !furthest_ahead.compare_exchange_weak(seen, ahead)) {
    }
    decode_values(index, epoch, sample);
    ++decoded;
  };
  SampleLoader<Values> loader(options(4, kPrefetch), decode);
  Plan plan(10);
  for (int32_t i = 0; i < 10 * kBatchSize; ++i) plan[static_cast<size_t>(i / kBatchSize)].push_back(i);
  loader.start(plan, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (decoded.load() < kPrefetch * kBatchSize && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(decoded.load(), kPrefetch * kBatchSize);
  for (size_t b = 0; b < plan.size(); ++b) {
    EXPECT_EQ(loader.next().indices, plan[b]);
    ++taken;  // the consumer holds batch b; batches up to b + kPrefetch may be decoded
  }
  // A worker may see `taken` one behind, just before the consumer's increment.
  EXPECT_LE(furthest_ahead.load(), kPrefetch);
  EXPECT_EQ(decoded.load(), 10 * kBatchSize);
}

std::string user_error_from_next(SampleLoader<Values>& loader) {
  try {
    loader.next();
  } catch (const UserError& error) {
    return error.what();
  }
  ADD_FAILURE() << "next() threw no UserError";
  return "";
}

// Indices 3 and 5 are "corrupt files"; 4 fails with a bug-like error.
void failing_decode(int32_t index, int64_t epoch, Values& sample) {
  if (index == 3 || index == 5) {
    throw BadSample("file" + std::to_string(index) + ".bin", "not decodable", "set skip to skip it");
  }
  if (index == 4) throw std::logic_error("decoder bug");
  jittery_decode(index, epoch, sample);
}

TEST(SampleLoader, WorkerErrorReachesNextAndThePlanGoesOn) {
  for (const int threads : {1, 4}) {
    SampleLoader<Values> loader(options(threads), failing_decode);
    loader.start({{0, 1}, {2, 6, 5, 3, 7}, {8}, {4, 9}, {10}}, 0);
    EXPECT_EQ(loader.next().indices, std::vector<int32_t>({0, 1}));
    // The first failing sample in plan order, whatever the timing: file5 before file3.
    EXPECT_EQ(user_error_from_next(loader), "file5.bin: not decodable; set skip to skip it");
    EXPECT_EQ(loader.next().indices, std::vector<int32_t>({8}));
    try {
      loader.next();
      ADD_FAILURE() << "no error";
    } catch (const UserError&) {
      ADD_FAILURE() << "an internal error became a UserError";
    } catch (const std::logic_error& error) {
      EXPECT_STREQ(error.what(), "decoder bug");
    }
    EXPECT_EQ(loader.next().samples.front(), expected_values(10, 0));
    EXPECT_EQ(loader.skipped_total(), 0);
  }
}

TEST(BadSample, NamesItsSourceAndReason) {
  const BadSample bad("a/b.jpg", "truncated JPEG", "set on_bad_image: skip");
  EXPECT_STREQ(bad.what(), "a/b.jpg: truncated JPEG; set on_bad_image: skip");
  EXPECT_EQ(bad.source(), "a/b.jpg");
  EXPECT_EQ(bad.reason(), "truncated JPEG");
  EXPECT_STREQ(BadSample("x", "y").what(), "x: y");
}

TEST(SampleLoader, SkipPolicySkipsAndCountsBadSamplesOnly) {
  SampleLoaderOptions skipping = options(3);
  skipping.on_bad_sample = BadSamplePolicy::kSkip;
  std::atomic<int> warnings{0};
  skipping.on_skip = [&](const BadSample& bad) {
    EXPECT_THAT(bad.source(), HasSubstr("file"));
    ++warnings;
  };
  SampleLoader<Values> loader(skipping, failing_decode);
  // Recycled samples full of values first: skipped slots must still come back empty.
  loader.start({{6, 13}, {20, 27}}, 0);
  loader.recycle(loader.next());
  loader.recycle(loader.next());
  loader.start({{6, 5, 3, 13}, {3}, {4}, {1}}, 0);

  const SampleBatch<Values> first = loader.next();
  EXPECT_EQ(first.skipped_count, 2);
  EXPECT_THAT(first.skipped, ElementsAre(0, 1, 1, 0));
  EXPECT_EQ(first.samples[0], expected_values(6, 0));
  EXPECT_TRUE(first.samples[1].empty());
  EXPECT_TRUE(first.samples[2].empty());
  EXPECT_EQ(first.samples[3], expected_values(13, 0));
  EXPECT_EQ(loader.next().skipped_count, 1);
  EXPECT_THROW(loader.next(), std::logic_error);  // not a BadSample: fails whatever the policy
  EXPECT_EQ(loader.next().skipped_count, 0);
  EXPECT_EQ(loader.skipped_total(), 3);
  EXPECT_EQ(warnings.load(), 3);
  // In delivery order, by position within a batch.
  EXPECT_THAT(loader.skipped_sources(), ElementsAre("file5.bin", "file3.bin", "file3.bin"));
}

TEST(SampleLoader, StartAgainMidPlanReplacesThePlan) {
  const Plan plan = make_plan({5, 7, 3});
  SampleLoader<Values> fresh(options(2), decode_values);
  const std::vector<SampleBatch<Values>> expected = run_plan(fresh, plan, 1);

  SampleLoader<Values> loader(options(3), jittery_decode);
  loader.start(make_plan({1, 1, 1, 1, 1, 1, 1, 1, 1, 1}), 0);
  loader.next();
  loader.next();
  std::vector<SampleBatch<Values>> got = run_plan(loader, plan, 1);
  for (size_t b = 0; b < plan.size(); ++b) EXPECT_EQ(got[b].samples, expected[b].samples);
  // And again, before anything of the plan was taken.
  loader.start(make_plan({12}), 0);
  got = run_plan(loader, plan, 1);
  for (size_t b = 0; b < plan.size(); ++b) EXPECT_EQ(got[b].samples, expected[b].samples);
}

TEST(SampleLoader, StopsCleanlyWhenTheConsumerStopsEarly) {
  std::atomic<int> decoding{0};
  const auto slow_decode = [&](int32_t index, int64_t epoch, Values& sample) {
    ++decoding;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    decode_values(index, epoch, sample);
    --decoding;
  };
  for (int taken = 0; taken < 3; ++taken) {
    auto loader = std::make_unique<SampleLoader<Values>>(options(3, 3), slow_decode);
    loader->start(make_plan(std::vector<int>(50, 20)), 0);
    for (int b = 0; b < taken; ++b) EXPECT_EQ(loader->next().size(), 20);
    loader.reset();  // must return, with workers mid-batch
    EXPECT_EQ(decoding.load(), 0) << "a worker still decodes after the loader is gone";
  }
  SampleLoader<Values> never_started(options(2), decode_values);
}

TEST(SampleLoader, DecodeErrorOfAMoveOnlySampleType) {
  // Any movable, default-constructible sample type: here one holding a unique_ptr.
  using Owned = std::unique_ptr<int>;
  SampleLoader<Owned> loader(options(2), [](int32_t index, int64_t, Owned& sample) {
    if (index == 2) throw UserError("record 2: bad");
    sample = std::make_unique<int>(index * 10);
  });
  loader.start({{0, 1}, {2, 3}, {4}}, 0);
  SampleBatch<Owned> first = loader.next();
  EXPECT_EQ(*first.samples[1], 10);
  EXPECT_THROW(loader.next(), UserError);
  EXPECT_EQ(*loader.next().samples[0], 40);
}

}  // namespace
}  // namespace mlh
