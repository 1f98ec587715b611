/// How an ``MDNSResponder`` behaves: its host name, the interfaces it works on, and the RFC
/// 6762 timings and TTLs (defaults are the RFC's and what avahi and mDNSResponder use).
public struct MDNSResponderConfiguration: Sendable {
  /// The host name label (`vm` publishes `vm.local`); renamed `vm-2`, `vm-3`… on conflict.
  public var hostName: String
  /// The interfaces to probe, announce and answer on.
  public var interfaces: [MDNSInterface]
  /// Probes per name before it is ours (RFC 6762 §8.1: three).
  public var probeCount = 3
  /// Time between probes (RFC 6762 §8.1: 250 ms).
  public var probeInterval: Duration = .milliseconds(250)
  /// Upper bound of the random delay before the first probe (RFC 6762 §8.1: 0–250 ms).
  public var initialProbeDelay: Duration = .milliseconds(250)
  /// How long a responder that lost a simultaneous-probe tiebreak waits before probing
  /// again (RFC 6762 §8.2: one second).
  public var tiebreakDelay: Duration = .seconds(1)
  /// Unsolicited announcements (RFC 6762 §8.3: at least two).
  public var announceCount = 3
  /// Time between announcements (RFC 6762 §8.3: one second, at least).
  public var announceInterval: Duration = .seconds(1)
  /// Range of the random delay of an answer that includes shared records (RFC 6762 §6:
  /// 20–120 ms), so that answers from several responders can be suppressed.
  public var sharedAnswerDelay: ClosedRange<Int> = 20...120
  /// A record is multicast at most once per this interval on one interface (RFC 6762 §6),
  /// except in answer to a probe.
  public var rateLimit: Duration = .seconds(1)
  /// The rate limit for answers that defend a name against a probe (RFC 6762 §6: 250 ms).
  public var probeDefenseRateLimit: Duration = .milliseconds(250)
  /// Renames per name before giving up with ``DiscoveryError/nameConflict`` (so nothing
  /// ever becomes `Name (50)`).
  public var maxRenames = 10
  /// TTL of A, AAAA and SRV records (RFC 6762 §10: 120 s for records with a host name).
  public var hostRecordTTL: UInt32 = 120
  /// TTL of PTR and TXT records (RFC 6762 §10: 75 minutes).
  public var otherRecordTTL: UInt32 = 4500
  /// TTLs in answers to legacy unicast queries are capped to this (RFC 6762 §6.7: 10 s).
  public var legacyUnicastTTL: UInt32 = 10
  /// Legacy unicast answers (RFC 6762 §6.7) one source address may get at once; then one more
  /// per ``legacyUnicastInterval``. Each answer can be a full packet, so this bounds what a
  /// querier with a forged on-link source can have sent to it.
  public var legacyUnicastBurst = 8
  /// The refill interval of ``legacyUnicastBurst`` (two answers a second).
  public var legacyUnicastInterval: Duration = .milliseconds(500)
  /// Sources whose legacy unicast allowance is tracked at once; beyond this, a new source is
  /// not answered until an old one has been quiet long enough to be forgotten.
  public var maxLegacyUnicastSources = 256
  /// Conflicts (of any of our names) within ``conflictWindow`` after which each new round of
  /// probing waits ``conflictPause`` (RFC 6762 §8.1: fifteen). ``maxRenames`` still applies.
  public var conflictLimit = 15
  /// The window ``conflictLimit`` counts in (RFC 6762 §8.1: ten seconds).
  public var conflictWindow: Duration = .seconds(10)
  /// The wait before probing again while the limit is reached (RFC 6762 §8.1: at least five
  /// seconds).
  public var conflictPause: Duration = .seconds(5)
  /// The largest message payload aimed for, in bytes (RFC 6762 §17: the interface MTU; 1452
  /// is Ethernet's 1500 less IPv6 and UDP headers, so one size serves both families). Larger
  /// responses are split into several packets; a single record bigger than this goes alone.
  /// Values below 512 are taken as 512.
  public var maxMessageSize = MDNSPacketSplitter.defaultLimit
  /// Range, in milliseconds, of the wait before answering a query with the TC bit set, during
  /// which later packets from the same querier add known answers (RFC 6762 §7.2: 400–500 ms).
  public var knownAnswerWait: ClosedRange<Int> = 400...500
  /// Queriers whose TC queries are held at once; a TC query beyond this is answered at once
  /// with the known answers it carries (so a flood of them costs bounded memory).
  public var maxDeferredQueries = 32
  /// Questions and known answers kept per held TC query; more are ignored (suppression is
  /// then incomplete, so an answer may be sent that was not needed, never the reverse).
  public var maxDeferredRecords = 4096
  /// Seed of the random delays (tests fix it).
  public var randomSeed: UInt64

  /// A configuration for `hostName` on `interfaces`, random delays seeded from the system.
  public init(hostName: String, interfaces: [MDNSInterface], randomSeed: UInt64 = .random(in: 0...UInt64.max))
  {
    self.hostName = hostName
    self.interfaces = interfaces
    self.randomSeed = randomSeed
  }
}
