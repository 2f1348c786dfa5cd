//===- Error.cpp - Status values with thread-local messages ---------------===//

#include "core/Error.h"

#include <cstdarg>
#include <cstdio>
#include <string>

namespace precrt {

namespace {
thread_local std::string lastError;
} // namespace

precrt_status_t fail(precrt_status_t status, const char *format, ...) {
  char buffer[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  lastError = buffer;
  return status;
}

const char *lastErrorMessage() { return lastError.c_str(); }

} // namespace precrt
