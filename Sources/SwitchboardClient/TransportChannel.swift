/// The loop side of a ``ChannelTransport``: called on its loop only.
protocol TransportChannel: AnyObject, SendableMetatype {
  /// Queues one unit (a line without its terminator, a datagram); `false` when it cannot
  /// be sent.
  func send(_ text: String) -> Bool
  /// Closes the socket (or gives up connecting); the inputs finish soon after.
  func close()
  /// Why a ``send(_:)`` that returned `false` failed, for the caller's error.
  static var sendFailure: String { get }
}
