//===- Version.h - prec's version and git revision --------------*- C++ -*-===//
//
// What prec's tools print for --version: prec's version, the git revision
// of the source tree they were built from, and the LLVM they were built with.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_VERSION_H
#define PREC_VERSION_H

#include "prec/Version.inc"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::prec {

/// prec's version, as in `project(prec VERSION ...)`.
inline const char *getVersion() { return PREC_VERSION; }

/// The git revision of the source tree (`git describe --always --dirty`),
/// or "unknown" outside a git checkout.
inline const char *getGitRevision() { return PREC_GIT_REVISION; }

/// Prints `tool`'s --version text:
///   prec-opt (prec) 0.1.0, git 7c3e985e6128
///   built with LLVM 22.1.8
inline void printVersion(llvm::raw_ostream &os, llvm::StringRef tool) {
  os << tool << " (prec) " << getVersion() << ", git " << getGitRevision()
     << "\n  built with LLVM " << LLVM_VERSION_STRING << "\n";
}

} // namespace mlir::prec

#endif // PREC_VERSION_H
