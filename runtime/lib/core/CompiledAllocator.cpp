//===- CompiledAllocator.cpp - caching allocator for generated code -------===//
//
// Freed blocks are kept by size and handed out again to the next request of
// the same size: a training step asks for the same buffers on every call,
// so after the first call its blocks come from the cache. Blocks are
// malloc'd and never split or merged.
//
// The cache holds at most twice as many bytes as were ever in use at once,
// so the allocator never holds more than three times the program's peak; a
// block that does not fit goes back to the C library. A program whose sizes
// change from call to call thus costs at most that, not the sum of every
// size it used; one that alternates between a few functions (each with its
// own sizes) still finds all of their blocks in the cache.
//
//===----------------------------------------------------------------------===//

#include "precrt/compiled.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

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
        cachedBlocks.erase(data);
        cachedBytes -= bytes;
        noteInUse(data, bytes);
        return data;
      }
    }
    void *data = std::malloc(bytes);
    if (data) {
      std::lock_guard<std::mutex> lock(mutex);
      noteInUse(data, bytes);
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
        size_t bytes = block->second;
        inUse.erase(block);
        inUseBytes -= bytes;
        if (cachedBytes + bytes <= 2 * peakInUseBytes) {
          cached.emplace(bytes, data);
          cachedBlocks.insert(data);
          cachedBytes += bytes;
          return;
        }
      } else if (cachedBlocks.count(data)) {
        // The C library would abort on this double free too; handing the
        // block out twice instead would corrupt two buffers silently.
        std::fprintf(stderr, "precrt: precrtCompiledFree: block %p freed "
                             "twice\n", data);
        std::abort();
      }
    }
    std::free(data); // not handed out here, or not worth keeping
  }

  size_t releaseCached() {
    std::multimap<size_t, void *> released;
    {
      std::lock_guard<std::mutex> lock(mutex);
      released.swap(cached);
      cachedBlocks.clear();
      cachedBytes = 0;
    }
    size_t bytes = 0;
    for (auto [size, data] : released) {
      bytes += size;
      std::free(data);
    }
    return bytes;
  }

private:
  void noteInUse(void *data, size_t bytes) {
    inUse.emplace(data, bytes);
    inUseBytes += bytes;
    if (inUseBytes > peakInUseBytes)
      peakInUseBytes = inUseBytes;
  }

  std::mutex mutex;
  /// Freed blocks by size, and the same blocks as a set.
  std::multimap<size_t, void *> cached;
  std::unordered_set<void *> cachedBlocks;
  /// Blocks handed out and not yet freed, with their sizes.
  std::unordered_map<void *, size_t> inUse;
  size_t cachedBytes = 0, inUseBytes = 0, peakInUseBytes = 0;
};

} // namespace

void *precrtCompiledAlloc(size_t bytes) {
  return CachingAllocator::get().allocate(bytes);
}

void precrtCompiledFree(void *data) { CachingAllocator::get().release(data); }

size_t precrtCompiledReleaseCached(void) {
  return CachingAllocator::get().releaseCached();
}
