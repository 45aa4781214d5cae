// The paths of tests/test_paths.h, from the definitions tests/CMakeLists.txt gives this file alone.
#include "tests/test_paths.h"

namespace mlh::test_paths {

std::string source_dir() { return MLH_SOURCE_DIR; }
std::string e2e_runs_dir() { return MLH_E2E_DIR; }
std::string mlharness_binary() { return MLHARNESS_BINARY; }
std::string mpirun() { return MLH_MPIRUN; }

}  // namespace mlh::test_paths
