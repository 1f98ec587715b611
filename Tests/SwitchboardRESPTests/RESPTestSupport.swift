import SwitchboardRESP
import SwitchboardTestSupport

/// Decodes everything in `chunks` (appended one after another), returning the values and
/// the error that ended decoding, if any.
func decodeAll(_ chunks: [[UInt8]], limits: RESPLimits = .default) -> (values: [RESPValue], error: RESPError?)
{
  var decoder = RESPDecoder(limits: limits)
  var values: [RESPValue] = []
  do {
    for chunk in chunks {
      try decoder.append(chunk)
      while let value = try decoder.next() { values.append(value) }
    }
  } catch {
    return (values, error)
  }
  return (values, nil)
}

/// The UTF-8 bytes of `text` (RESP vectors are written with their `\r\n`).
func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
