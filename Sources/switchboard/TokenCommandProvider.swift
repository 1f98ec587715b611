import Foundation

/// `chat --token-command CMD` (and `send`'s): the client's token provider. CMD runs with
/// `/bin/sh -c` on every connect and on every refresh the server asks for; its standard
/// output, trimmed, is the token. A command that exits non-zero, prints nothing or more than
/// one word, or runs longer than ``timeout`` fails that connect or refresh with its reason
/// (the first line of its standard error when it wrote one).
struct TokenCommandProvider: Sendable {
  /// What the command line said.
  let command: String
  /// How long the command may run before it is killed and the token counts as unavailable.
  static let timeout: Duration = .seconds(30)
  /// The most standard output read (a token is at most 8 KiB; headroom for a newline or two).
  static let maxOutput = 65_536

  /// Why a run gave no token: the text `chat` shows and logs.
  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  /// Runs the command once and returns its token.
  /// - Throws: ``Failure`` naming the command's exit status, its stderr's first line, a
  ///   timeout or empty output.
  func token() async throws -> String {
    let command = self.command
    return try await withCheckedThrowingContinuation { continuation in
      // `Process` blocks a thread while it waits: one of its own, not a cooperative one.
      Thread.detachNewThread {
        continuation.resume(with: Result { try Self.run(command) })
      }
    }
  }

  private static func run(_ command: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", command]
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    do {
      try process.run()
    } catch {
      throw Failure(description: "--token-command could not start /bin/sh: \(error)")
    }
    let killer = DispatchWorkItem { if process.isRunning { process.terminate() } }
    DispatchQueue.global().asyncAfter(
      deadline: .now() + .seconds(Int(timeout.components.seconds)), execute: killer)
    // Both pipes read to the end before waiting, stderr on a thread of its own, so a chatty
    // command cannot block on a full pipe.
    let errorsRead = DispatchSemaphore(value: 0)
    let errorBox = ErrorBytes()
    Thread.detachNewThread {
      errorBox.data = err.fileHandleForReading.readDataToEndOfFile()
      errorsRead.signal()
    }
    let output = out.fileHandleForReading.readDataToEndOfFile().prefix(maxOutput)
    errorsRead.wait()
    let errors = errorBox.data.prefix(maxOutput)
    process.waitUntilExit()
    killer.cancel()
    let stderrLine = String(decoding: errors, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init)
    if process.terminationReason == .uncaughtSignal {
      throw Failure(description: "--token-command was killed (signal \(process.terminationStatus); timeout \(timeout))")
    }
    guard process.terminationStatus == 0 else {
      throw Failure(
        description: "--token-command exited with status \(process.terminationStatus)"
          + (stderrLine.map { ": \($0)" } ?? ""))
    }
    let token = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    guard !token.isEmpty, !token.contains(where: { $0.isWhitespace || $0.isNewline }) else {
      throw Failure(description: "--token-command printed \(token.isEmpty ? "nothing" : "more than one word"), not a token")
    }
    return token
  }
}

/// The bytes a command wrote to stderr, handed from the thread that read them.
// Safety: written once by the reading thread before it signals the semaphore the reader of
// `data` waits on, so no access overlaps another.
private final class ErrorBytes: @unchecked Sendable {
  var data = Data()
}
