//===- Error.h - Status values with thread-local messages -------*- C++ -*-===//

#ifndef PRECRT_LIB_CORE_ERROR_H
#define PRECRT_LIB_CORE_ERROR_H

#include "precrt/precrt.h"

namespace precrt {

/// Records `message` (printf format) as the calling thread's last error and
/// returns `status`, so that failures read `return fail(code, "...", ...)`.
precrt_status_t fail(precrt_status_t status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/// The calling thread's last error message.
const char *lastErrorMessage();

/// Records the failure of an mgpu* entry point (the thread's last error) as
/// the calling rank's error for precrtCompiledGetError(), where a driver runs
/// the rank, so that it stops instead of reading results of kernels that
/// never ran. Without a driver nothing changes: the entry points report on
/// stderr, as upstream's do.
void recordGpuWrapperFailure(precrt_status_t status, const char *entryPoint);

} // namespace precrt

#endif // PRECRT_LIB_CORE_ERROR_H
