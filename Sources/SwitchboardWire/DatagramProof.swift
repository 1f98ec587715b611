/// How a UDP sender shows the server that it receives at its source address, on the wire
/// (docs/PROTOCOLS.md, "UDP dialect"): the lines the server offers and accepts and the
/// datagrams a client answers with, in one place so that the server and the client library
/// agree.
///
/// Until a source address has proven itself, the server sends it no more than three times
/// the bytes it received from it (besides the seed's `Server received:` echo), so a
/// datagram with a forged source address cannot make the server flood the forged address.
/// The proof is a code the server offers in a short `* …` line (a MAC of the address and
/// the time, so the server keeps no state for it) that the sender sends back with
/// `/ok CODE`; only then does the address become a room member that receives the room.
public enum DatagramProof {
  /// The command a sender proves its address with: `/ok CODE`; `/ok` alone asks for a code.
  public static let command = "/ok"
  /// What the offer line says before and after the code. Short on purpose: the server may
  /// send it to an address once that has sent a third of it (a line of a dozen bytes).
  static let offerPrefix = "* send /ok "
  static let offerSuffix = " to chat"
  /// What the acceptance line starts with.
  static let acceptancePrefix = "* ok, you are in "
  /// How many characters a code has (lowercase hexadecimal).
  public static let codeLength = 16
  /// The length of a client's first datagram (``request``): at least a third of the
  /// longest answer an unproven address can get (the auth refusal, about 100 bytes), so
  /// the first answer is never held back. QUIC pads its first packet for the same reason.
  public static let requestLength = 64

  /// The offer line (without its newline): `* send /ok CODE to chat`.
  public static func offer(code: String) -> String { offerPrefix + code + offerSuffix }

  /// The code an offer line carries, or `nil` when `line` is not an offer.
  public static func code(inOffer line: some StringProtocol) -> String? {
    let bytes = line.utf8
    guard bytes.count == offerPrefix.utf8.count + codeLength + offerSuffix.utf8.count,
      bytes.starts(with: offerPrefix.utf8), bytes.reversed().starts(with: offerSuffix.utf8.reversed())
    else { return nil }
    let code = bytes.dropFirst(offerPrefix.utf8.count).prefix(codeLength)
    guard code.allSatisfy(isCodeByte) else { return nil }
    return String(decoding: code, as: UTF8.self)
  }

  /// The answer to a good proof (without its newline): `* ok, you are in ROOM`.
  public static func acceptance(room: String) -> String { acceptancePrefix + room }

  /// Whether `line` is the server's acceptance of a proof.
  public static func isAcceptance(_ line: some StringProtocol) -> Bool {
    line.utf8.starts(with: acceptancePrefix.utf8)
  }

  /// A client's first datagram: `/ok` (asking for a code), padded with spaces to
  /// ``requestLength`` bytes so that the server may answer it.
  public static let request = command + String(repeating: " ", count: requestLength - command.utf8.count)

  /// The datagram that proves an address with `code`.
  public static func proof(code: String) -> String { command + " " + code }

  /// `code` normalized (lowercase) if it has the form of a code, else `nil`.
  public static func normalized(code: String) -> String? {
    let lower = code.lowercased()
    guard lower.utf8.count == codeLength, lower.utf8.allSatisfy(isCodeByte) else { return nil }
    return lower
  }

  private static func isCodeByte(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
      || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
  }
}
