import SwitchboardTestSupport
import Testing

@testable import SwitchboardIO

/// Which backend a platform runs and refuses, decided in shared code so that Linux tests the
/// choice macOS and iOS make (Dispatch, the only backend there).
@Suite(.onTestThreads) struct SelectorBackendTests {
  @Test func applePlatformsRunDispatchAlone() {
    let apple = SelectorBackend.available(onLinux: false, ioUringAvailable: false)
    #expect(apple == [.dispatch])
    #expect(SelectorBackend.choose(requested: nil, available: apple) == .dispatch)
    // SWITCHBOARD_BACKEND naming a backend the platform lacks is ignored, not obeyed.
    #expect(SelectorBackend.choose(requested: "epoll", available: apple) == .dispatch)
    #expect(SelectorBackend.choose(requested: "io_uring", available: apple) == .dispatch)
  }

  @Test func linuxPrefersIOUringThenEpoll() {
    let withRing = SelectorBackend.available(onLinux: true, ioUringAvailable: true)
    let withoutRing = SelectorBackend.available(onLinux: true, ioUringAvailable: false)
    #expect(Set(withRing) == [.epoll, .dispatch, .ioUring])
    #expect(Set(withoutRing) == [.epoll, .dispatch])
    #expect(SelectorBackend.choose(requested: nil, available: withRing) == .ioUring)
    #expect(SelectorBackend.choose(requested: nil, available: withoutRing) == .epoll)
    #expect(SelectorBackend.choose(requested: "dispatch", available: withRing) == .dispatch)
    #expect(SelectorBackend.choose(requested: "kqueue", available: withRing) == .ioUring)
  }

  @Test func aBackendThePlatformLacksIsRefusedNamingThePlatform() {
    let apple = SelectorBackend.available(onLinux: false, ioUringAvailable: false)
    let reason = SelectorBackend.epoll.unavailableReason(available: apple, platform: "macOS")
    #expect(
      reason
        == "the epoll backend is not available on macOS (epoll exists only on Linux; available: dispatch)")
    #expect(
      SelectorBackend.ioUring.unavailableReason(available: apple, platform: "iOS")?.contains("on iOS") == true
    )
    #expect(SelectorBackend.dispatch.unavailableReason(available: apple, platform: "macOS") == nil)
    let linux = SelectorBackend.available(onLinux: true, ioUringAvailable: false)
    #expect(
      SelectorBackend.ioUring.unavailableReason(available: linux, platform: "Linux")?.contains("5.6") == true)
    #expect(SelectorBackend.epoll.unavailableReason(available: linux, platform: "Linux") == nil)
  }

  @Test func thisMachineRunsItsDefault() {
    #expect(SelectorBackend.available.contains(SelectorBackend.platformDefault))
    #expect(
      SelectorBackend.available
        == SelectorBackend.available(
          onLinux: BuildPlatform.isLinux, ioUringAvailable: SelectorBackend.isIOUringAvailable))
  }
}
