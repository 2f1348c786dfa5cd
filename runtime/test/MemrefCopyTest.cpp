//===- MemrefCopyTest.cpp - precrtCompiledMemrefCopy ----------------------===//

#include "precrt/compiled.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

/// A rank-2 descriptor as lowered code passes it.
struct Descriptor2 {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
};

void copy(Descriptor2 &src, Descriptor2 &dst) {
  precrt_unranked_memref_t from{2, &src}, to{2, &dst};
  precrtCompiledMemrefCopy(sizeof(float), &from, &to);
}

TEST(MemrefCopyTest, ContiguousRowsIntoAStridedView) {
  // A 3x4 buffer into columns 2..5 of a 3x8 buffer, offset 2.
  std::vector<float> src(12), dst(24, -1.0f);
  for (int i = 0; i < 12; ++i)
    src[i] = float(i);
  Descriptor2 from{src.data(), src.data(), 0, {3, 4}, {4, 1}};
  Descriptor2 to{dst.data(), dst.data(), 2, {3, 4}, {8, 1}};
  copy(from, to);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 8; ++j)
      EXPECT_EQ(dst[i * 8 + j], j >= 2 && j < 6 ? float(i * 4 + j - 2) : -1.0f)
          << i << "," << j;
}

TEST(MemrefCopyTest, TransposedSourceElementByElement) {
  std::vector<float> src(6), dst(6, -1.0f);
  for (int i = 0; i < 6; ++i)
    src[i] = float(i);
  // The 3x2 transpose of a 2x3 buffer.
  Descriptor2 from{src.data(), src.data(), 0, {3, 2}, {1, 3}};
  Descriptor2 to{dst.data(), dst.data(), 0, {3, 2}, {2, 1}};
  copy(from, to);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j)
      EXPECT_EQ(dst[i * 2 + j], src[j * 3 + i]) << i << "," << j;
}

TEST(MemrefCopyTest, UnitDimensionsWithAnyStrideAndEmptyCopies) {
  std::vector<float> src = {1, 2, 3, 4}, dst(4, -1.0f);
  // 1x4 with a meaningless outer stride: one run.
  Descriptor2 from{src.data(), src.data(), 0, {1, 4}, {99, 1}};
  Descriptor2 to{dst.data(), dst.data(), 0, {1, 4}, {7, 1}};
  copy(from, to);
  EXPECT_EQ(dst, src);
  // Nothing to copy.
  std::vector<float> untouched(4, -1.0f);
  Descriptor2 empty{src.data(), src.data(), 0, {0, 4}, {4, 1}};
  Descriptor2 target{untouched.data(), untouched.data(), 0, {0, 4}, {4, 1}};
  copy(empty, target);
  EXPECT_EQ(untouched, std::vector<float>(4, -1.0f));
}

} // namespace
