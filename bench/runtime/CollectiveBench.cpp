//===- CollectiveBench.cpp - precrt collectives against raw MPI -----------===//
//
// For each collective and message size, times the raw MPI call, the same
// call through precrt's MPI backend (same processes, same bytes), and the
// same call through precrt's local backend (as many threads in one process).
// Reports microseconds per call (the slowest rank's mean) and the ratios
// precrt / raw MPI. Data are f32, reductions sum.
//
//   mpirun -np 4 precrt_bench_collectives [iterations]
//
//===----------------------------------------------------------------------===//

#include "precrt/precrt.h"

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace {

enum class Op { AllGather, ReduceScatter, AllReduce, AllToAll, Broadcast, SendRecv, Barrier };

const char *opName(Op op) {
  switch (op) {
  case Op::AllGather:
    return "all_gather";
  case Op::ReduceScatter:
    return "reduce_scatter";
  case Op::AllReduce:
    return "all_reduce";
  case Op::AllToAll:
    return "all_to_all";
  case Op::Broadcast:
    return "broadcast";
  case Op::SendRecv:
    return "sendrecv (ring)";
  case Op::Barrier:
    return "barrier";
  }
  return "?";
}

/// Buffers of one rank for `op` with `bytes` per rank (the send buffer of
/// all_to_all, the per-rank block otherwise).
struct Buffers {
  Buffers(Op op, size_t bytes, int ranks) {
    count = bytes / sizeof(float);
    if (op == Op::AllToAll)
      count /= ranks;
    bool gathered = op == Op::AllGather || op == Op::AllToAll;
    send.assign(op == Op::ReduceScatter || op == Op::AllToAll ? count * ranks : count, 1.0f);
    recv.assign(gathered || op == Op::ReduceScatter ? count * ranks : count, 0.0f);
  }
  size_t count;
  std::vector<float> send, recv;
};

int check(precrt_status_t status) {
  if (status != PRECRT_SUCCESS) {
    std::fprintf(stderr, "precrt failed: %s\n", precrtGetLastErrorMessage());
    std::abort();
  }
  return 0;
}

void runPrecrt(Op op, precrt_comm_t comm, Buffers &b, int rank, int ranks) {
  switch (op) {
  case Op::AllGather:
    check(precrtAllGather(comm, b.send.data(), b.recv.data(), b.count, PRECRT_DTYPE_F32));
    break;
  case Op::ReduceScatter:
    check(precrtReduceScatter(comm, b.send.data(), b.recv.data(), b.count, PRECRT_DTYPE_F32,
                              PRECRT_REDUCTION_SUM));
    break;
  case Op::AllReduce:
    check(precrtAllReduce(comm, b.send.data(), b.recv.data(), b.count, PRECRT_DTYPE_F32,
                          PRECRT_REDUCTION_SUM));
    break;
  case Op::AllToAll:
    check(precrtAllToAll(comm, b.send.data(), b.recv.data(), b.count, PRECRT_DTYPE_F32));
    break;
  case Op::Broadcast:
    check(precrtBroadcast(comm, b.send.data(), b.recv.data(), b.count, PRECRT_DTYPE_F32, 0));
    break;
  case Op::SendRecv:
    check(precrtSendRecv(comm, b.send.data(), b.count, (rank + 1) % ranks, b.recv.data(),
                         b.count, (rank + ranks - 1) % ranks, PRECRT_DTYPE_F32));
    break;
  case Op::Barrier:
    check(precrtBarrier(comm));
    break;
  }
}

void runMpi(Op op, Buffers &b, int rank, int ranks) {
  int count = static_cast<int>(b.count);
  switch (op) {
  case Op::AllGather:
    MPI_Allgather(b.send.data(), count, MPI_FLOAT, b.recv.data(), count, MPI_FLOAT,
                  MPI_COMM_WORLD);
    break;
  case Op::ReduceScatter:
    MPI_Reduce_scatter_block(b.send.data(), b.recv.data(), count, MPI_FLOAT, MPI_SUM,
                             MPI_COMM_WORLD);
    break;
  case Op::AllReduce:
    MPI_Allreduce(b.send.data(), b.recv.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    break;
  case Op::AllToAll:
    MPI_Alltoall(b.send.data(), count, MPI_FLOAT, b.recv.data(), count, MPI_FLOAT,
                 MPI_COMM_WORLD);
    break;
  case Op::Broadcast:
    MPI_Bcast(b.send.data(), count, MPI_FLOAT, 0, MPI_COMM_WORLD);
    break;
  case Op::SendRecv:
    MPI_Sendrecv(b.send.data(), count, MPI_FLOAT, (rank + 1) % ranks, 0, b.recv.data(), count,
                 MPI_FLOAT, (rank + ranks - 1) % ranks, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    break;
  case Op::Barrier:
    MPI_Barrier(MPI_COMM_WORLD);
    break;
  }
}

/// Mean seconds per call of `body` on this process, maximum over ranks.
double timeAcrossRanks(int iterations, const std::function<void()> &body) {
  for (int i = 0; i < 3; ++i)
    body();
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (int i = 0; i < iterations; ++i)
    body();
  double mine = (MPI_Wtime() - start) / iterations, slowest = 0;
  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

struct LocalRun {
  Op op;
  size_t bytes;
  int iterations;
  double seconds;
};

/// The same collective on `ranks` threads of this process; rank 0 times it
/// between barriers.
double timeLocal(Op op, size_t bytes, int ranks, int iterations) {
  LocalRun run{op, bytes, iterations, 0};
  check(precrtLocalRun(
      ranks,
      [](precrt_comm_t world, void *data) {
        auto &run = *static_cast<LocalRun *>(data);
        int32_t rank = 0, ranks = 0;
        precrtCommRank(world, &rank);
        precrtCommSize(world, &ranks);
        Buffers buffers(run.op, run.bytes, ranks);
        for (int i = 0; i < 3; ++i)
          runPrecrt(run.op, world, buffers, rank, ranks);
        check(precrtBarrier(world));
        auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < run.iterations; ++i)
          runPrecrt(run.op, world, buffers, rank, ranks);
        check(precrtBarrier(world));
        if (rank == 0)
          run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                            .count() /
                        run.iterations;
        return 0;
      },
      &run));
  return run.seconds;
}

} // namespace

int main(int argc, char **argv) {
  int baseIterations = argc > 1 ? std::atoi(argv[1]) : 200;
  precrt_init_options options{};
  options.backend = PRECRT_BACKEND_MPI;
  precrt_comm_t world = nullptr;
  check(precrtInit(&options, &world));
  int rank = 0, ranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (rank == 0)
    std::printf("%d ranks, f32, sum; microseconds per call (slowest rank)\n"
                "%-16s %10s %10s %10s %7s %10s %7s\n",
                ranks, "collective", "bytes/rank", "raw MPI", "precrt-mpi", "ratio",
                "precrt-loc", "ratio");
  const Op ops[] = {Op::AllGather, Op::ReduceScatter, Op::AllReduce, Op::AllToAll,
                    Op::Broadcast,  Op::SendRecv,      Op::Barrier};
  for (Op op : ops) {
    for (size_t bytes : {size_t(4) << 10, size_t(256) << 10, size_t(8) << 20}) {
      if (op == Op::Barrier && bytes != (size_t(4) << 10))
        continue;
      int iterations = bytes >= (size_t(8) << 20) ? std::max(baseIterations / 20, 5)
                                                  : baseIterations;
      Buffers buffers(op, bytes, ranks);
      double raw = timeAcrossRanks(iterations, [&] { runMpi(op, buffers, rank, ranks); });
      double viaPrecrt =
          timeAcrossRanks(iterations, [&] { runPrecrt(op, world, buffers, rank, ranks); });
      double local = 0;
      if (rank == 0)
        local = timeLocal(op, bytes, ranks, iterations);
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == 0)
        std::printf("%-16s %10zu %10.1f %10.1f %7.2f %10.1f %7.2f\n", opName(op),
                    op == Op::Barrier ? size_t(0) : bytes, raw * 1e6, viaPrecrt * 1e6,
                    viaPrecrt / raw, local * 1e6, local / raw);
    }
  }
  check(precrtFinalize());
  return 0;
}
