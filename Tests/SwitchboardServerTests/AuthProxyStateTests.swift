import SwitchboardAuth
import SwitchboardIO
import SwitchboardTestSupport
import Testing

@testable import SwitchboardServer

/// The auth proxy's per-connection state machine and its answer cache, without sockets.
@Suite(.onTestThreads)
struct AuthProxyStateTests {
  let target = AuthProxyTarget(room: "lobby")

  private func request(_ name: String?) -> AuthProxyRequest {
    AuthProxyRequest(transport: "tcp", peer: "127.0.0.1", name: name, room: "lobby")
  }

  @Test func withoutAProxyNothingIsIntercepted() {
    var state = AuthProxyState(proxy: false, room: "lobby")
    #expect(!state.intercepts)
    let asked = state.ask(request("alice"), target: target, held: [], timer: nil)
    #expect(!asked)
    let held = state.hold(.text("hi"), limit: 10)
    #expect(held == .deliver)
    guard case .stale = state.decide(.success(.allow(name: nil, rooms: nil))) else {
      Issue.record("an answer without a question must be stale")
      return
    }
  }

  /// Every session holds one: without a proxy it costs a word (SessionFootprintTests).
  @Test func theStateIsOneWord() {
    #expect(MemoryLayout<AuthProxyState>.size == MemoryLayout<Int>.size)
  }

  @Test func anAllowAdmitsWithTheHeldInputInOrder() {
    var state = AuthProxyState(proxy: true, room: "lobby")
    #expect(state.intercepts)
    #expect(state.target == target)
    let asked = state.ask(request("alice"), target: target, held: [.text("first")], timer: nil)
    #expect(asked)
    let askedAgain = state.ask(request("again"), target: target, held: [], timer: nil)
    #expect(!askedAgain)
    let heldText = state.hold(.text("second"), limit: 100)
    #expect(heldText == .held)
    let heldBinary = state.hold(.binary([1, 2]), limit: 100)
    #expect(heldBinary == .held)
    guard
      case .admit(let grant, let to, let held, let askedName) = state.decide(
        .success(.allow(name: "al", rooms: nil)))
    else {
      Issue.record("not admitted")
      return
    }
    #expect(grant.name == "al")
    #expect(askedName == "alice")
    #expect(to == target)
    #expect(held == [.text("first"), .text("second"), .binary([1, 2])])
    #expect(!state.intercepts)
    #expect(state.grant == grant)
    // A second answer (the timeout's, say) changes nothing.
    guard case .stale = state.decide(.failure(.timedOut)) else {
      Issue.record("a late answer must be stale")
      return
    }
    #expect(state.grant == grant)
  }

