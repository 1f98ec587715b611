import Foundation
import SwiftUI
import SwitchboardClient

/// The chat screen of an app: the room's transcript, who is in it, and a field to type in.
///
/// ```swift
/// @main struct ChatApp: App {
///   @State private var model = ChatScreen.makeModel(url: "ws://192.168.1.20:1337/", name: "ada")
///   var body: some Scene { WindowGroup { ChatScreen(model: model) } }
/// }
/// ```
public struct ChatScreen: View {
  let model: ChatViewModel
  @State private var draft = ""
  @Environment(\.scenePhase) private var scenePhase

  public init(model: ChatViewModel) {
    self.model = model
  }

  /// A model that resumes where the app left off last time: the resume point saved when
  /// it went to the background asks the server for exactly the messages missed since.
  /// (A URL that cannot be parsed shows up in the model as a notice, at `start()`.)
  @MainActor public static func makeModel(url: String, name: String, room: String = "lobby") -> ChatViewModel {
    // Typing indicators: the model keeps `typingMembers` (docs/CLIENT.md, "Typing indicators").
    var configuration = ChatClient.Configuration()
    configuration.features = [.typing]
    let saved = SavedResumePoint.load(room: room)
    return ChatViewModel(url: url, name: name, room: room, configuration: configuration, resumingFrom: saved)
  }

  public var body: some View {
    NavigationStack {
      List(model.messages) { item in
        MessageRow(item: item)
      }
      .safeAreaInset(edge: .bottom) {
        VStack(alignment: .leading, spacing: 4) {
          if let typing = Self.typing(model.typingMembers) {
            Text(typing).font(.caption).foregroundStyle(.secondary)
          }
          HStack {
            TextField("Message", text: $draft).onSubmit(send)
              .onChange(of: draft) { _, text in model.userIsTyping(text) }
            Button("Send", action: send).disabled(draft.isEmpty)
          }
        }
        .padding()
      }
      .navigationTitle("\(model.room) · \(model.members.count) here")
      .toolbar {
        ToolbarItem { Text(Self.status(model.connectionState)).font(.caption) }
      }
    }
    .task { model.start() }
    .onChange(of: scenePhase) { _, phase in
      switch phase {
      case .background:
        // iOS stops the app's sockets soon after it leaves the screen: close politely,
        // keep the outbox, and remember where the transcript ends.
        model.suspend()
        SavedResumePoint.save(model.resumePoint)
      case .active:
        model.resume()
      case .inactive:
        break
      @unknown default:
        break
      }
    }
  }

  private func send() {
    let text = draft
    draft = ""
    // A failed send shows up in the transcript as a notice; it waits while offline.
    Task { try? await model.send(text) }
  }

  /// `alice is typing…`, `alice and bob are typing…`; `nil` when nobody is.
  static func typing(_ names: [String]) -> String? {
    guard let last = names.last else { return nil }
    if names.count == 1 { return "\(last) is typing…" }
    return names.dropLast().joined(separator: ", ") + " and \(last) are typing…"
  }

  static func status(_ state: ChatViewModel.ConnectionState) -> String {
    switch state {
    case .idle: "not started"
    case .connecting: "connecting…"
    case .connected: "connected"
    case .reconnecting(let attempt, _): "reconnecting (\(attempt))…"
    case .disconnected(let reason): reason
    }
  }
}

/// One row: a message (mine on the right) or a notice.
struct MessageRow: View {
  let item: ChatViewModel.Item

  var body: some View {
    switch item.kind {
    case .notice:
      Text(item.text).font(.footnote).foregroundStyle(.secondary)
    case .message:
      VStack(alignment: item.isMine ? .trailing : .leading) {
        if !item.isMine { Text(item.author).font(.caption).foregroundStyle(.secondary) }
        Text(item.text)
      }
      .frame(maxWidth: .infinity, alignment: item.isMine ? .trailing : .leading)
    }
  }
}

/// The resume point kept across launches, as JSON in `UserDefaults`.
enum SavedResumePoint {
  static let key = "switchboard.resumePoint"

  static func save(_ point: ChatResumePoint?) {
    guard let point, let data = try? JSONEncoder().encode(point) else { return }
    UserDefaults.standard.set(data, forKey: key)
  }

  static func load(room: String) -> ChatResumePoint? {
    guard let data = UserDefaults.standard.data(forKey: key),
      let point = try? JSONDecoder().decode(ChatResumePoint.self, from: data), point.room == room
    else { return nil }
    return point
  }
}
