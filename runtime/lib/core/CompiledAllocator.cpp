//===- CompiledAllocator.cpp - caching allocator for generated code -------===//
//
// Freed blocks are kept by size and handed out again to the next request of
// the same size: a training step asks for the same buffers on every call,
// so after the first call no block comes from the kernel again. Blocks are
// malloc'd and never split or merged.
//
//===----------------------------------------------------------------------===//

#include "precrt/compiled.h"

#include <cstdlib>
#include <map>
#include <mutex>
#include <unordered_map>

namespace {

class CachingAllocator {
public:
  static CachingAllocator &get() {
    // Never destroyed: generated code may free blocks during exit.
    static auto *allocator = new CachingAllocator;
    return *allocator;
  }

  void *allocate(size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto block = cached.find(bytes);
      if (block != cached.end()) {
        void *data = block->second;
        cached.erase(block);
        inUse.emplace(data, bytes);
        return data;
      }
    }
    void *data = std::malloc(bytes);
    if (data) {
      std::lock_guard<std::mutex> lock(mutex);
      inUse.emplace(data, bytes);
    }
    return data;
  }

  void release(void *data) {
    if (!data)
      return;
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto block = inUse.find(data);
      if (block != inUse.end()) {
        cached.emplace(block->second, data);
        inUse.erase(block);
        return;
      }
    }
    std::free(data); // not handed out here
  }

  size_t releaseCached() {
    std::multimap<size_t, void *> released;
    {
      std::lock_guard<std::mutex> lock(mutex);
      released.swap(cached);
    }
    size_t bytes = 0;
    for (auto [size, data] : released) {
      bytes += size;
      std::free(data);
    }
    return bytes;
  }

private:
  std::mutex mutex;
  /// Freed blocks by size.
  std::multimap<size_t, void *> cached;
  /// Blocks handed out and not yet freed, with their sizes.
  std::unordered_map<void *, size_t> inUse;
};

} // namespace

void *precrtCompiledAlloc(size_t bytes) {
  return CachingAllocator::get().allocate(bytes);
}

void precrtCompiledFree(void *data) { CachingAllocator::get().release(data); }

size_t precrtCompiledReleaseCached(void) {
  return CachingAllocator::get().releaseCached();
}
