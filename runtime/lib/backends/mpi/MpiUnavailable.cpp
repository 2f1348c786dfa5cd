//===- MpiUnavailable.cpp - The MPI backend of a build without MPI --------===//
//
// Compiled instead of MpiBackend.cpp when CMake found no MPI, and into
// libprecrt_nompi always: selecting the mpi backend (or NCCL over MPI) then
// fails with a clear status.
//
//===----------------------------------------------------------------------===//

#include "core/Backends.h"
#include "core/Communicator.h"
#include "core/Error.h"

namespace precrt {

precrt_status_t mpiBackendAvailable() {
  return fail(PRECRT_ERROR_UNAVAILABLE,
              "this precrt has no MPI backend (no MPI found at configure "
              "time, or libprecrt_nompi); use a precrt built with MPI for "
              "the mpi backend");
}

precrt_status_t createMpiWorld(int64_t, std::unique_ptr<Communicator> *) {
  return mpiBackendAvailable();
}

precrt_status_t finalizeMpi() { return PRECRT_SUCCESS; }

} // namespace precrt
