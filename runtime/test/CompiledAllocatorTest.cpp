//===- CompiledAllocatorTest.cpp - the generated code's caching allocator -===//

#include "precrt/compiled.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

TEST(CompiledAllocator, ReusesAFreedBlockOfTheSameSize) {
  precrtCompiledReleaseCached();
  void *first = precrtCompiledAlloc(1 << 20);
  ASSERT_NE(first, nullptr);
  std::memset(first, 1, 1 << 20);
  precrtCompiledFree(first);
  void *second = precrtCompiledAlloc(1 << 20);
  EXPECT_EQ(second, first);
  precrtCompiledFree(second);
  EXPECT_EQ(precrtCompiledReleaseCached(), size_t(1) << 20);
  EXPECT_EQ(precrtCompiledReleaseCached(), 0u);
}

TEST(CompiledAllocator, DoesNotHandOutASmallerBlockOrOneInUse) {
  precrtCompiledReleaseCached();
  void *small = precrtCompiledAlloc(64);
  precrtCompiledFree(small);
  void *large = precrtCompiledAlloc(128);
  EXPECT_NE(large, small);
  void *again = precrtCompiledAlloc(64);
  void *another = precrtCompiledAlloc(64);
  EXPECT_EQ(again, small);
  EXPECT_NE(another, again);
  for (void *block : {large, again, another})
    precrtCompiledFree(block);
  EXPECT_EQ(precrtCompiledReleaseCached(), 64u + 128u + 64u);
}

TEST(CompiledAllocator, ServesARequestWithTheSmallestBlockUpToTwiceItsSize) {
  precrtCompiledReleaseCached();
  void *blocks[3] = {precrtCompiledAlloc(1000), precrtCompiledAlloc(1200),
                     precrtCompiledAlloc(4000)};
  for (void *block : blocks)
    precrtCompiledFree(block);
  // 600 fits all three; the smallest, 1000, is at most twice 600.
  void *first = precrtCompiledAlloc(600);
  EXPECT_EQ(first, blocks[0]);
  // 1100 takes 1200; 1500 takes none: 4000 is more than twice 1500.
  void *second = precrtCompiledAlloc(1100);
  EXPECT_EQ(second, blocks[1]);
  void *third = precrtCompiledAlloc(1500);
  EXPECT_NE(third, blocks[2]);
  // 450 is less than half of 1000 and of 4000: a fresh block too.
  void *fourth = precrtCompiledAlloc(450);
  EXPECT_NE(fourth, blocks[2]);
  for (void *block : {first, second, third, fourth})
    precrtCompiledFree(block);
  // The blocks keep their own sizes in the cache.
  EXPECT_EQ(precrtCompiledReleaseCached(),
            1000u + 1200u + 4000u + 1500u + 450u);
}

TEST(CompiledAllocator, CountsTheBytesAskedForNotTheBlocksSize) {
  precrtCompiledReleaseCached();
  precrtCompiledFree(precrtCompiledAlloc(1000));
  precrtCompiledResetPeakMemory();
  precrt_compiled_memory_t before, memory;
  precrtCompiledGetMemory(&before);
  void *block = precrtCompiledAlloc(700); // the 1000-byte block
  precrtCompiledGetMemory(&memory);
  EXPECT_EQ(memory.in_use_bytes - before.in_use_bytes, 700u);
  precrtCompiledFree(block);
  precrtCompiledGetMemory(&memory);
  EXPECT_EQ(memory.in_use_bytes, before.in_use_bytes);
  EXPECT_EQ(memory.peak_in_use_bytes - before.in_use_bytes, 700u);
  EXPECT_EQ(precrtCompiledReleaseCached(), 1000u);
}

TEST(CompiledAllocator, FreesForeignPointersAndNull) {
  precrtCompiledReleaseCached();
  precrtCompiledFree(nullptr);
  precrtCompiledFree(std::malloc(32)); // goes to free, not to the cache
  EXPECT_EQ(precrtCompiledReleaseCached(), 0u);
}

