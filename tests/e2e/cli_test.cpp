// The mlharness command line: every bad input gives one line on stderr naming what is wrong, exit
// status 2, and no result files.
#include <sched.h>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/e2e/cli_fixture.h"
#include "tests/test_paths.h"

namespace mlh {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

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
      run("--workload ncf --config mini --set no_such_key=1", test_paths::mpirun() + " -np 2");
  EXPECT_EQ(outcome.exit_code, 2) << outcome.err;  // not 124: nothing hung
  // Every rank fails alike; rank 0 speaks for them, and Open MPI's own lines are its notice only.
  EXPECT_THAT(outcome.err, HasSubstr("mlharness: error (rank 0): --set no_such_key=1: unknown key 'no_such_key'"));
  EXPECT_THAT(outcome.err, Not(HasSubstr("(rank 1)")));
  EXPECT_THAT(outcome.err, Not(HasSubstr("ORTE_ERROR_LOG")));
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
    const Outcome outcome = run(bench, test_paths::mpirun() + " -np " + std::to_string(ranks));
    ASSERT_EQ(outcome.exit_code, 0) << outcome.err;
    EXPECT_THAT(outcome.out, HasSubstr(threads_text(ranks, std::max(1, cores / ranks))));
  }
  const Outcome bound = run(bench, test_paths::mpirun() + " --bind-to core -np 1");
  ASSERT_EQ(bound.exit_code, 0) << bound.err;
  EXPECT_THAT(bound.out, HasSubstr(threads_text(1, 1)));
}

// A hostfile launch on loopback entries: the log and the run record say who launched the ranks, on
// how many nodes, and where each rank ran. Two real nodes (network namespaces): two_node_check.sh.
TEST_F(Cli, AHostfileLaunchRecordsTheNodesAndEachRanksPlace) {
  {
    std::ofstream hostfile(dir_ / "hostfile");
    hostfile << "# two slots on this machine, by its loopback name\nlocalhost slots=2\n";
  }
  const Outcome outcome =
      run("--workload ncf --config mini --seed 1 --set max_epochs=1 --quiet --out results", test_paths::mpirun() + " --hostfile hostfile -np 2", 300);
  ASSERT_TRUE(outcome.exit_code == 0 || outcome.exit_code == 1) << outcome.err;
  fs::path record_path;
  for (const auto& entry : fs::recursive_directory_iterator(dir_ / "results"))
    if (entry.path().extension() == ".json") record_path = entry.path();
  ASSERT_FALSE(record_path.empty());
  const nlohmann::json record = nlohmann::json::parse(read_file(record_path));
  EXPECT_EQ(record["launcher"], "mpirun (Open MPI)");
  EXPECT_EQ(record["world_size"], 2);
  EXPECT_EQ(record["node_count"], 1);
  EXPECT_EQ(record["ranks_per_node"], 2);
  EXPECT_EQ(record["gpus_per_node"], 0);
  ASSERT_EQ(record["placement"].size(), 2u);
  EXPECT_EQ(record["placement"][0]["host"], record["placement"][1]["host"]);
  EXPECT_EQ(record["placement"][1]["local_rank"], 1);
  EXPECT_EQ(record["placement"][1]["device"], "cpu");

  std::string launch_line;
  std::ifstream log(record_path.replace_extension(".txt"));
  for (std::string line; std::getline(log, line);)
    if (line.find("\"mlharness_launch\"") != std::string::npos) launch_line = line;
  ASSERT_FALSE(launch_line.empty());
  const nlohmann::json launch = nlohmann::json::parse(launch_line.substr(launch_line.find('{')))["value"];
  EXPECT_EQ(launch["launcher"], "mpirun (Open MPI)");
  EXPECT_EQ(launch["nodes"], 1);
  EXPECT_EQ(launch["ranks"], 2);
  EXPECT_EQ(launch["placement"][1]["local_rank"], 1);
}

// A workload without a prepare step says so, naming those that have one.
TEST_F(Cli, PrepareOfAWorkloadWithoutOneNamesThoseWithOne) {
  expect_user_error("prepare --workload ncf --src a.en --tgt a.de --out x",
                    "has no prepare step (workloads with one: gnmt, transformer)");
}

}  // namespace
}  // namespace mlh
