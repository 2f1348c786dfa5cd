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

} // namespace precrt

#endif // PRECRT_LIB_CORE_ERROR_H
