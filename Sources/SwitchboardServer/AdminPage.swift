import SwitchboardCrypto
import SwitchboardHTTP
import SwitchboardWebSocket

/// The admin console's page, served at `GET /admin` when the server has an admin password.
///
/// One self-contained HTML file (no CDN, fonts, images or build step): its style and script
/// are inline and allowed by their SHA-256 hashes in `contentSecurityPolicy`, which permits
/// nothing but the server's own origin. It asks `GET /admin/session` whether it is logged in
/// (else shows the login form, which posts to `/admin/login`), reads the live view from
/// `GET /admin/events` with an `EventSource` (the `history` event once, a `snapshot` a second)
/// and draws it: nodes, connections by transport, rooms (sortable, filterable), charts as
/// inline SVG. `#room=NAME` shows one room (the stream again with `?room=NAME`): its members
/// with a disconnect button each, its messages as they arrive, and a form that publishes a
/// notice. Actions are `fetch` POSTs to `/admin/api/publish` and `/admin/api/disconnect` with
/// the session's `X-CSRF-Token`; their JSON answer is shown as it came. Everything the server
/// sends is put into the page with `textContent`, never parsed as HTML.
///
/// Stable element ids for browser tests: `#login` (`#login-form`, `#password`,
/// `#login-submit`, `#login-error`), `#app`, `#stream` (`data-state` connecting | live |
/// offline), `#node`, `#logout`, `#overview` (`#nodes` rows `tr[data-node]`; `#transports`
/// `[data-transport] dd`; `#charts` `figure[data-chart]`; `#room-filter`, `#rooms` rows
/// `tr[data-room]` with `.members` and `.rate` cells, headers `th[data-sort]`), `#room-view`
/// (`#room-title`, `#room-count`, `#room-rate`, `#back`; `#members` rows `tr[data-member]`
/// with `.transport`, `.address`, `.since`, `.member-node` cells and `button.disconnect`;
/// `#messages` items with `data-id`, `.author`, `.text`; `#publish-form`, `#publish-text`,
/// `#publish-author`), `#action-result` (`data-state` ok | error), the disconnect dialog
/// `#confirm` (`#confirm-reason`, `#confirm-yes`, `#confirm-no`).
enum AdminPage {
  /// The complete page; the same bytes on every request.
  static let html: String =
    """
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
    <meta name="referrer" content="no-referrer">
    <title>Switchboard admin</title>
    <style>\(style)</style>
    </head>
    <body>
    \(body)
    <script>\(script)</script>
    </body>
    </html>

    """

  /// The page's `Content-Security-Policy`: the inline style and script by their hashes, and
  /// nothing from any origin but the server's own (`connect-src 'self'` for the event stream
  /// and the actions; `img-src 'self'` for the browser's own favicon request).
  static let contentSecurityPolicy: String =
    "default-src 'none'; script-src '\(hashSource(script))'; style-src '\(hashSource(style))'; "
    + "connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

  /// The `200` answer to `GET /admin`: the page with its policy, never framed, never cached.
  static let response: HTTPResponse = {
    var response = HTTPResponse.html(200, html)
    response.headers.add(name: "Content-Security-Policy", value: contentSecurityPolicy)
    response.headers.add(name: "X-Frame-Options", value: "DENY")
    response.headers.add(name: "X-Content-Type-Options", value: "nosniff")
    response.headers.add(name: "Referrer-Policy", value: "no-referrer")
    response.headers.add(name: "Cache-Control", value: "no-store")
    return response
  }()

  /// A CSP hash source (`sha256-BASE64`) for the exact text of an inline element.
  static func hashSource(_ text: String) -> String {
    "sha256-" + Base64.encode(SHA256.hash(Array(text.utf8)))
  }

