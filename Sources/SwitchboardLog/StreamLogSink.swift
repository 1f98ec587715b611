import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes each record as one line, in a ``LogFormat``, to a file descriptor — standard
/// error for `switchboard serve`.
///
/// One `write(2)` per line under a lock, so lines from several event loops never
/// interleave. A failed write (a closed stderr) drops the line: logging never stops
/// the program.
public final class StreamLogSink: LogSink {
  /// How lines are written.
  public let format: LogFormat
  private let descriptor: Int32
  private let writing = Mutex(())

  /// A sink writing to `descriptor`, which it does not own or close.
  public init(descriptor: Int32, format: LogFormat = .text) {
    self.descriptor = descriptor
    self.format = format
  }

  /// A sink writing to standard error.
  public static func standardError(format: LogFormat = .text) -> StreamLogSink {
    StreamLogSink(descriptor: 2, format: format)
  }

  /// Formats `record` and writes it with its newline.
  public func write(_ record: LogRecord) {
    var bytes: [UInt8] = []
    format.append(record, to: &bytes)
    bytes.append(UInt8(ascii: "\n"))
    writing.withLock { _ in
      bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
          #if canImport(Glibc)
            let n = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
          #else
            let n = Darwin.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
          #endif
          if n > 0 {
            offset += n
          } else if n < 0 && errno == EINTR {
            continue
          } else {
            return
          }
        }
      }
    }
  }
}
