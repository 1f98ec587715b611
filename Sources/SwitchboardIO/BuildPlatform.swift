/// The platform this build of Switchboard runs on, by the name its users know it, so that a
/// feature with no implementation here refuses with a message that names the platform
/// ("TLS listeners are not available on macOS in this version") instead of failing to build.
public enum BuildPlatform {
  /// "macOS", "iOS", "tvOS", "watchOS", "visionOS", "Linux", or "this platform".
  public static var name: String {
    #if os(macOS)
      return "macOS"
    #elseif os(iOS)
      return "iOS"
    #elseif os(tvOS)
      return "tvOS"
    #elseif os(watchOS)
      return "watchOS"
    #elseif os(visionOS)
      return "visionOS"
    #elseif os(Linux)
      return "Linux"
    #else
      return "this platform"
    #endif
  }

  /// Whether this is one of Apple's platforms (the system frameworks stand in for the Linux
  /// libraries there).
  public static var isApple: Bool {
    #if canImport(Darwin)
      return true
    #else
      return false
    #endif
  }

  /// Whether this is Linux (epoll, io_uring and the built-in mDNS responder's packet info).
  public static var isLinux: Bool {
    #if os(Linux)
      return true
    #else
      return false
    #endif
  }
}
