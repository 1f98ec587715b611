import SwitchboardIO

#if canImport(COpenSSL)
  import COpenSSL
#endif

/// An error from TLS: configuration, handshake, certificate checks or the record layer.
///
/// Errors compare equal by kind only, so `error == .certificateVerifyFailed` and
/// `case .certificateVerifyFailed` work whatever the details. New kinds may be added
/// without breaking users (an "open enum"). The details — the OpenSSL verify reason, the
/// OpenSSL error queue, an underlying ``IOError`` — are in ``reason``, ``openSSLErrors``
/// and ``ioError``, and all of them are in ``description``.
public struct TLSError: Error, Sendable, Equatable, CustomStringConvertible {
  private enum Code: Sendable, Equatable {
    case invalidConfiguration
    case keyMismatch
    case certificateVerifyFailed
    case pinMismatch
    case handshakeFailed
    case protocolViolation
    case unexpectedEOF
    case connectFailed
    case connectionFailed
    case closed
    case unavailable
  }

  private let code: Code
  /// A human-readable reason: for verify failures OpenSSL's own text (`"self-signed
  /// certificate"`, `"hostname mismatch"`, `"unable to get local issuer certificate"`…).
  public let reason: String
  /// OpenSSL's error queue at the time of the failure, one line per entry (may be empty).
  public let openSSLErrors: [String]
  /// OpenSSL's `X509_V_ERR_*` code for ``certificateVerifyFailed``, otherwise `nil`.
  public let verifyResult: Int?
  /// The socket error behind ``connectFailed`` and ``connectionFailed``.
  public let ioError: IOError?

  private init(
    _ code: Code, reason: String = "", openSSLErrors: [String] = [], verifyResult: Int? = nil,
    ioError: IOError? = nil
  ) {
    self.code = code
    self.reason = reason
    self.openSSLErrors = openSSLErrors
    self.verifyResult = verifyResult
    self.ioError = ioError
  }

  /// The configuration cannot be used (unreadable CA or key file, key not matching the
  /// certificate, no server name to verify, …).
  public static let invalidConfiguration = TLSError(.invalidConfiguration)
  /// The private key does not belong to the certificate it was given with (a server's
  /// `--tls-cert` and `--tls-key`); ``reason`` names both files.
  public static let keyMismatch = TLSError(.keyMismatch)
  /// The peer's certificate chain failed verification; ``reason`` says why.
  public static let certificateVerifyFailed = TLSError(.certificateVerifyFailed)
  /// The handshake succeeded but the leaf certificate's key is not one of the pins.
  public static let pinMismatch = TLSError(.pinMismatch)
  /// The handshake failed for a reason other than certificate verification (no shared
  /// protocol version or cipher, an alert from the peer, the peer closed mid-handshake…).
  public static let handshakeFailed = TLSError(.handshakeFailed)
  /// A TLS record was malformed or could not be decrypted after the handshake.
  public static let protocolViolation = TLSError(.protocolViolation)
  /// The TCP stream ended without a TLS `close_notify`: the data may be truncated.
  public static let unexpectedEOF = TLSError(.unexpectedEOF)
  /// The TCP connection could not be established; ``ioError`` has the socket error.
  public static let connectFailed = TLSError(.connectFailed)
  /// The TCP connection failed after it was established; ``ioError`` has the error.
  public static let connectionFailed = TLSError(.connectionFailed)
  /// The session is closed (after `close_notify` or a failure); nothing more can be sent.
  public static let closed = TLSError(.closed)
  /// This build has no TLS implementation (on Apple platforms Switchboard does not use
  /// OpenSSL, and Network.framework TLS is not built yet); ``reason`` names the platform and
  /// says what to do instead. See ``TLSSupport``.
  public static let unavailable = TLSError(.unavailable)

  public static func == (a: TLSError, b: TLSError) -> Bool { a.code == b.code }

  public var description: String {
    var text: String
    switch code {
    case .invalidConfiguration: text = "invalid TLS configuration"
    case .keyMismatch: text = "invalid TLS configuration"
    case .certificateVerifyFailed: text = "certificate verify failed"
    case .pinMismatch: text = "certificate pin mismatch"
    case .handshakeFailed: text = "TLS handshake failed"
    case .protocolViolation: text = "TLS protocol error"
    case .unexpectedEOF: text = "connection closed without TLS close_notify"
    case .connectFailed: text = "TCP connect failed"
    case .connectionFailed: text = "TCP connection failed"
    case .closed: text = "TLS session closed"
    case .unavailable: text = "TLS unavailable"
    }
    if !reason.isEmpty { text += ": " + reason }
    if let ioError { text += " (\(ioError))" }
    if !openSSLErrors.isEmpty { text += " [" + openSSLErrors.joined(separator: "; ") + "]" }
    return text
  }

  // MARK: Makers (internal)

  static func invalidConfiguration(_ reason: String) -> TLSError {
    TLSError(.invalidConfiguration, reason: reason, openSSLErrors: drainOpenSSLErrors())
  }
  static func keyMismatch(_ reason: String) -> TLSError {
    TLSError(.keyMismatch, reason: reason, openSSLErrors: drainOpenSSLErrors())
  }
  #if canImport(COpenSSL)
    static func certificateVerifyFailed(result: Int) -> TLSError {
      let text = String(cString: X509_verify_cert_error_string(result))
      return TLSError(
        .certificateVerifyFailed, reason: text, openSSLErrors: drainOpenSSLErrors(), verifyResult: result)
    }
  #endif
  static func pinMismatch(_ reason: String) -> TLSError { TLSError(.pinMismatch, reason: reason) }
  static func handshakeFailed(_ reason: String) -> TLSError {
    TLSError(.handshakeFailed, reason: reason, openSSLErrors: drainOpenSSLErrors())
  }
  static func protocolViolation(_ reason: String) -> TLSError {
    TLSError(.protocolViolation, reason: reason, openSSLErrors: drainOpenSSLErrors())
  }
  static func unexpectedEOF(_ reason: String) -> TLSError { TLSError(.unexpectedEOF, reason: reason) }
  static func connectFailed(_ error: IOError) -> TLSError { TLSError(.connectFailed, ioError: error) }
  static func connectionFailed(_ error: IOError) -> TLSError { TLSError(.connectionFailed, ioError: error) }
  static func closed(_ reason: String) -> TLSError { TLSError(.closed, reason: reason) }
  /// ``unavailable``, its reason naming `platform` (see ``TLSSupport/unavailableReason(on:)``).
  static func unavailable(on platform: String) -> TLSError {
    TLSError(.unavailable, reason: TLSSupport.unavailableReason(on: platform))
  }
}

#if canImport(COpenSSL)
  /// Empties this thread's OpenSSL error queue and returns its entries as text. OpenSSL
  /// keeps one queue per thread, so every operation clears it first (``clearOpenSSLErrors()``)
  /// and a failure reads only its own entries.
  func drainOpenSSLErrors() -> [String] {
    var lines: [String] = []
    while true {
      let code = ERR_get_error()
      if code == 0 { break }
      var buffer = [CChar](repeating: 0, count: 256)
      ERR_error_string_n(code, &buffer, buffer.count)
      lines.append(buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
      if lines.count >= 16 {
        ERR_clear_error()
        break
      }
    }
    return lines
  }

  /// Clears this thread's OpenSSL error queue (see ``drainOpenSSLErrors()``).
  @inline(__always) func clearOpenSSLErrors() { ERR_clear_error() }
#else
  /// Without OpenSSL there is no error queue to read.
  func drainOpenSSLErrors() -> [String] { [] }
#endif
