import SwitchboardIO

/// An event loop, named so the factory's signature reads well.
struct EventLoopRef: Sendable {
  let loop: EventLoop
}
