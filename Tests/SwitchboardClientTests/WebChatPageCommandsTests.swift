import Foundation
import SwitchboardClient
import SwitchboardTestSupport
import Testing

@testable import SwitchboardServer

/// The web page's command table is the client library's (``ChatInput/commands``), row for
/// row, so `/help` lists the same commands on the page as in `switchboard chat` and an app.
@Suite(.onTestThreads)
struct WebChatPageCommandsTests {
  @Test func thePagesCommandTableIsChatInputs() throws {
    let html = WebChatPage.html
    let start = try #require(html.range(of: "const COMMANDS = ["))
    let end = try #require(html.range(of: "];", range: start.upperBound..<html.endIndex))
    let table = html[start.upperBound..<end.lowerBound]
    let rows = try Regex(#"\["([^"]*)", "([^"]*)"\]"#)
    let page = table.matches(of: rows).map {
      ChatInput.Command(usage: String($0.output[1].substring!), summary: String($0.output[2].substring!))
    }
    #expect(page == ChatInput.commands)
    #expect(page.count == 9)
  }
}
