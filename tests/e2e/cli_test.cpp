// The mlharness command line: every bad input gives one line on stderr naming what is wrong, exit
// status 2, and no result files.
#include <sched.h>

#include <algorithm>
#include <string>

#include "tests/e2e/cli_fixture.h"

namespace mlh {
namespace {

using ::testing::HasSubstr;

TEST_F(Cli, HelpDescribesEveryCommandAndOption) {
  const Outcome outcome = run("--help");
  EXPECT_EQ(outcome.exit_code, 0);
  for (const char* word : {"run", "bench", "list", "--workload", "--config", "--seed", "--set", "--out",
                           "--platform", "--batch-sizes", "--precision", "--inference", "mpirun"})
    EXPECT_THAT(outcome.out, HasSubstr(word));
}

TEST_F(Cli, HelpWithAWorkloadListsItsConfigKeys) {
  const Outcome outcome = run("--workload ncf --config mini --help");
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_THAT(outcome.out, HasSubstr("global_batch_size"));
  EXPECT_THAT(outcome.out, HasSubstr("target_hit_rate"));
  EXPECT_THAT(outcome.out, HasSubstr("max_epochs"));
}

TEST_F(Cli, ListShowsWorkloadsAndConfigs) {
  const Outcome outcome = run("list");
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_THAT(outcome.out, HasSubstr("ncf"));
  EXPECT_THAT(outcome.out, HasSubstr("ncf-mini"));
}

TEST_F(Cli, UnknownWorkload) { expect_user_error("--workload resnet9000", "unknown workload 'resnet9000'"); }

TEST_F(Cli, UnknownConfigName) {
  expect_user_error("--workload ncf --config tiny", "no config 'tiny' for workload 'ncf'");
}

TEST_F(Cli, UnknownConfigKey) {
  expect_user_error("--workload ncf --config mini --set global_bach_size=4",
                    "unknown key 'global_bach_size' (did you mean 'global_batch_size'?)");
}

TEST_F(Cli, MistypedConfigValue) {
  expect_user_error("--workload ncf --config mini --set global_batch_size=many",
                    "'global_batch_size' expects an integer, got 'many'");
}

TEST_F(Cli, MalformedYamlFile) {
  write("broken.yaml", "max_epochs: 3\nmf_dim: [8,\n");
  expect_user_error("--workload ncf --config ./broken.yaml", "broken.yaml:");
}

TEST_F(Cli, SetWithoutEquals) {
  expect_user_error("--workload ncf --config mini --set max_epochs", "expected key=value");
}

TEST_F(Cli, SeedThatIsNotANumber) {
  expect_user_error("--workload ncf --config mini --seed seven", "--seed 'seven' is not a non-negative integer");
}

TEST_F(Cli, UnknownCommandAndOption) {
  expect_user_error("train --workload ncf", "unknown command 'train'");
  expect_user_error("--workload ncf --epochs 3", "unrecognised option '--epochs'");
}

TEST_F(Cli, MissingDataDirectory) {
  expect_user_error("--workload ncf --set data_path=no/such/ml-20m", "no/such/ml-20m");
}

TEST_F(Cli, RatingsFileWithAWrongHeader) {
  write("ratings.csv", "user,item,rating,time\n1,2,3.0,100\n");
  expect_user_error("--workload ncf --config mini --set data_source=movielens --set data_path=ratings.csv",
                    "ratings.csv:1: expected header 'userId,movieId,rating,timestamp'");
}

TEST_F(Cli, RatingsRowThatIsNotNumeric) {
  write("ratings.csv", "userId,movieId,rating,timestamp\n1,2,3.0,100\n1,x,4.0,101\n");
  expect_user_error("--workload ncf --config mini --set data_source=movielens --set data_path=ratings.csv",
                    "ratings.csv:3:");
}

TEST_F(Cli, RatingsRowThatIsShort) {
  write("ratings.csv", "userId,movieId,rating,timestamp\n1,2,3.0,100\n1,5,4.0\n");
  expect_user_error("--workload ncf --config mini --set data_source=movielens --set data_path=ratings.csv",
                    "ratings.csv:3:");
}

TEST_F(Cli, EmptyDataset) {
  write("ratings.csv", "userId,movieId,rating,timestamp\n");
  expect_user_error("--workload ncf --config mini --set data_source=movielens --set data_path=ratings.csv",
                    "ratings.csv");
}

TEST_F(Cli, DatasetWhereNoUserHasEnoughRatings) {
  write("ratings.csv", "userId,movieId,rating,timestamp\n1,2,3.0,100\n1,3,4.0,101\n");
  expect_user_error("--workload ncf --config mini --set data_source=movielens --set data_path=ratings.csv",
                    "no user has at least 20 ratings");
}

TEST_F(Cli, BadSettingValues) {
  expect_user_error("--workload ncf --config mini --set gradient_shards=3", "power of two");
  expect_user_error("--workload ncf --config mini --set max_epochs=0", "'max_epochs' must be at least 1");
  expect_user_error("--workload ncf --config mini --set data_source=csv", "expected movielens or synthetic");
}

TEST_F(Cli, AnErrorUnderMpirunEndsTheWholeJobWithItsMessage) {
  const Outcome outcome =
      run("--workload ncf --config mini --set no_such_key=1", MLH_MPIRUN " -np 2");
  EXPECT_EQ(outcome.exit_code, 2) << outcome.err;  // not 124: nothing hung
  EXPECT_THAT(outcome.err, HasSubstr("unknown key 'no_such_key'"));
}

// `mpirun -np 1` binds its rank to one core unless told otherwise; mlharness gives each rank its share
// of the cores mpirun had, and keeps a binding the user asked for.
TEST_F(Cli, RanksUnderMpirunShareTheCores) {
  cpu_set_t mask;
  ASSERT_EQ(sched_getaffinity(0, sizeof mask, &mask), 0);
  const int cores = CPU_COUNT(&mask);
  const std::string bench = "bench --workload ncf --config mini --batch-sizes 256 --warmup 1 --steps 1 --repeats 1";
  const auto threads_text = [](int ranks, int threads) {
    return std::to_string(ranks) + (ranks > 1 ? " ranks x " : " rank x ") + std::to_string(threads) +
           (threads > 1 ? " threads" : " thread");
  };
  for (int ranks : {1, 2}) {
    const Outcome outcome = run(bench, MLH_MPIRUN " -np " + std::to_string(ranks));
    ASSERT_EQ(outcome.exit_code, 0) << outcome.err;
    EXPECT_THAT(outcome.out, HasSubstr(threads_text(ranks, std::max(1, cores / ranks))));
  }
  const Outcome bound = run(bench, MLH_MPIRUN " --bind-to core -np 1");
  ASSERT_EQ(bound.exit_code, 0) << bound.err;
  EXPECT_THAT(bound.out, HasSubstr(threads_text(1, 1)));
}

}  // namespace
}  // namespace mlh
