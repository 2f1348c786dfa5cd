//===- DynamicLibrary.h - A library opened at run time ----------*- C++ -*-===//
//
// How precrt reaches the CUDA driver and NCCL without linking them: open the
// library (a path from an environment variable, else its soname), resolve a
// table of entry points, and keep the first failure as a message that says
// what is unavailable and why.
//
//===----------------------------------------------------------------------===//

#ifndef PRECRT_LIB_CORE_DYNAMICLIBRARY_H
#define PRECRT_LIB_CORE_DYNAMICLIBRARY_H

#include <cstdlib>
#include <dlfcn.h>
#include <string>

namespace precrt {

class DynamicLibrary {
public:
  /// Opens `$pathVariable`, or `defaultPath` when the variable is unset or
  /// empty. `what` names the library in messages ("NCCL").
  DynamicLibrary(const char *what, const char *pathVariable,
                 const char *defaultPath)
      : what_(what) {
    const char *path = std::getenv(pathVariable);
    path_ = path && *path ? path : defaultPath;
    // The library stays loaded for the life of the process: the resolved
    // entry points are kept in static tables.
    handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) {
      const char *reason = dlerror();
      failure_ = what_ + " unavailable: cannot load " + path_ + " (" +
                 (reason ? reason : "unknown reason") + ")";
    }
  }

  bool isOpen() const { return handle_ != nullptr; }

  /// Resolves `name` into `slot`; false (and a failure message) if the
  /// library lacks it.
  template <typename Function> bool resolve(const char *name, Function *slot) {
    *slot = handle_ ? reinterpret_cast<Function>(dlsym(handle_, name))
                    : nullptr;
    if (!*slot && failure_.empty())
      failure_ = what_ + " unavailable: " + path_ + " lacks " + name;
    return *slot != nullptr;
  }

  /// `name`, or nullptr without a failure when the library lacks it (an
  /// entry point that newer versions add and callers can do without).
  template <typename Function> Function resolveOptional(const char *name) {
    return handle_ ? reinterpret_cast<Function>(dlsym(handle_, name)) : nullptr;
  }

  /// Records why the library cannot be used ("<what> unavailable: <reason>").
  void refuse(const std::string &reason) {
    failure_ = what_ + " unavailable: " + reason;
  }

  const std::string &failure() const { return failure_; }

private:
  std::string what_;
  std::string path_;
  void *handle_ = nullptr;
  std::string failure_;
};

} // namespace precrt

#endif // PRECRT_LIB_CORE_DYNAMICLIBRARY_H
