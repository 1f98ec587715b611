import SwitchboardRedis
import SwitchboardTestSupport
import Testing

/// `redis://` and `rediss://` URLs: every part, the defaults, and what is refused.
@Suite(.onTestThreads) struct RedisURLTests {
  @Test func aFullURLHasEveryPart() throws {
    let url = try RedisURL("redis://alice:s%40cret@cache.example:6380/3")
    #expect(
      url == RedisURL(host: "cache.example", port: 6380, user: "alice", password: "s@cret", database: 3))
    #expect(!url.tls)
  }

  @Test func theDefaultsArePort6379AndDatabase0() throws {
    #expect(try RedisURL("redis://127.0.0.1") == RedisURL(host: "127.0.0.1"))
    #expect(try RedisURL("rediss://h/") == RedisURL(host: "h", tls: true))
  }

  @Test func anEmptyUserMeansPasswordOnly() throws {
    let url = try RedisURL("redis://:secret@h:1")
    #expect(url.user == nil && url.password == "secret")
    let userOnly = try RedisURL("redis://bob@h")
    #expect(userOnly.user == "bob" && userOnly.password == nil)
  }

  @Test func anIPv6HostIsWrittenInBrackets() throws {
    let url = try RedisURL("rediss://[::1]:7000/2")
    #expect(url.host == "::1" && url.port == 7000 && url.database == 2 && url.tls)
    #expect(url.description == "rediss://[::1]:7000/2")
  }

  @Test func thePasswordIsHiddenInTheDescription() throws {
    #expect(try RedisURL("redis://u:p@h:1/0").description == "redis://u:***@h:1")
  }

  @Test(arguments: [
    "http://h", "redis://", "redis://:pw@", "redis://h:0", "redis://h:70000", "redis://h:x", "redis://h/-1",
    "redis://h/db", "redis://[::1", "redis://[::1]x",
  ])
  func invalidURLsAreRefused(text: String) {
    let error = #expect(throws: RedisError.self) { try RedisURL(text) }
    #expect(error?.kind == .invalidURL)
  }
}
