import SwitchboardChat

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The few file-system calls the store needs, with errors that name the path.
enum FileSystem {
  /// Creates `directory` and its missing parents (like `mkdir -p`) and checks the result
  /// is a writable directory.
  /// - Throws: `cannot open history at DIR: CAUSE`.
  static func prepareDirectory(_ directory: String) throws(StoreError) {
    func fail(_ cause: String) -> StoreError { StoreError("cannot open history at \(directory): \(cause)") }
    guard !directory.isEmpty else { throw fail("empty directory path") }
    var prefix = directory.hasPrefix("/") ? "/" : ""
    for component in directory.split(separator: "/") {
      prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + component
      if isDirectory(prefix) { continue }
      if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
        let code = errno
        throw fail("cannot create directory \(prefix): \(describe(code))")
      }
      guard isDirectory(prefix) else {
        throw fail(prefix == directory ? "not a directory" : "\(prefix) is not a directory")
      }
    }
    // access(2) does not stop root, whose writes succeed anyway; for others this turns
    // SQLite's vague "unable to open database file" into the real cause.
    if access(directory, W_OK | X_OK) != 0 {
      let code = errno
      throw fail("directory is not writable: \(describe(code))")
    }
  }

  static func isDirectory(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
  }

  static func isRegularFile(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
  }

  static func describe(_ code: Int32) -> String {
    String(cString: strerror(code))
  }
}
