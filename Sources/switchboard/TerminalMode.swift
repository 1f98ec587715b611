import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The terminal's modes for the full-screen commands (`chat`, `top`): raw input on the
/// alternate screen, and back. The settings found are kept in globals so that a signal
/// handler can put them back (``restore()`` calls only `tcsetattr` and `write`).
enum TerminalMode {
  /// Saves the terminal's settings, reads keys one at a time without echo or signals
  /// (Ctrl-C arrives as byte 3), and switches to the alternate screen.
  static func enterRaw() {
    tcgetattr(0, &savedTermios)
    termiosSaved = true
    var raw = savedTermios
    raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
    raw.c_iflag &= ~tcflag_t(IXON | ICRNL | BRKINT | INPCK | ISTRIP)
    // c_cc is a tuple whose length and indices differ (VMIN is 6 on Linux, 16 on Darwin).
    withUnsafeMutableBytes(of: &raw.c_cc) { cc in
      cc[Int(VMIN)] = 1
      cc[Int(VTIME)] = 0
    }
    tcsetattr(0, TCSAFLUSH, &raw)
    FileHandle.standardOutput.write(Data("\u{1B}[?1049h".utf8))
  }

  /// Puts back the settings ``enterRaw()`` found, shows the cursor and leaves the alternate
  /// screen; nothing when the terminal was never switched.
  static func restore() {
    guard termiosSaved else { return }
    var t = savedTermios
    tcsetattr(0, TCSAFLUSH, &t)
    let leave = "\u{1B}[?25h\u{1B}[?1049l"
    _ = leave.withCString { write(1, $0, strlen($0)) }
  }

  /// Restores the terminal and ends the process (130, as a shell reports SIGINT) on
  /// SIGINT, SIGTERM and SIGHUP.
  static func restoreOnSignals() {
    for sig in [SIGINT, SIGTERM, SIGHUP] {
      signal(sig) { _ in
        TerminalMode.restore()
        _exit(130)
      }
    }
  }

  /// One line read from the terminal on stdin with echo off (a password), or `nil` at the
  /// end of input. The prompt goes to stderr, so that stdout stays the command's.
  static func readSecretLine(prompt: String) -> String? {
    FileHandle.standardError.write(Data(prompt.utf8))
    var saved = termios()
    tcgetattr(0, &saved)
    var quiet = saved
    quiet.c_lflag &= ~tcflag_t(ECHO)
    tcsetattr(0, TCSAFLUSH, &quiet)
    defer {
      tcsetattr(0, TCSAFLUSH, &saved)
      FileHandle.standardError.write(Data("\n".utf8))
    }
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while true {
      let n = read(0, &byte, 1)
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { return line.isEmpty ? nil : String(decoding: line, as: UTF8.self) }
      if byte == 0x0A || byte == 0x0D { return String(decoding: line, as: UTF8.self) }
      line.append(byte)
    }
  }
}

/// The settings found before raw mode, for ``TerminalMode/restore()`` (a signal handler may
/// call it, so they live where it can reach them without locks).
nonisolated(unsafe) private var savedTermios = termios()
nonisolated(unsafe) private var termiosSaved = false
