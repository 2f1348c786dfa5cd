//===- MpiLostRank.cpp - A rank lost in the middle of a collective --------===//
//
// Run as `mpirun -np 8 precrt_mpi_lost_rank exit|kill`. Every rank runs
// all_reduces of 256 KiB until one fails; rank 5 (size - 3) leaves while
// the others are in one of them:
//   exit: it finalizes its world after its 20th call, which tells its
//         peers that it left;
//   kill: a thread of its own sends it SIGKILL after 300 ms, in the middle
//         of a call, so no notice is sent; the survivors find it silent
//         (under `mpirun --enable-recovery`, which keeps Open MPI's job
//         alive when a process dies; by default mpirun ends the job).
// Each survivor must return an error and print
// `rank R: reported after N collectives: <message>`, then finalize: exit 0
// (exit) or, after precrtFinalize reported that MPI stays unfinalized,
// 3 (kill); mpi-lost-rank.sh counts the reports and statuses, under
// `timeout`.
//
//===----------------------------------------------------------------------===//

#include "precrt/precrt.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

int main(int argc, char **argv) {
  const bool kill = argc == 2 && std::string(argv[1]) == "kill";
  if (argc != 2 || (!kill && std::string(argv[1]) != "exit")) {
    std::fprintf(stderr, "usage: %s exit|kill\n", argv[0]);
    return 2;
  }
  precrt_init_options options{};
  options.backend = PRECRT_BACKEND_MPI;
  options.timeout_ms = 2000;
  precrt_comm_t world = nullptr;
  if (precrtInit(&options, &world) != PRECRT_SUCCESS) {
    std::fprintf(stderr, "precrtInit: %s\n", precrtGetLastErrorMessage());
    return 1;
  }
  int32_t rank = -1, size = 0;
  precrtCommRank(world, &rank);
  precrtCommSize(world, &size);
  const int32_t victim = size - 3;
  if (kill && rank == victim)
    std::thread([] {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      std::raise(SIGKILL);
    }).detach();
  std::vector<float> send(1 << 16, 1.0f), recv(send.size());
  // Far more calls than fit in the victim's lifetime.
  const int maxCalls = 1000000;
  int calls = 0;
  precrt_status_t status = PRECRT_SUCCESS;
  for (; calls < maxCalls && status == PRECRT_SUCCESS; ++calls) {
    if (!kill && rank == victim && calls == 20)
      return precrtFinalize() == PRECRT_SUCCESS ? 0 : 1;
    status = precrtAllReduce(world, send.data(), recv.data(), send.size(),
                             PRECRT_DTYPE_F32, PRECRT_REDUCTION_SUM);
  }
  if (status == PRECRT_SUCCESS) {
    std::printf("rank %d: no failure in %d collectives\n", rank, calls);
    return 1;
  }
  std::printf("rank %d: reported after %d collectives: %s\n", rank, calls,
              precrtGetLastErrorMessage());
  std::fflush(stdout);
  // After a kill, finalizing must say that MPI stays unfinalized (its
  // MPI_Finalize would wait for the dead process).
  const bool finalized = precrtFinalize() == PRECRT_SUCCESS;
  if (!finalized)
    std::printf("rank %d: precrtFinalize: %s\n", rank,
                precrtGetLastErrorMessage());
  // A job that lost a process must not look like a success.
  if (kill)
    return finalized ? 1 : 3;
  return finalized ? 0 : 1;
}
