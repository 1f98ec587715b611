import SwitchboardChat

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The few file-system calls the store needs, with errors that name the path.
enum FileSystem {
  /// The mode of a data directory this creates: its owner's only, since the history of a
  /// restricted room is in it (missing parents get the usual 0755).
  static let privateDirectoryMode: mode_t = 0o700
  /// The mode of a database file this creates; SQLite gives its `-wal` and `-shm` files the
  /// database file's mode.
  static let privateFileMode: mode_t = 0o600

  /// Creates `directory` (mode ``privateDirectoryMode``) and its missing parents (like
  /// `mkdir -p`) and checks the result is a writable directory.
  /// - Throws: `cannot open history at DIR: CAUSE`.
  static func prepareDirectory(_ directory: String) throws(StoreError) {
    func fail(_ cause: String) -> StoreError { .cannotOpen("cannot open history at \(directory): \(cause)") }
    guard !directory.isEmpty else { throw fail("empty directory path") }
    var prefix = directory.hasPrefix("/") ? "/" : ""
    let components = directory.split(separator: "/")
    for (index, component) in components.enumerated() {
      prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + component
      if isDirectory(prefix) { continue }
      let mode = index == components.count - 1 ? privateDirectoryMode : 0o755
      if mkdir(prefix, mode) != 0 && errno != EEXIST {
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

  /// Creates `path` as an empty file of mode ``privateFileMode`` when it does not exist (an
  /// empty file is a new SQLite database), so that SQLite, which creates files 0644 less the
  /// umask, opens one only its owner can read. An existing file is left as it is.
  /// - Throws: `cannot open history at PATH: CAUSE`.
  static func createPrivateFile(_ path: String) throws(StoreError) {
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, privateFileMode)
    if fd >= 0 {
      close(fd)
      return
    }
    let code = errno
    guard code == EEXIST else { throw StoreError.cannotOpen("cannot open history at \(path): \(describe(code))") }
  }

  /// The permission bits of `path` when its group or others have any (`nil` otherwise, and
  /// for a missing path).
  static func sharedMode(_ path: String) -> mode_t? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    let mode = info.st_mode & 0o777
    return mode & 0o077 != 0 ? mode : nil
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
