import SwitchboardTestSupport
import Testing

@testable import SwitchboardAuth

/// The `rooms` claim's two forms (docs/SECURITY.md, "Capabilities"): the list granting all
/// four capabilities, the object granting the ones it names; the `--rooms` spelling.
@Suite(
  .onTestThreads,
  .enabled(ifAvailable: TokenSupport.isAvailable, "needs a crypto library for tokens (TokenSupport)"))
struct RoomCapabilitiesTests {
  let verifier = TokenVerifier(keys: [HandMade.key])

  func claims(_ rooms: String) throws -> TokenClaims {
    try verifier.verify(HandMade.token(payload: HandMade.claims(extra: #""rooms":"# + rooms)), now: testNow).claims
  }

  func refusal(_ rooms: String) -> TokenError? {
    do {
      _ = try claims(rooms)
      return nil
    } catch let error as TokenError {
      return error
    } catch {
      return nil
    }
  }

  @Test func theListFormGrantsEveryCapabilityInTheRoomsItNames() throws {
    let c = try claims(#"["news","team-*"]"#)
    #expect(c.capabilities(in: "news") == .all)
    #expect(c.capabilities(in: "team-a") == .all)
    #expect(c.capabilities(in: "other").isEmpty)
    #expect(c.allows(room: "team-a") && !c.allows(room: "other"))
    #expect(c.rooms.map(\.text) == ["news", "team-*"])
  }

  @Test func theObjectFormGrantsWhatItNamesAndMatchingGrantsAddUp() throws {
    let c = try claims(#"{"news":["subscribe"],"team-*":["subscribe","publish","presence","history"],"n*":["history"]}"#)
    #expect(c.capabilities(in: "news") == [.subscribe, .history])
    #expect(c.capabilities(in: "team-a") == .all)
    #expect(c.capabilities(in: "nope") == [.history])
    // Without subscribe a grant does not let the holder join.
    #expect(!c.allows(room: "nope"))
    #expect(c.allows(room: "news"))
    #expect(try claims(#"{"quiet":[]}"#).capabilities(in: "quiet").isEmpty)
  }

  @Test(arguments: [
    #"{"news":["subscribe","fly"]}"#, #"{"news":"subscribe"}"#, #"{"news":[1]}"#, #"{"bad room":["subscribe"]}"#,
    #"{"news":["Subscribe"]}"#, #""news""#, "42",
    #"{"news":["subscribe","publish","presence","history","subscribe","publish","presence","history","history"]}"#,
  ])
  func aBadRoomsClaimIsInvalid(_ rooms: String) {
    #expect(refusal(rooms) == .invalidClaim, "\(rooms)")
  }

  @Test func theObjectFormCountsAgainstTheRoomLimit() {
    let members = (0...TokenLimits.defaultMaxRooms).map { #""r\#($0)":["subscribe"]"# }.joined(separator: ",")
    #expect(refusal("{" + members + "}") == .tooLarge)
  }

  @Test func mintedClaimsUseTheListFormUnlessAGrantIsNarrower() throws {
    let all = TokenClaims(subject: "a", grants: [RoomGrant(RoomPattern("news")!)])
    #expect(all.all["rooms"] == .array([.string("news")]))
    let narrow = TokenClaims(
      subject: "a",
      grants: [RoomGrant(RoomPattern("news")!, .subscribe), RoomGrant(RoomPattern("team-*")!)])
    #expect(
      narrow.all["rooms"]
        == .object([
          "news": .array([.string("subscribe")]),
          "team-*": .array(["subscribe", "publish", "presence", "history"].map { .string($0) }),
        ]))
    // Signed and read back: the same grants.
    let token = try TokenSigner.sign(
      TokenClaims(subject: "a", grants: narrow.grants, expiresAt: testNow + 60), with: HandMade.key)
    let back = try verifier.verify(token, now: testNow).claims
    #expect(Set(back.grants) == Set(narrow.grants))
  }

  @Test func theRoomsFlagSpellingReadsAndPrints() throws {
    let grant = try #require(RoomGrant(parsing: "team-*=subscribe+publish"))
    #expect(grant.pattern.text == "team-*" && grant.capabilities == [.subscribe, .publish])
    #expect(grant.description == "team-*=subscribe+publish")
    #expect(RoomGrant(parsing: "news")?.capabilities == .all)
    #expect(RoomGrant(parsing: "news")?.description == "news")
    for bad in ["news=", "news=fly", "news=subscribe+", "=subscribe", "a b=subscribe", "news=subscribe=publish"] {
      #expect(RoomGrant(parsing: bad) == nil, "\(bad)")
    }
  }
}
