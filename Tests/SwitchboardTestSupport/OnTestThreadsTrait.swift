import Testing

/// Runs each test of a suite (or one test) on ``TestThreadPool``, off Swift's cooperative
/// pool: `@Suite(.onTestThreads)`. Every suite in this package carries it, because their
/// tests block threads — on sockets, child processes, semaphores, deadline polls, or just
/// long CPU-bound loops — and a blocked cooperative thread (two on a 2-core machine)
/// starves the async code under test in every other suite of the same `swift test` run.
///
/// The test's task prefers the pool as its executor (`withTaskExecutorPreference`), so its
/// synchronous code and its child tasks (`async let`, task groups) run there; unstructured
/// `Task {}` it creates, and the libraries' own tasks, stay on the cooperative pool, which
/// the tests no longer block.
public struct OnTestThreadsTrait: SuiteTrait, TestTrait, TestScoping {
  public var isRecursive: Bool { true }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    try await withTaskExecutorPreference(TestThreadPool.shared) { try await function() }
  }
}

extension Trait where Self == OnTestThreadsTrait {
  /// Runs the tests on ``TestThreadPool``, where they may block a thread.
  public static var onTestThreads: Self { Self() }
}

extension Trait where Self == ConditionTrait {
  /// `.enabled(ifAvailable:)` for a condition that may block — one that runs a program (`python3
  /// -c …`, `openssl version`), makes keys or reads the file system: it is evaluated on
  /// ``TestThreadPool``. Swift Testing evaluates conditions on the cooperative pool, and a
  /// lazily computed `static let` behind one blocks every thread that reaches it first
  /// (two on a 2-core machine) while its program waits for its turn to be spawned —
  /// stalling every async client library of the run meanwhile.
  public static func enabled(
    ifAvailable condition: @autoclosure @escaping @Sendable () -> Bool, _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) -> Self {
    .enabled(comment, sourceLocation: sourceLocation) {
      await withTaskExecutorPreference(TestThreadPool.shared) { condition() }
    }
  }
}