TEST(CompiledAllocator, KeepsNoMoreThanTwiceThePeakInUse) {
  precrtCompiledReleaseCached();
  // One block live at a time, of growing sizes (larger than any of the
  // other tests' blocks, so that this test sets the peak): the cache keeps
  // the 4 and 5 MiB blocks and gives the 6 MiB one back, since keeping it
  // would hold 15 MiB, more than twice the 6 MiB ever in use at once.
  constexpr size_t MiB = size_t(1) << 20;
  for (size_t mebibytes : {4, 5, 6})
    precrtCompiledFree(precrtCompiledAlloc(mebibytes * MiB));
  EXPECT_EQ(precrtCompiledReleaseCached(), 9 * MiB);
}

TEST(CompiledAllocatorDeathTest, AbortsOnADoubleFree) {
  void *block = precrtCompiledAlloc(48);
  precrtCompiledFree(block);
  EXPECT_DEATH(precrtCompiledFree(block), "freed twice");
  precrtCompiledReleaseCached();
}

TEST(CompiledAllocator, IsSharedByThreads) {
  precrtCompiledReleaseCached();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t] {
      for (int i = 0; i < 1000; ++i) {
        auto *block = static_cast<int *>(precrtCompiledAlloc(256 + 16 * t));
        block[0] = t;
        EXPECT_EQ(block[0], t);
        precrtCompiledFree(block);
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  // A request takes any cached block that holds it (each of these sizes
  // fits in any other's twice), so a thread allocates a block of its size
  // only while every block that could serve it is held by the other three
  // threads: the cache ends with at most four blocks of each size (how many
  // depends on the race), not one per allocation.
  EXPECT_LE(precrtCompiledReleaseCached(), 4 * (256u + 272u + 288u + 304u));
}

TEST(CompiledAllocator, CountsThePeakInUseOfTheCallingThread) {
  precrtCompiledResetPeakMemory();
  precrt_compiled_memory_t before;
  precrtCompiledGetMemory(&before);
  void *first = precrtCompiledAlloc(1000);
  void *second = precrtCompiledAlloc(3000);
  precrtCompiledFree(first);
  // A cached block handed out again counts as in use again.
  void *third = precrtCompiledAlloc(1000);
  void *fourth = precrtCompiledAlloc(500);
  precrt_compiled_memory_t memory;
  precrtCompiledGetMemory(&memory);
  EXPECT_EQ(memory.in_use_bytes - before.in_use_bytes, 4500u);
  EXPECT_EQ(memory.peak_in_use_bytes - before.in_use_bytes, 4500u);
  for (void *block : {second, third, fourth})
    precrtCompiledFree(block);
  precrtCompiledGetMemory(&memory);
  EXPECT_EQ(memory.in_use_bytes, before.in_use_bytes);
  EXPECT_EQ(memory.peak_in_use_bytes - before.in_use_bytes, 4500u);
  precrtCompiledResetPeakMemory();
  precrtCompiledGetMemory(&memory);
  EXPECT_EQ(memory.peak_in_use_bytes, memory.in_use_bytes);
}

TEST(CompiledAllocator, CountsEachThreadsBlocksWhoeverFreesThem) {
  // Another thread's blocks do not count toward this one's peak, and a
  // block this thread allocated stops counting when another frees it.
  precrtCompiledResetPeakMemory();
  precrt_compiled_memory_t before;
  precrtCompiledGetMemory(&before);
  void *mine = precrtCompiledAlloc(2048);
  std::thread other([mine] {
    precrt_compiled_memory_t start;
    precrtCompiledGetMemory(&start);
    void *theirs = precrtCompiledAlloc(1 << 16);
    precrtCompiledFree(mine);
    precrt_compiled_memory_t memory;
    precrtCompiledGetMemory(&memory);
    EXPECT_EQ(memory.in_use_bytes - start.in_use_bytes, size_t(1) << 16);
    precrtCompiledFree(theirs);
  });
  other.join();
  precrt_compiled_memory_t memory;
  precrtCompiledGetMemory(&memory);
  EXPECT_EQ(memory.in_use_bytes, before.in_use_bytes);
  EXPECT_EQ(memory.peak_in_use_bytes - before.in_use_bytes, 2048u);
}

} // namespace
