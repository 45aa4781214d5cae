// The runs a check of mlh_e2e_run_checks reads, from its command line: the checks are not discovered
// but registered by tests/e2e/CMakeLists.txt's functions (mlh_add_mini_run ... CHECK_LOG, and
// mlh_add_seed_check, mlh_add_memory_check, mlh_add_rank_weights_check), which the workloads' own
// e2e.cmake files call, each naming its runs (folders under test_paths::e2e_runs_dir()) and the ctest
// fixtures that make them.
//
//   mlh_e2e_run_checks --gtest_filter=SeedDecides.* --run <workload>_np1_first_epoch_seed1 --run ... [--ranks N] [--epochs N] [--batchnorm-bound X]
#pragma once

#include <string>
#include <vector>

namespace mlh {

struct RunCheckArguments {
  std::vector<std::string> runs;  // --run, in the order given
  int ranks = 0;                  // --ranks: the ranks of a many-rank run
  int epochs = 0;                 // --epochs: the epochs a run trained
  double batchnorm_bound = 0;     // --batchnorm-bound: the relative distance BatchNorm statistics may have
};

// What the command line said (parsed once in main, before the tests run).
const RunCheckArguments& run_check_arguments();

}  // namespace mlh
