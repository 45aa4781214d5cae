// main() of the test binaries that run under mpirun (ctest's mpi.* tests): MPI is started before
// GoogleTest and finalised after it (harness/world.h's MpiSession), so every TEST can use the world.
#include <gtest/gtest.h>

#include "harness/world.h"

int main(int argc, char** argv) {
  mlh::MpiSession mpi(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
