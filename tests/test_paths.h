// Where the tests find the project: its source tree, the folder of the end-to-end runs, the mlharness
// binary and the mpirun command. The paths are compiled into tests/test_paths.cpp alone, so that no
// other translation unit carries the path of its clone: ccache then serves a clone in another folder
// (CI's) from what an earlier clone compiled, instead of compiling every test again.
#pragma once

#include <string>

namespace mlh::test_paths {

std::string source_dir();        // the source tree, e.g. source_dir() + "/tests/data"
std::string e2e_runs_dir();      // <build>/tests/e2e/runs: one folder per mini run (tests/e2e/CMakeLists.txt)
std::string mlharness_binary();  // the built mlharness
std::string mpirun();            // mpirun with --allow-run-as-root --oversubscribe, ready for " -np N"

}  // namespace mlh::test_paths
