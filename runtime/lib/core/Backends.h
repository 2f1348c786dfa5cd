//===- Backends.h - Entry points of the process-per-rank backends -*- C++ -*-===//
//
// The MPI backend exists only when MPI was found at configure time; without
// it these return PRECRT_ERROR_UNAVAILABLE. The NCCL backend is always built
// and loads NCCL and the CUDA driver at run time.
//
//===----------------------------------------------------------------------===//

#ifndef PRECRT_LIB_CORE_BACKENDS_H
#define PRECRT_LIB_CORE_BACKENDS_H

#include "precrt/precrt.h"

#include <cstdint>
#include <functional>
#include <memory>

namespace precrt {

class Communicator;

/// Joins MPI_COMM_WORLD (initializing MPI if needed) as a communicator.
precrt_status_t createMpiWorld(int64_t timeoutMs,
                               std::unique_ptr<Communicator> *world);
/// Whether this build has the MPI backend (with a message if not).
precrt_status_t mpiBackendAvailable();
/// Whether the CUDA driver and NCCL load and a GPU answers.
precrt_status_t ncclBackendAvailable();
/// Finalizes MPI if createMpiWorld initialized it.
precrt_status_t finalizeMpi();

/// One GPU per MPI process: NCCL's unique id is broadcast over MPI, and MPI
/// carries the agreement checks.
precrt_status_t createNcclWorldOverMpi(int64_t timeoutMs,
                                       std::unique_ptr<Communicator> *world);
/// `numRanks` threads of this process, rank i on GPU i; agreement checks go
/// through the local backend.
precrt_status_t runNcclRanks(int numRanks, int64_t timeoutMs,
                             const std::function<int(Communicator *)> &body);

} // namespace precrt

#endif // PRECRT_LIB_CORE_BACKENDS_H
