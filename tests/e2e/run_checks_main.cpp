// main of mlh_e2e_run_checks: GoogleTest's flags first, then the runs to check (run_check_arguments.h).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/e2e/run_check_arguments.h"

namespace mlh {
namespace {
RunCheckArguments parsed;
}  // namespace

const RunCheckArguments& run_check_arguments() { return parsed; }

}  // namespace mlh

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc || (flag != "--run" && flag != "--ranks" && flag != "--epochs" && flag != "--batchnorm-bound")) {
      std::fprintf(stderr, "mlh_e2e_run_checks: '%s': give --run NAME (repeatable), --ranks N, --epochs N, --batchnorm-bound X\n",
                   flag.c_str());
      return 2;
    }
    const std::string value = argv[++i];
    if (flag == "--run") mlh::parsed.runs.push_back(value);
    if (flag == "--ranks") mlh::parsed.ranks = std::atoi(value.c_str());
    if (flag == "--epochs") mlh::parsed.epochs = std::atoi(value.c_str());
    if (flag == "--batchnorm-bound") mlh::parsed.batchnorm_bound = std::atof(value.c_str());
  }
  return RUN_ALL_TESTS();
}
