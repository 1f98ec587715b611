extension Array where Element == UInt8 {
  /// `withUnsafeBytes` for a body with typed throws (the standard one is `rethrows`,
  /// which widens the error to `any Error`).
  func withBytes<R>(
    _ body: (UnsafeRawBufferPointer) throws(WebSocketError) -> R
  ) throws(WebSocketError) -> R {
    let result: Result<R, WebSocketError> = withUnsafeBytes { bytes in
      Result { () throws(WebSocketError) -> R in try body(bytes) }
    }
    return try result.get()
  }
}
