import SwitchboardRESP
import SwitchboardTestSupport

/// ``RESPDecoder/decodeAll(_:limits:)``, shorter.
func decodeAll(_ chunks: [[UInt8]], limits: RESPLimits = .default) -> (values: [RESPValue], error: RESPError?)
{
  RESPDecoder.decodeAll(chunks, limits: limits)
}

/// The UTF-8 bytes of `text` (RESP vectors are written with their `\r\n`).
func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
