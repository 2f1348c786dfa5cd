//===- MpiTestMain.h - main() of gtest binaries that run under mpirun -----===//
//
// The gtest binaries that run under mpirun share their main: results
// printed by rank 0 only, and the run failed when any rank failed.
//
//===----------------------------------------------------------------------===//

#ifndef PRECRT_TEST_MPITESTMAIN_H
#define PRECRT_TEST_MPITESTMAIN_H

#include <gtest/gtest.h>
#include <mpi.h>

#include "TestUtil.h"

#include <cstdio>

namespace precrt_test {

/// Runs `body(world, rank)` as the rank function of precrtRun on the MPI
/// backend, with a timeout longer than any test may take.
inline precrt_status_t
runMpi(const std::function<void(precrt_comm_t, int)> &body) {
  precrt_init_options options{};
  options.backend = PRECRT_BACKEND_MPI;
  options.timeout_ms = 60000;
  return runWithOptions(options, body);
}

/// Runs every test on this rank of MPI_COMM_WORLD, rank 0 printing the
/// results; 1 when a test failed on any rank.
inline int runTestsOnEveryRank(int worldRank) {
  if (worldRank != 0) {
    auto &listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int result = RUN_ALL_TESTS();
  int anyFailed = 0;
  MPI_Allreduce(&result, &anyFailed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (result != 0)
    std::fprintf(stderr, "rank %d: tests failed\n", worldRank);
  return anyFailed;
}

/// main() of tests that initialize MPI themselves; sets `worldRank` and
/// `worldSize` before the tests start.
inline int runMpiTests(int argc, char **argv, int &worldRank, int &worldSize) {
  ::testing::InitGoogleTest(&argc, argv);
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided) !=
      MPI_SUCCESS) {
    std::fprintf(stderr, "MPI_Init_thread failed\n");
    return 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &worldRank);
  MPI_Comm_size(MPI_COMM_WORLD, &worldSize);
  int anyFailed = runTestsOnEveryRank(worldRank);
  if (MPI_Finalize() != MPI_SUCCESS)
    anyFailed = 1;
  return anyFailed;
}

} // namespace precrt_test

#endif // PRECRT_TEST_MPITESTMAIN_H
