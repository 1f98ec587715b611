import Foundation

/// What every libFuzzer target of the package shares: the entry used by libFuzzer, the
/// replay program of a plain build, the property check that crashes, and the cutting of
/// one input into the pieces a socket could deliver.
///
/// A target `Sources/fuzz-NAME` has one `check(_ bytes: [UInt8])` and, around it, one
/// `#if FUZZ_NAME` block: with the flag (`scripts/fuzz` sets it) `LLVMFuzzerTestOneInput`
/// calls ``one(_:_:_:)``; without it (any plain `swift build`) a `@main` calls
/// ``replay(_:)``, which runs the same check on the files and folders on its command line.
public enum Fuzz {
  /// libFuzzer's input as an array, through `check`; always 0 (a failed check crashes).
  public static func one(_ data: UnsafePointer<UInt8>?, _ size: Int, _ check: ([UInt8]) -> Void) -> Int32 {
    check(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
  }

  /// Replays every file named on the command line, and every file inside a folder named
  /// there, through `check`; prints how many and exits 1 if one could not be read (a
  /// failed check has crashed before).
  public static func replay(_ check: ([UInt8]) -> Void) -> Never {
    let name = (CommandLine.arguments.first ?? "fuzz").split(separator: "/").last.map(String.init) ?? "fuzz"
    let paths = CommandLine.arguments.dropFirst()
    if paths.isEmpty {
      print("usage: \(name) FILE|DIR... (replays inputs; scripts/fuzz builds the fuzzer)")
    }
    var count = 0
    var failed = false
    for path in paths {
      for file in files(at: path) {
        guard let data = FileManager.default.contents(atPath: file) else {
          print("\(name): cannot read \(file)")
          failed = true
          continue
        }
        check(Array(data))
        count += 1
      }
    }
    print("\(name): \(count) inputs replayed")
    exit(failed ? 1 : 0)
  }

  /// `path` itself, or the regular files directly inside it when it is a folder (sorted).
  private static func files(at path: String) -> [String] {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
      return [path]
    }
    let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    return names.sorted().map { path + "/" + $0 }.filter {
      var inner: ObjCBool = false
      return FileManager.default.fileExists(atPath: $0, isDirectory: &inner) && !inner.boolValue
    }
  }

  /// Crashes with `message` unless `condition` holds: how a property tells libFuzzer (which
  /// saves the input) and the replay program that it failed.
  public static func require(
    _ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line
  ) {
    if !condition { fatalError("property failed: \(message())", file: file, line: line) }
  }

  /// Feeds `chunks` one after the other to `decoder`, taking every item after each: the items
  /// and the error that stopped it (if any). `decoder` is any incremental decoder of the
  /// package, through its own `append` and `next`.
  public static func decodeAll<Decoder, Item, Failure: Error>(
    _ chunks: [[UInt8]], with decoder: Decoder, append: (inout Decoder, [UInt8]) -> Void,
    next: (inout Decoder) throws(Failure) -> Item?
  ) -> (items: [Item], error: Failure?) {
    var decoder = decoder
    var items: [Item] = []
    for chunk in chunks {
      append(&decoder, chunk)
      do {
        while let item = try next(&decoder) { items.append(item) }
      } catch {
        return (items, error)
      }
    }
    return (items, nil)
  }

  /// `bytes` cut into pieces at places derived from `seed`: the same input delivered the
  /// way a socket might (one byte, a few, the rest). Joined, the pieces are `bytes`.
  public static func pieces(_ bytes: [UInt8], seed: UInt8) -> [[UInt8]] {
    var state = UInt32(seed) &* 2_654_435_761 | 1
    var result: [[UInt8]] = []
    var start = 0
    while start < bytes.count {
      state = state &* 1_103_515_245 &+ 12345
      let size = [1, 2, 3, 7, 16, 100][Int(state >> 16) % 6]
      let end = min(bytes.count, start + size)
      result.append(Array(bytes[start..<end]))
      start = end
    }
    return result
  }
}
