import Foundation

#if os(Linux)
  /// The names of this process's threads, as `top -H` and `ps -L` show them
  /// (`/proc/self/task/*/comm`).
  public func threadNames() -> Set<String> {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return Set(
      tasks.compactMap { task in
        (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
          .trimmingCharacters(in: .newlines)
      })
  }
#endif
