/// A command as a client sends it: an array of bulk strings (`*N`, then `$len` and the bytes
/// of each argument), binary-safe.
///
/// ```swift
/// let command = RESPCommand("SET", "room:lobby", "hello")
/// connection.write(command.encoded)
/// ```
public struct RESPCommand: Sendable, Hashable, CustomStringConvertible {
  /// The arguments, the command's name first.
  public var arguments: [[UInt8]]

  /// A command from its name and text arguments.
  public init(_ name: String, _ arguments: String...) {
    self.arguments = [Array(name.utf8)] + arguments.map { Array($0.utf8) }
  }

  /// A command from text arguments, the name first.
  public init(_ arguments: [String]) {
    self.arguments = arguments.map { Array($0.utf8) }
  }

  /// A command from binary arguments, the name first.
  public init(bytes arguments: [[UInt8]]) {
    self.arguments = arguments
  }

  /// The command's name in upper case (`""` for an empty command).
  public var name: String { arguments.first.map { String(decoding: $0, as: UTF8.self).uppercased() } ?? "" }

  /// Appends a text argument.
  public mutating func append(_ argument: String) { arguments.append(Array(argument.utf8)) }

  /// Appends a binary argument.
  public mutating func append(bytes argument: [UInt8]) { arguments.append(argument) }

  /// The wire form.
  public var encoded: [UInt8] {
    var bytes: [UInt8] = []
    encode(into: &bytes)
    return bytes
  }

  /// Appends the wire form to `bytes` (many commands into one buffer for a pipeline).
  public func encode(into bytes: inout [UInt8]) {
    // No reserveCapacity here: reserving the exact size on every call would defeat the
    // array's geometric growth, and a pipeline appends thousands of commands to one buffer.
    bytes.append(UInt8(ascii: "*"))
    bytes += String(arguments.count).utf8
    bytes += [0x0D, 0x0A]
    for argument in arguments {
      bytes.append(UInt8(ascii: "$"))
      bytes += String(argument.count).utf8
      bytes += [0x0D, 0x0A]
      bytes += argument
      bytes += [0x0D, 0x0A]
    }
  }

  /// The arguments joined by spaces (for logs; binary arguments show as replaced UTF-8).
  public var description: String {
    arguments.map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ")
  }
}
