//===- DriverSymbols.h - the test driver's functions, for the other fakes -===//
//
// The test NCCL and cuBLASLt check pointers and enqueue work through the
// test CUDA driver, which precrt loads privately (RTLD_LOCAL): they find its
// exports in whichever loaded library has them.
//
//===----------------------------------------------------------------------===//

#ifndef PRECRT_TEST_FAKES_DRIVERSYMBOLS_H
#define PRECRT_TEST_FAKES_DRIVERSYMBOLS_H

#include <dlfcn.h>
#include <link.h>
#include <string>
#include <vector>

namespace precrt_fakes {

/// The function `name` of the test CUDA driver, or nullptr.
inline void *findDriverSymbol(const char *name) {
  // The loaded libraries' names first, opened after the iteration: dlopen
  // inside dl_iterate_phdr's callback takes the loader's locks in the
  // opposite order of a dlopen on another thread, and the two deadlock.
  std::vector<std::string> names;
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) -> int {
        if (info->dlpi_name && *info->dlpi_name)
          static_cast<std::vector<std::string> *>(data)->push_back(
              info->dlpi_name);
        return 0;
      },
      &names);
  for (const std::string &library : names) {
    void *handle = dlopen(library.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (!handle)
      continue;
    void *found = dlsym(handle, name);
    dlclose(handle);
    if (found)
      return found;
  }
  return nullptr;
}

} // namespace precrt_fakes

#endif // PRECRT_TEST_FAKES_DRIVERSYMBOLS_H
