//===- LocalBackend.h - Ranks as threads of one process ---------*- C++ -*-===//

#ifndef PRECRT_LIB_BACKENDS_LOCAL_LOCALBACKEND_H
#define PRECRT_LIB_BACKENDS_LOCAL_LOCALBACKEND_H

#include "precrt/precrt.h"

#include <cstdint>
#include <functional>

namespace precrt {

class Communicator;

/// Runs `body` on `numRanks` threads, each with its world communicator of
/// the local backend; the thread's world is current (precrtGetWorld) while
/// `body` runs. A rank whose body returns makes the others' pending and
/// later collectives with it fail at once (PRECRT_ERROR_PEER_FAILED).
/// Returns the first non-zero body result in rank order, as a status.
precrt_status_t runLocalRanks(int numRanks, int64_t timeoutMs,
                              const std::function<int(Communicator *)> &body);

} // namespace precrt

#endif // PRECRT_LIB_BACKENDS_LOCAL_LOCALBACKEND_H
