import SwitchboardTestSupport
import Foundation
import SwitchboardLog
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite(.onTestThreads) struct StreamLogSinkTests {
  /// Reads everything `body` writes into a pipe's write end.
  private func captured(_ body: (Int32) -> Void) -> String {
    var fds: [Int32] = [0, 0]
    precondition(pipe(&fds) == 0)
    let reader = FileHandle(fileDescriptor: fds[0], closeOnDealloc: true)
    let output = Locked()
    let done = DispatchSemaphore(value: 0)
    Thread {
      output.set(reader.readDataToEndOfFile())
      done.signal()
    }.start()
    body(fds[1])
    close(fds[1])
    done.wait()
    return String(decoding: output.get(), as: UTF8.self)
  }

  @Test func writesOneLinePerRecordInItsFormat() {
    let text = captured { fd in
      let log = Log(label: "sink", sink: StreamLogSink(descriptor: fd, format: .json))
      log.info("one", metadata: ["k": "v"])
      log.warning("two\nlines")
    }
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == 3 && lines[2].isEmpty)
    #expect(lines[0].hasSuffix(#","level":"info","label":"sink","msg":"one","k":"v"}"#))
    #expect(lines[1].hasSuffix(#","level":"warning","label":"sink","msg":"two\nlines"}"#))
  }

  @Test func linesFromManyThreadsNeverInterleave() {
    let threads = 8
    let perThread = 200
    let padding = String(repeating: "x", count: 300)
    let text = captured { fd in
      let log = Log(label: "sink", sink: StreamLogSink(descriptor: fd, format: .text))
      DispatchQueue.concurrentPerform(iterations: threads) { t in
        for i in 0..<perThread { log.info("t\(t) i\(i) \(padding)") }
      }
    }
    let lines = text.split(separator: "\n")
    #expect(lines.count == threads * perThread)
    #expect(lines.allSatisfy { $0.hasSuffix(padding) && $0.contains(" info sink: t") })
  }
}

/// Data handed from the reading thread to the test.
private final class Locked: @unchecked Sendable {
  // Safety: `data` is written by the reader thread before it signals, read after the wait.
  private var data = Data()
  func set(_ value: Data) { data = value }
  func get() -> Data { data }
}