  @Test func theNameAskedForStaysWhenTheAnswerGivesNone() {
    var state = AuthProxyState(proxy: true, room: "lobby")
    _ = state.ask(request("alice"), target: target, held: [], timer: nil)
    guard
      case .admit(let grant, _, _, _) = state.decide(
        .success(.allow(name: nil, rooms: [RoomPattern("team-*")!])))
    else {
      Issue.record("not admitted")
      return
    }
    #expect(grant.name == "alice")
    #expect(grant.allows(room: "team-a"))
    #expect(!grant.allows(room: "lobby"))
    #expect(grant.landingRoom(preferred: "lobby") == nil)
    #expect(
      AuthProxyGrant(name: nil, rooms: [RoomPattern("x*")!, RoomPattern("home")!], request: request(nil))
        .landingRoom(preferred: "lobby") == "home")
  }

  @Test func denialsFailuresAndOverflowRefuse() {
    var denied = AuthProxyState(proxy: true, room: "lobby")
    _ = denied.ask(request("bob"), target: target, held: [], timer: nil)
    guard case .deny(let reason) = denied.decide(.success(.deny(reason: "banned"))) else {
      Issue.record("not denied")
      return
    }
    #expect(reason == "banned")
    #expect(denied.intercepts)
    let afterDenial = denied.hold(.text("x"), limit: 100)
    #expect(afterDenial == .deliver)

    var failed = AuthProxyState(proxy: true, room: "lobby")
    _ = failed.ask(request(nil), target: target, held: [], timer: nil)
    guard case .fail(.request(.status(500))) = failed.decide(.failure(.request(.status(500)))) else {
      Issue.record("not failed")
      return
    }

    var flooded = AuthProxyState(proxy: true, room: "lobby")
    _ = flooded.ask(request(nil), target: target, held: [.text("12345")], timer: nil)
    let withinLimit = flooded.hold(.text("123"), limit: 8)
    #expect(withinLimit == .held)
    let overLimit = flooded.hold(.text("1"), limit: 8)
    #expect(overLimit == .overflow)
    guard case .stale = flooded.decide(.success(.allow(name: nil, rooms: nil))) else {
      Issue.record("a refused connection must not be admitted by a late answer")
      return
    }
  }

  @Test func aClosedConnectionDropsItsLateAnswer() {
    var state = AuthProxyState(proxy: true, room: "lobby")
    _ = state.ask(request("alice"), target: target, held: [], timer: nil)
    state.close()
    guard case .stale = state.decide(.success(.allow(name: nil, rooms: nil))) else {
      Issue.record("a closed connection must not be admitted")
      return
    }
  }

  @Test func aJoinIsAskedAboutOnlyWhenTheAdmissionGaveNoRoomsAndARefusalKeepsTheMember() {
    var state = AuthProxyState(proxy: true, room: "lobby")
    _ = state.ask(request("alice"), target: target, held: [], timer: nil)
    _ = state.decide(.success(.allow(name: "Alice", rooms: nil)))
    #expect(state.askToJoin(target, from: "lobby", timer: { nil }) == nil)
    let question = state.askToJoin(AuthProxyTarget(room: "team"), from: "lobby", timer: { nil })
    #expect(question?.room == "team" && question?.name == "Alice")
    #expect(state.intercepts)
    let held = state.hold(.text("after the join"), limit: 100)
    #expect(held == .held)
    guard case .joinRefused("not you", nil, let kept) = state.decide(.success(.deny(reason: "not you")))
    else {
      Issue.record("the join was not refused")
      return
    }
    #expect(kept == [.text("after the join")])
    #expect(state.grant?.name == "Alice")
    _ = state.askToJoin(AuthProxyTarget(room: "team"), from: "lobby", timer: { nil })
    guard case .joinRefused(_, .timedOut?, _) = state.decide(.failure(.timedOut)) else {
      Issue.record("a join without an answer was not refused")
      return
    }
    _ = state.askToJoin(AuthProxyTarget(room: "team"), from: "lobby", timer: { nil })
    guard
      case .join(let to, _) = state.decide(.success(.allow(name: "ignored", rooms: [RoomPattern("team")!])))
    else {
      Issue.record("the join was not allowed")
      return
    }
    #expect(to.room == "team")
    // The name stays; the join's answer's rooms now decide without asking.
    #expect(state.grant?.name == "Alice")
    #expect(state.askToJoin(AuthProxyTarget(room: "other"), from: "team", timer: { nil }) == nil)
  }

  @Test func theCacheKeepsAnswersForItsLifetimeOnly() {
    let start = Deadline.now()
    let cache = AuthProxyCache(lifetime: .seconds(2))
    cache.store(.deny(reason: "no"), for: "k", now: start)
    #expect(cache.answer(for: "k", now: start.adding(.seconds(1))) == .deny(reason: "no"))
    #expect(cache.answer(for: "other", now: start) == nil)
    #expect(cache.answer(for: "k", now: start.adding(.seconds(2))) == nil)
    let off = AuthProxyCache(lifetime: .zero)
    off.store(.deny(reason: "no"), for: "k", now: start)
    #expect(off.answer(for: "k", now: start) == nil)
  }
}
