extension ChatClient.Configuration {
  /// The platform's resolver, the default of ``resolver``: ``NetworkServiceResolver``
  /// (Network.framework's `NWBrowser`, through mDNSResponder) where Network.framework exists,
  /// ``DNSSDResolver`` on ``DiscoveryBackend/auto`` elsewhere. Both wait up to 5 s.
  public static var platformResolver: any ChatServiceResolver {
    #if canImport(Network)
      NetworkServiceResolver()
    #else
      DNSSDResolver()
    #endif
  }
}
