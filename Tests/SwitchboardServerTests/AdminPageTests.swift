import Foundation
import SwitchboardHTTP
import Testing

@testable import SwitchboardServer

/// The admin page as bytes: its policy allows exactly its own inline style and script, it
/// names no other origin, and server data never goes through an HTML parser. (What it does in
/// a browser: AdminConsoleBrowserTests.)
@Suite(.onTestThreads)
struct AdminPageTests {
  /// The text of the only `<tag>…</tag>` element in the page.
  private func element(_ tag: String) throws -> Substring {
    let html = AdminPage.html
    let open = try #require(html.range(of: "<\(tag)>"))
    let close = try #require(html.range(of: "</\(tag)>", range: open.upperBound..<html.endIndex))
    #expect(html.range(of: "<\(tag)>", range: close.upperBound..<html.endIndex) == nil, "one <\(tag)> only")
    return html[open.upperBound..<close.lowerBound]
  }

  @Test func thePolicyAllowsTheInlineScriptAndStyleByTheirHashes() throws {
    let policy = AdminPage.contentSecurityPolicy
    let script = AdminPage.hashSource(String(try element("script")))
    let style = AdminPage.hashSource(String(try element("style")))
    #expect(policy.contains("script-src '\(script)';"))
    #expect(policy.contains("style-src '\(style)';"))
    #expect(policy.hasPrefix("default-src 'none';"))
    #expect(!policy.contains("unsafe"))
    // A 32-byte digest is 44 base64 characters.
    #expect(script.count == "sha256-".count + 44)
  }

  @Test func theHashSourceIsTheBase64OfSHA256() {
    // echo -n 'alert(1)' | openssl dgst -sha256 -binary | base64
    #expect(AdminPage.hashSource("alert(1)") == "sha256-bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI=")
  }

  @Test func thePageNamesNoOtherOrigin() {
    let html = AdminPage.html
    // The SVG namespace is a name, not a request; nothing else may name a scheme or host.
    let stripped = html.replacingOccurrences(of: "\"http://www.w3.org/2000/svg\"", with: "")
    for scheme in ["http://", "https://", "ws://", "wss://", "//cdn", "@import", "url("] {
      #expect(!stripped.contains(scheme), "the page names \(scheme)")
    }
    #expect(!html.contains("<link"))
    #expect(!html.contains("<img"))
  }

  @Test func serverDataNeverGoesThroughTheHTMLParser() {
    let script = AdminPage.script
    for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"] {
      #expect(!script.contains(sink), "the script uses \(sink)")
    }
  }

  @Test func theResponseCarriesThePolicyAndIsNeverFramedOrCached() {
    let response = AdminPage.response
    #expect(response.status == 200)
    #expect(response.headers["Content-Security-Policy"] == AdminPage.contentSecurityPolicy)
    #expect(response.headers["X-Frame-Options"] == "DENY")
    #expect(response.headers["Cache-Control"] == "no-store")
    #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
    #expect(response.body == Array(AdminPage.html.utf8))
  }
}
