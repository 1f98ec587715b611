import Dispatch
import SwitchboardHTTP
import SwitchboardIO
import SwitchboardTLS
import Synchronization

/// One HTTP/1.1 request and its whole response over a fresh connection (plain TCP, or TLS
/// through the client's TLS stack), on an event loop of its own, for `switchboard api` and
/// `switchboard top`. The request should say `Connection: close`; the response body is read
/// up to its `Content-Length` (or the close), at most ``maxBody`` bytes — or, for a stream
/// (`200` without a length, such as `text/event-stream`), handed on as it arrives until the
/// close, when the caller asks for that.
final class HTTPExchange: ByteStreamDelegate {
  /// Why no response came.
  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  /// The most response bytes read.
  static let maxBody = 16 * 1024 * 1024

  private var parser = HTTPResponseParser()
  private var head: HTTPResponseHead?
  private var body: [UInt8] = []
  private var connection: ByteStream?
  private var timer: Scheduled?
  private var loop: EventLoop?
  private var timeout = Duration.seconds(15)
  private let request: [UInt8]
  /// Where a streamed body goes, when the caller wants one (called on the exchange's loop).
  private let onStream: (@Sendable ([UInt8]) -> Void)?
  private var streaming = false
  private let finish: (Result<(HTTPResponseHead, [UInt8]), Failure>) -> Void
  private var finished = false

  private init(
    request: [UInt8], onStream: (@Sendable ([UInt8]) -> Void)?,
    finish: @escaping (Result<(HTTPResponseHead, [UInt8]), Failure>) -> Void
  ) {
    self.request = request
    self.onStream = onStream
    self.finish = finish
  }

  /// Sends `request` to `address` and waits (blocking the calling thread, never a loop) for
  /// the response, at most `timeout`.
  /// - Parameters:
  ///   - tls: the client context and the name the server must prove, for `https://`.
  ///   - timeout: for a streamed answer, the longest silence between reads.
  ///   - stream: when given, a `200` answer without `Content-Length` is not kept: its bytes go
  ///     to `stream` as they arrive (on the exchange's loop) and the result, at the close, has
  ///     an empty body. Other answers are read whole, as without it.
  static func perform(
    _ request: [UInt8], to address: SocketAddress, tls: (context: TLSContext, serverName: String)?,
    timeout: Duration, stream: (@Sendable ([UInt8]) -> Void)? = nil
  ) -> Result<(HTTPResponseHead, [UInt8]), Failure> {
    let group: EventLoopGroup
    do {
      group = try EventLoopGroup(count: 1)
    } catch {
      return .failure(Failure(description: "cannot start an event loop: \(error)"))
    }
    defer { group.shutdownGracefully() }
    let loop = group.next()
    let outcome = Mutex<Result<(HTTPResponseHead, [UInt8]), Failure>?>(nil)
    let done = DispatchSemaphore(value: 0)
    loop.execute {
      let exchange = HTTPExchange(request: request, onStream: stream) { result in
        outcome.withLock { $0 = result }
        done.signal()
      }
      exchange.start(address, tls: tls, timeout: timeout, on: loop)
    }
    done.wait()
    return outcome.withLock { $0 }!
  }

  private func start(
    _ address: SocketAddress, tls: (context: TLSContext, serverName: String)?, timeout: Duration,
    on loop: EventLoop
  ) {
    self.loop = loop
    self.timeout = timeout
    timer = loop.scheduleLocal(after: timeout) { [self] in
      end(.failure(Failure(description: "no answer from \(address) within \(timeout)")))
    }
    if let tls {
      TLSConnection.connect(to: address, serverName: tls.serverName, context: tls.context, on: loop) {
        [self] result in
        switch result {
        case .success(let connection): connected(.tls(connection))
        case .failure(let error):
          end(.failure(Failure(description: "cannot connect to \(address): \(error)")))
        }
      }
    } else {
      TCPConnection.connect(to: address, on: loop) { [self] result in
        switch result {
        case .success(let connection): connected(.tcp(connection))
        case .failure(let error):
          end(.failure(Failure(description: "cannot connect to \(address): \(error)")))
        }
      }
    }
  }

  private func connected(_ stream: ByteStream) {
    guard !finished else { return stream.close() }
    connection = stream
    stream.attach(self)
    stream.write(request)
  }

  private func end(_ result: Result<(HTTPResponseHead, [UInt8]), Failure>) {
    guard !finished else { return }
    finished = true
    timer?.cancel()
    connection?.close()
    finish(result)
  }

  func stream(_ stream: ByteStream, didRead bytes: UnsafeRawBufferPointer) {
    if head == nil {
      parser.append(bytes)
      do {
        guard let parsed = try parser.next() else { return }
        head = parsed
        body = parser.takeRemainingBytes()
        streaming = onStream != nil && parsed.status == 200 && parsed.headers["Content-Length"] == nil
      } catch {
        return end(.failure(Failure(description: "a malformed answer: \(error)")))
      }
    } else {
      body.append(contentsOf: bytes)
    }
    guard let head else { return }
    if streaming, let onStream {
      timer?.cancel()
      timer = loop?.scheduleLocal(after: timeout) { [self] in
        end(.failure(Failure(description: "nothing from the server for \(timeout)")))
      }
      let chunk = body
      body = []
      if !chunk.isEmpty { onStream(chunk) }
      return
    }
    if body.count > Self.maxBody { return end(.failure(Failure(description: "the answer is too large"))) }
    if let length = head.headers["Content-Length"].flatMap({ Int($0) }), body.count >= length {
      end(.success((head, Array(body.prefix(length)))))
    }
  }

  func streamDidReadEOF(_ stream: ByteStream) {
    if let head {
      end(.success((head, body)))
    } else {
      end(.failure(Failure(description: "the server closed the connection without an answer")))
    }
  }

  func stream(_ stream: ByteStream, didCloseWith error: ByteStreamError?) {
    streamDidReadEOF(stream)
  }
}
