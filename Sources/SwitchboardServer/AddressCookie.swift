import SwitchboardIO
import SwitchboardWire

/// The codes the UDP port offers a source address to prove with (``DatagramProof``): a
/// SipHash-2-4 MAC, under a key drawn at random when the server starts, of the address
/// (with its port) and the current time slot. Stateless: the server remembers nothing per
/// offer, and checks a code by computing it again. Pure: the caller passes the time.
///
/// Only the holder of the address sees the code (the server sends it there), so echoing it
/// shows that the sender receives at that address. A code is good in the slot it was made
/// in and the next one (``slotLength`` to twice that), so a leaked one does not last; a
/// restart (a new key) voids them all.
struct AddressCookie: Sendable {
  private let k0: UInt64
  private let k1: UInt64
  /// How long one time slot lasts, in nanoseconds.
  let slotLength: UInt64

  /// Codes under a fresh random key.
  init(slotLength: Duration = .seconds(120)) {
    var random = SystemRandomNumberGenerator()
    self.init(k0: random.next(), k1: random.next(), slotLength: slotLength)
  }

  /// Codes under the given key (tests).
  init(k0: UInt64, k1: UInt64, slotLength: Duration = .seconds(120)) {
    self.k0 = k0
    self.k1 = k1
    self.slotLength = max(1, slotLength.nanoseconds)
  }

  /// The code for `address` at `now` (monotonic nanoseconds), ``DatagramProof/codeLength``
  /// lowercase hexadecimal digits.
  func code(for address: SocketAddress, now: UInt64) -> String {
    code(for: address, slot: now / slotLength)
  }

  /// Whether `code` is the code for `address` of the current or the previous slot
  /// (compared as normalized text; a code of another form never matches).
  func accepts(_ code: String, from address: SocketAddress, now: UInt64) -> Bool {
    guard let code = DatagramProof.normalized(code: code) else { return false }
    let slot = now / slotLength
    return code == self.code(for: address, slot: slot)
      || (slot > 0 && code == self.code(for: address, slot: slot - 1))
  }

  private func code(for address: SocketAddress, slot: UInt64) -> String {
    var mac = SipHash24(k0: k0, k1: k1)
    mac.combine(address.addressBytes)
    mac.combine(withUnsafeBytes(of: UInt16(truncatingIfNeeded: address.port).littleEndian) { Array($0) })
    mac.combine(withUnsafeBytes(of: address.scope.littleEndian) { Array($0) })
    mac.combine(withUnsafeBytes(of: slot.littleEndian) { Array($0) })
    let hex = String(mac.finalize(), radix: 16)
    return String(repeating: "0", count: DatagramProof.codeLength - hex.utf8.count) + hex
  }
}
