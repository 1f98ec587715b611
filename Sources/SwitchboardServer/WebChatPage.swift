/// The web chat page served at `GET /` on the HTTP + WebSocket listener.
///
/// One self-contained HTML file (no CDN, no external assets). It joins the room named by
/// `?room=` (default `lobby`) over `ws(s)://<page host>/rooms/<room>` with the JSON protocol
/// (docs/PROTOCOLS.md): the first text frame is the user's name, as the seed `chat-server.js`
/// page does; after a dropped connection it reconnects with backoff and sends
/// `{"type":"join","data":{"name","room","since"}}` with the highest message id it has shown,
/// so nothing is lost or shown twice. All user data is inserted with `textContent`.
/// What is typed goes through the command language (`/join`, `/who`, `/me` …, the table
/// `COMMANDS`, the same as `ChatInput.commands` in the client library: a test compares them).
///
/// Stable element ids for browser tests: `#name-form`, `#name`, `#input`, `#send`,
/// `#messages` (children `.message.me` / `.message.other` with `data-id`, `.author`,
/// `.text`, and `.action` for a `/me`; notices are `.notice`), `#typing` (who is typing:
/// `alice is typing…`, `alice and bob are typing…`, empty when nobody), `#status` (`data-state` =
/// connecting | online | offline | refused, the last after a close 1008, 4001 (`POST
/// /api/disconnect`) or 4003 (the auth proxy), whose reason the page shows and does not
/// retry, or for a `?room=` the server's room rule refuses, checked before
/// connecting because a browser cannot read the upgrade's `400`).
enum WebChatPage {
  /// The complete page.
  static let html: String = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
    <title>Switchboard</title>
    <style>
      :root { color-scheme: light dark; --bg: #f4f5f7; --panel: #fff; --line: #dde1e6; --muted: #6b7280;
        --me: #2563eb; --other: #fff; --text: #111827; }
      @media (prefers-color-scheme: dark) { :root { --bg: #111418; --panel: #1b1f24; --line: #2d333b;
        --muted: #9aa4b2; --me: #2f6feb; --other: #22272e; --text: #e6edf3; } }
      * { box-sizing: border-box; }
      html, body { height: 100%; margin: 0; }
      body { display: flex; flex-direction: column; background: var(--bg); color: var(--text);
        font: 16px/1.4 -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, sans-serif; }
      header { display: flex; align-items: center; gap: .75rem; padding: .6rem 1rem;
        padding-top: max(.6rem, env(safe-area-inset-top)); background: var(--panel);
        border-bottom: 1px solid var(--line); }
      header h1 { font-size: 1.05rem; margin: 0; flex: 1; min-width: 5rem; overflow: hidden;
        text-overflow: ellipsis; white-space: nowrap; }
      #members { color: var(--muted); font-size: .85rem; white-space: nowrap; }
      #status { font-size: .85rem; color: var(--muted); white-space: nowrap; }
      #status::before { content: ""; display: inline-block; width: .55rem; height: .55rem;
        border-radius: 50%; margin-right: .35rem; background: #d97706; }
      #status[data-state="online"]::before { background: #16a34a; }
      #status[data-state="offline"]::before { background: #dc2626; }
      /* A refusal's reason is long and final: it may wrap, in the error colour. */
      #status[data-state="refused"] { color: #dc2626; white-space: normal; text-align: right; }
      #status[data-state="refused"]::before { background: #dc2626; }
      #messages { flex: 1; overflow-y: auto; padding: 1rem; display: flex; flex-direction: column;
        gap: .4rem; }
      .message { max-width: min(75%, 36rem); padding: .45rem .7rem; border-radius: 1rem;
        overflow-wrap: anywhere; white-space: pre-wrap; }
      .message.other { align-self: flex-start; background: var(--other); border: 1px solid var(--line);
        border-bottom-left-radius: .3rem; }
      .message.me { align-self: flex-end; background: var(--me); color: #fff;
        border-bottom-right-radius: .3rem; }
      .message .meta { display: flex; gap: .5rem; align-items: baseline; font-size: .75rem; }
      .message .author { font-weight: 600; }
      .message.me .author { color: #fff !important; opacity: .9; }
      .message .time { color: var(--muted); }
      .message.action .text { font-style: italic; }
      .message.me .time { color: #dbe6ff; }
      .notice { align-self: center; color: var(--muted); font-size: .85rem; font-style: italic;
        text-align: center; }
      .notice.error { color: #dc2626; font-style: normal; }
      #typing { min-height: 1.1rem; padding: 0 1rem .2rem; font-size: .8rem; color: var(--muted);
        font-style: italic; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
      form { margin: 0; }
      #composer { display: flex; gap: .5rem; padding: .6rem; background: var(--panel);
        border-top: 1px solid var(--line); padding-bottom: max(.6rem, env(safe-area-inset-bottom)); }
      input { flex: 1; min-width: 0; font: inherit; padding: .55rem .8rem; border-radius: 1.2rem;
        border: 1px solid var(--line); background: var(--bg); color: inherit; }
      button { font: inherit; padding: .55rem 1rem; border: 0; border-radius: 1.2rem;
        background: var(--me); color: #fff; cursor: pointer; }
      button:disabled { opacity: .5; cursor: default; }
      input:disabled { opacity: .6; }
      #name-form { position: fixed; inset: 0; display: flex; align-items: center; justify-content: center;
        background: rgba(0, 0, 0, .35); padding: 1rem; }
      #name-form .card { background: var(--panel); padding: 1.25rem; border-radius: .8rem; width: 100%;
        max-width: 22rem; display: flex; flex-direction: column; gap: .75rem;
        box-shadow: 0 10px 30px rgba(0, 0, 0, .2); }
      #name-form label { font-weight: 600; }
      [hidden] { display: none !important; }
    </style>
    </head>
    <body>
    <header>
      <h1 id="room">Switchboard</h1>
      <span id="members"></span>
      <span id="status" data-state="connecting" role="status" aria-live="polite">connecting…</span>
    </header>
    <main id="messages" aria-live="polite"></main>
    <div id="typing" aria-live="polite"></div>
    <form id="composer" autocomplete="off">
      <input id="input" placeholder="Message, or /help" aria-label="Message" disabled>
      <button id="send" type="submit" disabled>Send</button>
    </form>
    <form id="name-form" autocomplete="off">
      <div class="card">
        <label for="name">Choose a name</label>
        <input id="name" maxlength="64" placeholder="Your name" autofocus required>
        <button type="submit">Join</button>
      </div>
    </form>
    <script>
    "use strict";
    (() => {
      const $ = (id) => document.getElementById(id);
      const list = $("messages"), input = $("input"), send = $("send"), status = $("status");
      let room = (new URLSearchParams(location.search).get("room") || "").trim() || "lobby";
      // A server that checks tokens: open the page as /?token=… and it goes on to the WebSocket.
      const token = new URLSearchParams(location.search).get("token");
      // A function: `/join` changes the room a reconnect goes back to.
      const url = () => (location.protocol === "https:" ? "wss://" : "ws://") + location.host +
        "/rooms/" + encodeURIComponent(room) + (token ? "?token=" + encodeURIComponent(token) : "");
      // `name` is what the user asked for; `shownAs` what the server confirmed (its `name`
      // frame: `alice (2)` when `alice` is taken in the room), which decides what is "mine".
      let shownAs = null;
      let ws = null, name = null, nameSent = false, lastId = 0, epoch = null, attempt = 0, retryTimer = null;
      const shown = new Set();
      // The reason the server refused this page for good (or would: a bad ?room=), else null.
      // A refused page never connects again: not on a timer, not when it comes back online.
      let refusal = null;
      // The server's room rule (docs/PROTOCOLS.md, "Rooms"): 1-64 letters (each with up to two
      // combining marks), decimal digits, - _ . in NFC. The server answers an upgrade to a bad
      // room with a 400 that a browser's WebSocket cannot read, so the page checks first.
      function roomRefusal(raw) {
        const nfc = raw.normalize("NFC");
        const ok = [...nfc].length <= 64 && /^(?:\p{L}[\p{Mn}\p{Mc}]{0,2}|\p{Nd}|[-_.])+$/u.test(nfc);
        return ok ? null : "invalid room name " + JSON.stringify(raw) + " (1-64 letters, digits, - _ .)";
      }
      // `label`: how the status line introduces the reason (a 4001's reason already says
      // "disconnected by the server").
      function refuse(reason, label = "refused: ") {
        refusal = reason;
        clearInterval(retryTimer);
        retryTimer = null;
        notice("! " + reason, true);
        $("members").textContent = "";  // no longer in the room: its count would be stale
        setStatus("refused", label + reason);
      }

      $("room").textContent = "# " + room;
      // The name is the token's sub (the server refuses any other): offered in the name field.
      if (token) {
        try {
          const part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
          $("name").value = JSON.parse(atob(part)).sub || "";
        } catch (e) { /* not a readable token: the server will say so */ }
      }
      document.title = room + " · Switchboard";

      function setStatus(state, text) {
        status.dataset.state = state;
        status.textContent = text || state;
        input.disabled = name === null || state === "refused";
        send.disabled = !(state === "online" && name !== null);
      }

      function nearBottom() { return list.scrollHeight - list.scrollTop - list.clientHeight < 80; }

      function append(el) {
        const stick = nearBottom();
        list.appendChild(el);
        if (stick) list.scrollTop = list.scrollHeight;
      }

      function notice(text, isError) {
        const el = document.createElement("div");
        el.className = isError ? "notice error" : "notice";
        el.textContent = text;
        append(el);
      }

      function showMessage(m) {
        if (!m || typeof m !== "object") return;
        const id = Number(m.id);
        if (Number.isFinite(id) && id > 0) {
          if (shown.has(id)) return;
          shown.add(id);
          if (id > lastId) lastId = id;
        }
        const el = document.createElement("div");
        el.className = "message " + (isMine(m.author) ? "me" : "other") + (m.action === true ? " action" : "");
        if (Number.isFinite(id)) el.dataset.id = String(id);
        const meta = document.createElement("div");
        meta.className = "meta";
        const author = document.createElement("span");
        author.className = "author";
        author.textContent = String(m.author ?? "");
        if (typeof m.color === "string") author.style.color = m.color;
        const time = document.createElement("span");
        time.className = "time";
        if (m.time) time.textContent = new Date(m.time).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
        meta.append(author, time);
        const text = document.createElement("div");
        text.className = "text";
        // A `/me` action reads `* dave dances`, as on the line dialect and in `switchboard chat`.
        text.textContent = m.action === true ? "* " + String(m.author ?? "") + " " + String(m.text ?? "")
          : String(m.text ?? "");
        el.append(meta, text);
        append(el);
      }

      function isMine(author) { return name !== null && author === (shownAs ?? name); }

      function markMine() {
        for (const el of list.querySelectorAll(".message")) {
          const mine = isMine(el.querySelector(".author").textContent);
          el.classList.toggle("me", mine);
          el.classList.toggle("other", !mine);
        }
      }

      function onFrame(raw) {
        let frame;
        try { frame = JSON.parse(raw); } catch { notice(raw); return; }
        if (!frame || typeof frame !== "object") { notice(String(raw)); return; }
        const d = frame.data;
        switch (frame.type) {
          case "history":
            if (frame.requested === true) {
              // The answer to `/history`: a view shown as `nc` shows it, not the transcript.
              if (Array.isArray(d)) {
                for (const m of d) notice("[" + m.id + "] " + (m.action ? "* " + m.author + " " : m.author + ": ") + m.text);
                if (d.length === 0 && frame.more !== true) notice("* no kept messages in " + room);
              }
              break;
            }
            if (joining !== null) moved();
            if (frame.recovered === false && lastId > 0) notice("Some earlier messages are no longer available.");
            if (typeof frame.epoch === "string") {
              // A new epoch: the room's history started over, its ids start again at 1.
              if (epoch !== null && frame.epoch !== epoch) { shown.clear(); lastId = 0; }
              epoch = frame.epoch;
            }
            if (Array.isArray(d)) d.forEach(showMessage);
            break;
          case "message": showMessage(d); if (d && typeof d.author === "string") typingStopped(d.author); break;
          case "color": break;
          case "name":
            if (typeof d === "string") {
              // The answer to `/nick`: the name the server gave (`bob (2)` when bob is taken).
              if (renaming) notice("* you are now " + d);
              renaming = false;
              shownAs = d;
              markMine();
            }
            break;
          case "presence":
            if (d && d.author !== undefined) {
              notice("* " + (d.event === "rename" ? d.previous + " is now " + d.author
                : d.author + (d.event === "leave" ? " has left" : " has joined")));
            }
            if (d && d.members !== undefined) {
              const n = Array.isArray(d.members) ? d.members.length : Number(d.members);
              $("members").textContent = Number.isFinite(n) ? n + (n === 1 ? " member" : " members") : "";
            }
            break;
          case "ack": break;
          case "features":
            // The answer to the page's `features` frame: whether typing notices are on.
            featuresPending = false;
            typingOn = !!(d && Array.isArray(d.enabled) && d.enabled.includes("typing"));
            break;
          case "typing":
            if (d && typeof d.author === "string" && (d.room === undefined || d.room === room)) {
              if (d.active === true) typingStarted(d.author); else typingStopped(d.author);
            }
            break;
          case "members":
            if (d && Array.isArray(d.names)) notice("* in " + d.room + " (" + d.names.length + "): " + d.names.join(", "));
            break;
          case "rooms":
            if (Array.isArray(d)) notice("* rooms: " + d.map((r) => r.name + " (" + r.members + ")").join(", "));
            break;
          case "token_expiring":
            // The page's token came with its URL: it has no way to get a fresh one.
            notice("* your token expires in " + (d && d.seconds) + " s; this page cannot renew it (open it again with a fresh token)", true);
            break;
          case "error":
            // An older server's answer to the `features` frame: no typing, nothing to show.
            if (featuresPending && d && d.code === "unknown_type") { featuresPending = false; break; }
            joining = null;
            renaming = false;
            notice("! " + (d && d.message ? d.message : "error"), true);
            break;
          default: break;
        }
      }

      function sendName() {
        if (!ws || ws.readyState !== WebSocket.OPEN || name === null) return;
        if (!nameSent) {
          ws.send(name);  // the seed protocol: the first text frame is the name
          nameSent = true;
        } else {
          ws.send(JSON.stringify({ type: "join", data: { name: name, room: room, since: lastId } }));
        }
        // After the name (the seed protocol's first frame): ask for typing notices. A
        // server without them answers `unknown_type`, and the page then sends no typing.
        ws.send(JSON.stringify({ type: "features", data: ["typing"] }));
        featuresPending = true;
      }

      // Who is typing (docs/PROTOCOLS.md, "Typing"): each name goes on a stop,
      // a message from it, or 6 s after its last start (the server's own expiry is 5 s).
      const typers = new Map();
      let typingOn = false, typingActive = false, typingSentAt = 0, featuresPending = false;
      function renderTyping() {
        const names = [...typers.keys()].sort();
        const el = $("typing");
        if (names.length === 0) { el.textContent = ""; return; }
        const who = names.length === 1 ? names[0]
          : names.slice(0, -1).join(", ") + " and " + names[names.length - 1];
        el.textContent = who + (names.length === 1 ? " is typing…" : " are typing…");
      }
      function typingStarted(author) {
        clearTimeout(typers.get(author));
        typers.set(author, setTimeout(() => typingStopped(author), 6000));
        renderTyping();
      }
      function typingStopped(author) {
        if (!typers.has(author)) return;
        clearTimeout(typers.get(author));
        typers.delete(author);
        renderTyping();
      }
      function clearTyping() {
        for (const t of typers.values()) clearTimeout(t);
        typers.clear();
        renderTyping();
        typingActive = false;
        typingSentAt = 0;
      }
      // The user typed: at most one start a second (the server relays no more, counted from
      // its last start whatever came between), one `active:false` when the field is emptied;
      // commands are not typing.
      function userTyped() {
        if (!typingOn || !ws || ws.readyState !== WebSocket.OPEN) return;
        const typing = input.value.length > 0 && !input.value.startsWith("/");
        if (typing) {
          const now = Date.now();
          typingActive = true;
          if (now - typingSentAt < 1000) return;
          typingSentAt = now;
          ws.send(JSON.stringify({ type: "typing", data: { active: true } }));
        } else if (typingActive) {
          typingActive = false;
          ws.send(JSON.stringify({ type: "typing", data: { active: false } }));
        }
      }
      input.addEventListener("input", userTyped);

      function connect() {
        clearInterval(retryTimer);
        retryTimer = null;
        setStatus("connecting", "connecting…");
        const sock = new WebSocket(url());
        ws = sock;
        sock.onopen = () => {
          if (sock !== ws) return;
          attempt = 0;
          setStatus("online");
          sendName();
        };
        sock.onmessage = (event) => {
          if (sock === ws && typeof event.data === "string") onFrame(event.data);
        };
        sock.onclose = (event) => {
          if (sock !== ws) return;
          ws = null;
          typingOn = false;
          clearTyping();
          // 1001: the server is shutting down (`nc` users get the same notice as a line).
          if (event.code === 1001) notice("* server is going away" + (event.reason ? ": " + event.reason : ""));
          // 1008: refused (no or a bad token, a room it does not allow, flooding). Trying
          // again would get the same answer: say why and stop.
          // 1013: the server's auth proxy gave no answer: say so, then retry as usual.
          if (event.code === 1013 && event.reason) notice("* " + event.reason);
          // 4003: refused by the server's auth proxy (the app's backend), as final as 1008.
          if (event.code === 1008 || event.code === 4003) {
            refuse(event.reason === "token expired"
              ? "token expired: this page cannot renew its token; open it again with a fresh one"
              : event.reason || "refused by the server (policy violation)");
            return;
          }
          // 4001: the app's backend removed this user (POST /api/disconnect): say why, stay out.
          if (event.code === 4001) {
            refuse(event.reason || "disconnected by the server", "");
            return;
          }
          scheduleReconnect();
        };
      }

      function scheduleReconnect() {
        const delay = Math.min(30, 2 ** attempt) * (0.75 + Math.random() * 0.5);
        attempt += 1;
        let left = Math.max(1, Math.round(delay));
        const tick = () => {
          if (left <= 0) { connect(); return; }
          setStatus("offline", "offline · retry in " + left + "s");
          left -= 1;
        };
        tick();
        retryTimer = setInterval(tick, 1000);
      }

      function reconnectNow() { if (ws === null && refusal === null) { attempt = 0; connect(); } }
      window.addEventListener("online", reconnectNow);
      document.addEventListener("visibilitychange", () => { if (!document.hidden) reconnectNow(); });

      $("name-form").addEventListener("submit", (event) => {
        event.preventDefault();
        const value = $("name").value.trim();
        if (!value) return;
        name = value;
        shownAs = null;
        $("name-form").hidden = true;
        markMine();
        setStatus(status.dataset.state, status.textContent);
        sendName();
        input.focus();
      });

      $("composer").addEventListener("submit", (event) => {
        event.preventDefault();
        const text = input.value;
        if (!text.trim() || !ws || ws.readyState !== WebSocket.OPEN) return;
        run(parse(text));
        // The message ends the typing state on the server.
        typingActive = false;
        input.value = "";
        input.focus();
      });

      // The command language, as `nc` users have it (docs/PROTOCOLS.md, "The command
      // language"): the same table and parse as ChatInput in the client library, which a
      // test keeps in step with this one.
      const COMMANDS = [
        ["/join ROOM", "move to ROOM"],
        ["/who", "who is in this room"],
        ["/rooms", "rooms with members"],
        ["/nick NAME", "change your name"],
        ["/me ACTION", "send an action: * NAME ACTION"],
        ["/history [N]", "the last N messages (default 20)"],
        ["/help", "this list"],
        ["/quit", "leave"],
        ["//TEXT", "send a message that starts with /"],
      ];

      function parse(line) {
        if (!line.startsWith("/")) return { kind: "message", text: line };
        if (line.startsWith("//")) return { kind: "message", text: line.slice(1) };
        const space = line.indexOf(" ");
        const name = (space < 0 ? line.slice(1) : line.slice(1, space)).toLowerCase();
        const arg = space < 0 ? "" : line.slice(space + 1).replace(/^[ \t]+|[ \t]+$/g, "");
        switch (name) {
          case "join": {
            const to = arg.normalize("NFC");
            return roomRefusal(to) === null ? { kind: "join", arg: to }
              : { kind: "invalid", text: "usage: /join ROOM (1-64 letters, digits, - _ .)" };
          }
          case "nick": case "name": return arg ? { kind: "nick", arg } : { kind: "invalid", text: "usage: /nick NAME" };
          case "me": return arg ? { kind: "action", arg } : { kind: "invalid", text: "usage: /me ACTION" };
          case "who": return { kind: "who" };
          case "rooms": return { kind: "rooms" };
          case "history": return /^\d*$/.test(arg) ? { kind: "history", arg } : { kind: "invalid", text: "usage: /history [N]" };
          case "help": case "?": return { kind: "help" };
          case "quit": case "exit": case "bye": return { kind: "quit" };
          default: return { kind: "invalid", text: "unknown command /" + name + " (try /help)" };
        }
      }

      // The room a `/join` asked for, until its history arrives (or an error refuses it);
      // whether a `/nick` waits for its `name` answer.
      let joining = null, renaming = false;

      function moved() {
        room = joining;
        joining = null;
        shown.clear();
        lastId = 0;
        epoch = null;
        list.replaceChildren();
        clearTyping();
        $("room").textContent = "# " + room;
        document.title = room + " · Switchboard";
        history.replaceState(null, "", "?" + new URLSearchParams({ room, ...(token ? { token } : {}) }));
        notice("* you are now in " + room);
      }

      function run(c) {
        const frame = (type, data) => ws.send(JSON.stringify(data === undefined ? { type } : { type, data }));
        switch (c.kind) {
          case "message": frame("message", { text: c.text }); break;
          case "action": frame("message", { text: c.arg, action: true }); break;
          case "join": joining = c.arg; frame("join", { room: c.arg }); break;
          case "nick": name = c.arg; renaming = true; frame("join", { name: c.arg }); break;
          case "who": frame("who"); break;
          case "rooms": frame("rooms"); break;
          // At least one message (`/history 0` shows the last), at most what a request may ask.
          case "history": frame("history", { limit: Math.min(Math.max(Number(c.arg || "20"), 1), 10000000) }); break;
          case "help":
            notice("* commands:");
            for (const [usage, summary] of COMMANDS) notice(usage + " — " + summary);
            break;
          case "quit": {
            const sock = ws;
            ws = null;
            sock.close(1000);
            setStatus("offline", "left · reload to join again");
            break;
          }
          default: notice("! " + c.text, true);
        }
      }

      const badRoom = roomRefusal(room);
      if (badRoom !== null) { refuse(badRoom); } else { connect(); }
    })();
    </script>
    </body>
    </html>
    """#
}
