//===- prec-lsp-server.cpp - language server for prec IR ------------------===//
//
// Debian's mlir-lsp-server cannot load dialect plugins, so prec ships its
// own server with the same dialects as prec-opt.
//
//===----------------------------------------------------------------------===//

#include "prec/InitAllDialects.h"
#include "prec/Version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Tools/mlir-lsp-server/MlirLspServerMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdlib>
#include <string>
#include <thread>
#include <unistd.h>

namespace {

/// Upstream's server answers `initialize` with serverInfo "mlir-lsp-server"
/// "0.0.0", and takes no other name. Its messages go to stdout through a
/// pipe instead; this filter passes them on to the real stdout, with prec's
/// name and version in that answer.
class ServerInfoFilter {
public:
  /// Puts the pipe in stdout's place; false where that fails (the server
  /// then runs unfiltered).
  bool start() {
    int fds[2];
    realStdout = ::dup(STDOUT_FILENO);
    if (realStdout < 0 || ::pipe(fds) != 0)
      return false;
    if (::dup2(fds[1], STDOUT_FILENO) < 0)
      return false;
    ::close(fds[1]);
    readEnd = fds[0];
    thread = std::thread([this] { run(); });
    return true;
  }

  /// Closes the pipe and waits until everything has gone out.
  void finish() {
    if (!thread.joinable())
      return;
    llvm::outs().flush();
    ::close(STDOUT_FILENO);
    thread.join();
  }

private:
  void run() {
    std::string pending;
    char chunk[4096];
    for (;;) {
      ssize_t n = ::read(readEnd, chunk, sizeof(chunk));
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      pending.append(chunk, n);
      forwardMessages(pending);
    }
    // Whatever was not a whole message goes out as it is.
    write(pending);
  }

  /// Forwards every whole message (`Content-Length: N\r\n\r\n` and N bytes)
  /// at the front of `pending`.
  void forwardMessages(std::string &pending) {
    for (;;) {
      size_t headerEnd = pending.find("\r\n\r\n");
      if (headerEnd == std::string::npos)
        return;
      llvm::StringRef header(pending.data(), headerEnd);
      size_t length = 0;
      size_t at = header.find("Content-Length: ");
      if (at == llvm::StringRef::npos ||
          header.drop_front(at + 16)
              .take_until([](char c) { return c == '\r'; })
              .getAsInteger(10, length)) {
        // Not a message this filter understands: pass it on unchanged.
        write(pending);
        pending.clear();
        return;
      }
      size_t bodyStart = headerEnd + 4;
      if (pending.size() < bodyStart + length)
        return;
      std::string body = pending.substr(bodyStart, length);
      pending.erase(0, bodyStart + length);
      rewriteServerInfo(body);
      write("Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
            body);
    }
  }

  static void rewriteServerInfo(std::string &body) {
    if (body.find("\"serverInfo\"") == std::string::npos)
      return;
    llvm::Expected<llvm::json::Value> message = llvm::json::parse(body);
    if (!message) {
      llvm::consumeError(message.takeError());
      return;
    }
    llvm::json::Object *result =
        message->getAsObject() ? message->getAsObject()->getObject("result")
                               : nullptr;
    if (!result || !result->getObject("serverInfo"))
      return;
    (*result)["serverInfo"] = llvm::json::Object{
        {"name", "prec-lsp-server"},
        {"version", std::string(mlir::prec::getVersion()) + " (git " +
                        mlir::prec::getGitRevision() + ")"}};
    // As the server wrote it: pretty-printed (-pretty, -lit-test) or not.
    bool pretty = !body.empty() && body.back() == '\n';
    body = llvm::formatv(pretty ? "{0:2}\n" : "{0}", *message).str();
  }

  void write(llvm::StringRef text) {
    while (!text.empty()) {
      ssize_t n = ::write(realStdout, text.data(), text.size());
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return;
      text = text.drop_front(n);
    }
  }

  int realStdout = -1;
  int readEnd = -1;
  std::thread thread;
};

} // namespace

int main(int argc, char **argv) {
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    mlir::prec::printVersion(os, "prec-lsp-server");
  });
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::prec::registerPrecDialects(registry);
  // --version and --help leave through exit(): the filter finishes then.
  static ServerInfoFilter filter;
  llvm::outs();
  if (filter.start())
    std::atexit([] { filter.finish(); });
  return mlir::failed(mlir::MlirLspServerMain(argc, argv, registry));
}
