import Foundation
import PackagePlugin

/// Gives the target a generated `BuildCommit.swift` holding the git commit being built
/// (`abcdef1`, `abcdef1-dirty`, or `unknown` outside a git checkout), for `--version`.
///
/// The `build-commit` tool that writes it runs only when one of its inputs changed: the
/// git files a commit, checkout or `git add` touches (HEAD, its reflog,
/// packed-refs, the index) and the package's source files (an edit may make the tree
/// dirty). It rewrites the file only when the text changes, so an ordinary incremental
/// build recompiles nothing for it. Edits outside the targets' sources (docs, scripts)
/// show as `-dirty` from the next build that runs the tool.
@main
struct BuildCommitPlugin: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
    let root = context.package.directoryURL
    let output = context.pluginWorkDirectoryURL.appendingPathComponent("BuildCommit.swift")
    var inputs = GitFiles(root: root).watched
    inputs.append(root.appendingPathComponent("Package.swift"))
    for case let module as SourceModuleTarget in context.package.targets {
      inputs += module.sourceFiles.map(\.url)
    }
    return [
      .buildCommand(
        displayName: "Recording the git commit for \(target.name)",
        executable: try context.tool(named: "build-commit").url,
        arguments: [root.path, output.path],
        inputFiles: inputs,
        outputFiles: [output])
    ]
  }
}

/// The files of a git checkout that change when HEAD moves, the branch moves or the
/// index changes. Handles linked worktrees, whose `.git` is a file naming the real
/// directory (with `commondir` pointing at the shared refs).
struct GitFiles {
  var watched: [URL] = []

  init(root: URL) {
    let fileManager = FileManager.default
    let dotGit = root.appendingPathComponent(".git")
    var isDirectory: ObjCBool = false
    guard fileManager.fileExists(atPath: dotGit.path, isDirectory: &isDirectory) else { return }
    var gitDirectory = dotGit
    if !isDirectory.boolValue {
      guard let text = try? String(contentsOf: dotGit, encoding: .utf8), text.hasPrefix("gitdir:") else {
        return
      }
      let path = text.dropFirst("gitdir:".count).trimmingCharacters(in: .whitespacesAndNewlines)
      gitDirectory = path.hasPrefix("/") ? URL(fileURLWithPath: path) : root.appendingPathComponent(path)
    }
    var commonDirectory = gitDirectory
    if let text = try? String(contentsOf: gitDirectory.appendingPathComponent("commondir"), encoding: .utf8) {
      let path = text.trimmingCharacters(in: .whitespacesAndNewlines)
      commonDirectory =
        path.hasPrefix("/") ? URL(fileURLWithPath: path) : gitDirectory.appendingPathComponent(path)
    }
    let head = gitDirectory.appendingPathComponent("HEAD")
    var candidates = [
      head, gitDirectory.appendingPathComponent("index"),
      commonDirectory.appendingPathComponent("packed-refs"),
    ]
    if !isDirectory.boolValue { candidates.append(dotGit) }
    // HEAD's reflog gets a line on every commit, checkout, merge and reset, and `git
    // pack-refs`/`gc` never deletes it — the branch's loose ref file, watched before, can
    // vanish into packed-refs, and a vanished input fails the next build. Without a reflog
    // (core.logAllRefUpdates off) the branch's ref is the fallback.
    let reflog = gitDirectory.appendingPathComponent("logs/HEAD")
    if fileManager.fileExists(atPath: reflog.path) {
      candidates.append(reflog)
    } else if let text = try? String(contentsOf: head, encoding: .utf8), text.hasPrefix("ref:") {
      let ref = text.dropFirst("ref:".count).trimmingCharacters(in: .whitespacesAndNewlines)
      candidates.append(commonDirectory.appendingPathComponent(ref))
    }
    // A missing input would make the command look out of date on every build.
    watched = candidates.filter { fileManager.fileExists(atPath: $0.path) }
  }
}
