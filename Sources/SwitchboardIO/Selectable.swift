/// Something registered with an ``EventLoop`` for readiness events. Called on the loop's
/// thread only.
public protocol Selectable: AnyObject {
  /// The descriptor is ready as `events` says.
  func handle(_ events: ReadyEvents)
}
