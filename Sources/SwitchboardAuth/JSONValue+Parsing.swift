extension JSONValue {
  /// Why ``init(parsing:maxDepth:)`` refused a text: what was wrong and where (a byte
  /// offset), for the answer to whoever sent it.
  public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String
  }

  /// Parses one strict JSON text (RFC 8259; the rules of the tokens' own parser: no
  /// duplicate member names, no trailing commas, valid UTF-8 only) nested at most
  /// `maxDepth` deep. For small documents from outside (the server API's request bodies):
  /// the whole text is held as a value.
  /// - Throws: ``ParseError`` for anything else.
  public init(parsing bytes: [UInt8], maxDepth: Int = 16) throws(ParseError) {
    do throws(JSONParser.Failure) {
      self = try JSONParser.parse(bytes, maxDepth: maxDepth)
    } catch {
      switch error {
      case .tooDeep: throw ParseError(description: "nested deeper than \(maxDepth)")
      case .malformed(let why): throw ParseError(description: why)
      }
    }
  }

  /// The members, if this is an object.
  public var objectValue: [String: JSONValue]? {
    if case .object(let members) = self { return members }
    return nil
  }

  /// The elements, if this is an array.
  public var arrayValue: [JSONValue]? {
    if case .array(let items) = self { return items }
    return nil
  }
}