  /// The markup between `<body>` and the script: the login form, the app's header, the
  /// overview and the room view (both filled by the script), and the disconnect dialog.
  static let body: String = #"""
    <div id="login" hidden>
      <form id="login-form" autocomplete="off">
        <h1>Switchboard admin</h1>
        <input type="text" name="username" autocomplete="username" value="admin" hidden>
        <label for="password">Password</label>
        <input id="password" type="password" autocomplete="current-password" required>
        <button type="submit" id="login-submit">Log in</button>
        <div id="login-error" class="error" role="alert" aria-live="assertive"></div>
      </form>
    </div>
    <div id="app" hidden>
      <header>
        <h1><a href="#">Switchboard admin</a></h1>
        <span id="node"></span>
        <span id="stream" data-state="connecting" role="status" aria-live="polite">connecting…</span>
        <button id="logout" class="quiet small" type="button">Log out</button>
      </header>
      <main id="overview" hidden>
        <section class="card">
          <h2>Nodes <span class="sub" id="nodes-count"></span></h2>
          <div class="scroll"><table id="nodes">
            <thead><tr><th>node</th><th>version</th><th class="num">uptime</th><th class="num">connections</th>
              <th class="num">rooms</th><th class="num">loop lag p50 / p99</th><th class="num">messages/s</th>
              <th class="num">deliveries/s</th><th class="num">heap</th></tr></thead>
            <tbody></tbody>
          </table></div>
        </section>
        <section class="card">
          <h2>Connections <span class="sub">by transport, every node</span></h2>
          <dl id="transports">
            <div data-transport="tcp"><dt>tcp</dt><dd>–</dd></div>
            <div data-transport="tls"><dt>tls</dt><dd>–</dd></div>
            <div data-transport="udp"><dt>udp</dt><dd>–</dd></div>
            <div data-transport="ws"><dt>ws</dt><dd>–</dd></div>
            <div data-transport="wss"><dt>wss</dt><dd>–</dd></div>
          </dl>
        </section>
        <section class="card">
          <h2>This node <span class="sub" id="charts-span">the last minutes</span></h2>
          <div id="charts"></div>
        </section>
        <section class="card">
          <h2>Rooms <span class="sub" id="rooms-count"></span></h2>
          <div class="toolbar">
            <input id="room-filter" type="search" placeholder="Filter rooms" aria-label="Filter rooms">
          </div>
          <div class="scroll"><table id="rooms">
            <thead><tr><th data-sort="room" aria-sort="ascending"><button type="button">room</button></th>
              <th data-sort="members" class="num"><button type="button">members</button></th>
              <th data-sort="rate" class="num"><button type="button">messages/s</button></th>
              <th data-sort="lastId" class="num"><button type="button">last id</button></th></tr></thead>
            <tbody></tbody>
          </table></div>
        </section>
      </main>
      <main id="room-view" hidden>
        <section class="card">
          <h2><span id="room-title"></span> <span class="sub" id="room-count"></span>
            <span class="sub" id="room-rate"></span>
            <a href="#" id="back" class="sub">all rooms</a></h2>
          <div class="scroll"><table id="members">
            <thead><tr><th>name</th><th>transport</th><th>address</th><th>connected since</th><th>node</th>
              <th></th></tr></thead>
            <tbody></tbody>
          </table></div>
        </section>
        <section class="card">
          <h2>Messages <span class="sub">as they are sent</span></h2>
          <ol id="messages" aria-live="polite"></ol>
          <form id="publish-form" autocomplete="off">
            <input id="publish-text" placeholder="A notice to the room" aria-label="Notice" required>
            <input id="publish-author" placeholder="author (app)" aria-label="Author" maxlength="64">
            <button type="submit">Publish</button>
          </form>
        </section>
        <pre id="action-result" class="result" role="status" aria-live="polite"></pre>
      </main>
    </div>
    <dialog id="confirm">
      <form method="dialog">
        <p id="confirm-text"></p>
        <input id="confirm-reason" placeholder="reason (optional)" aria-label="Reason" maxlength="200">
        <div class="buttons">
          <button id="confirm-yes" class="danger" value="yes" type="submit">Disconnect</button>
          <button id="confirm-no" class="quiet" value="no" type="submit">Cancel</button>
        </div>
      </form>
    </dialog>
    """#
}
