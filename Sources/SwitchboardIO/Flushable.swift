/// Something with buffered output that the loop flushes once per iteration, so that many
/// frames appended during one iteration leave in one system call.
public protocol Flushable: AnyObject {
  /// Writes what is buffered (called by the loop at the end of an iteration).
  func flush()
}
