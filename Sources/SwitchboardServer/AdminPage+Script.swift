extension AdminPage {
  /// The page's one `<script>` element (allowed by its hash in `contentSecurityPolicy`).
  ///
  /// States: `login` (the form) or `app`; in the app a stream state (connecting | live |
  /// offline) and a route (overview, or one room from `#room=NAME`). Data from the server
  /// goes into the page with `textContent` only; SVG is built with `createElementNS`.
  static let script: String = #"""

    "use strict";
    (() => {
      const $ = (id) => document.getElementById(id);
      const SVG = "http://www.w3.org/2000/svg";
      const MAX_POINTS = 600, MAX_MESSAGES = 200;
      const TRANSPORTS = ["tcp", "tls", "udp", "ws", "wss"];
      const CHARTS = [
        { id: "messages", title: "messages/s", series: [["messagesPerSecond", "messages/s"]], fmt: rate },
        { id: "deliveries", title: "deliveries/s", series: [["deliveriesPerSecond", "deliveries/s"]], fmt: rate },
        { id: "connections", title: "connections", series: [["connections", "connections"]], fmt: count },
        { id: "lag", title: "loop lag", series: [["lagP50Ms", "p50"], ["lagP99Ms", "p99"]], fmt: ms },
        { id: "memory", title: "memory", series: [["heapBytes", "heap"], ["residentBytes", "resident"]], fmt: bytes },
      ];

      let csrf = null;            // the session's token, from the login answer or /admin/session
      let source = null;          // the EventSource, while the app shows
      let streamRoom = null;      // the room the open stream was asked for (null: the overview)
      let retry = 0, retryTimer = null, lockTimer = null;
      let points = [];            // this node's samples, oldest first
      let rooms = [], roomsKey = "", membersKey = "", nodesKey = "";
      let sort = { key: "room", dir: 1 };
      let lastMessageId = -1;     // the newest message shown on the room's page
      let shownRoute;             // the route on screen: undefined (none yet), null (overview) or a room
      let pendingDisconnect = null;

      // --- formatting -----------------------------------------------------------------------
      function rate(x) { return x === null || x === undefined ? "–" : x >= 100 ? x.toFixed(0) : x.toFixed(1); }
      function count(x) { return x === null || x === undefined ? "–" : String(Math.round(x)); }
      function ms(x) { return x === null || x === undefined ? "–" : (x >= 10 ? x.toFixed(0) : x.toFixed(2)) + " ms"; }
      function bytes(x) {
        if (x === null || x === undefined) return "–";
        const units = ["B", "KiB", "MiB", "GiB", "TiB"];
        let i = 0;
        while (x >= 1024 && i < units.length - 1) { x /= 1024; i++; }
        return (i === 0 ? String(x) : x.toFixed(x >= 100 ? 0 : 1)) + " " + units[i];
      }
      function duration(s) {
        const d = Math.floor(s / 86400), h = Math.floor(s % 86400 / 3600), m = Math.floor(s % 3600 / 60);
        return d > 0 ? d + "d " + h + "h" : h > 0 ? h + "h " + m + "m" : m > 0 ? m + "m " + (s % 60) + "s" : s + "s";
      }
      function clock(iso) {
        const t = new Date(iso);
        return isNaN(t) ? "" : t.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
      }
      function el(tag, text, cls) {
        const e = document.createElement(tag);
        if (text !== undefined && text !== null) e.textContent = String(text);
        if (cls) e.className = cls;
        return e;
      }
      function svg(tag, attrs) {
        const e = document.createElementNS(SVG, tag);
        for (const k in attrs) e.setAttribute(k, attrs[k]);
        return e;
      }
      // The server's room rule (docs/PROTOCOLS.md, "Rooms"), checked before asking for a room.
      function validRoom(raw) {
        const nfc = raw.normalize("NFC");
        return [...nfc].length <= 64 && /^(?:\p{L}[\p{Mn}\p{Mc}]{0,2}|\p{Nd}|[-_.])+$/u.test(nfc);
      }

      // --- requests -------------------------------------------------------------------------
      // An answer as {status, body (parsed JSON or null), text, retryAfter}; a network failure
      // is status 0 with its message.
      async function request(method, path, body) {
        const headers = { "Accept": "application/json" };
        if (body !== undefined) headers["Content-Type"] = "application/json";
        if (method === "POST" && csrf) headers["X-CSRF-Token"] = csrf;
        try {
          const r = await fetch(path, { method, headers, credentials: "same-origin", cache: "no-store",
            body: body === undefined ? undefined : JSON.stringify(body) });
          const text = await r.text();
          let parsed = null;
          try { parsed = text ? JSON.parse(text) : null; } catch (_) { parsed = null; }
          return { status: r.status, body: parsed, text, retryAfter: r.headers.get("Retry-After") };
        } catch (e) {
          return { status: 0, body: null, text: String(e && e.message || e), retryAfter: null };
        }
      }
      function errorText(answer) {
        const err = answer.body && answer.body.error;
        if (err) return err.message ? err.code + ": " + err.message : err.code;
        return answer.status === 0 ? "the server cannot be reached (" + answer.text + ")" : "HTTP " + answer.status;
      }

      // --- login ----------------------------------------------------------------------------
      function showLogin(message) {
        stopStream();
        csrf = null;
        $("app").hidden = true;
        $("login").hidden = false;
        $("login-error").textContent = message || "";
        $("password").focus();
      }
      function showApp(session) {
        csrf = session.csrf;
        $("login").hidden = true;
        $("app").hidden = false;
        $("password").value = "";
        route();
      }
      function lockLogin(seconds) {
        const button = $("login-submit");
        let left = Math.max(1, seconds);
        const say = () => { $("login-error").textContent = "too many attempts, try again in " + left + " s"; };
        clearInterval(lockTimer);
        button.disabled = true;
        say();
        lockTimer = setInterval(() => {
          left -= 1;
          if (left > 0) { say(); return; }
          clearInterval(lockTimer);
          lockTimer = null;
          button.disabled = false;
          $("login-error").textContent = "too many attempts: you may try again now";
        }, 1000);
      }
      $("login-form").addEventListener("submit", async (event) => {
        event.preventDefault();
        if (lockTimer) return;
        const button = $("login-submit");
        button.disabled = true;
        $("login-error").textContent = "";
        const answer = await request("POST", "/admin/login", { password: $("password").value });
        button.disabled = false;
        if (answer.status === 200 && answer.body && answer.body.csrf) {
          showApp(answer.body);
        } else if (answer.status === 429) {
          lockLogin(Number(answer.retryAfter) || 2);
        } else if (answer.status === 401) {
          $("login-error").textContent = "wrong password";
          $("password").select();
        } else {
          $("login-error").textContent = errorText(answer);
        }
      });
      $("logout").addEventListener("click", async () => {
        const answer = await request("POST", "/admin/logout");
        if (answer.status === 204 || answer.status === 401) showLogin("logged out");
        else showResult(answer, "logout");
      });
      // Whether the session still holds; the login form when it does not.
      async function checkSession() {
        const answer = await request("GET", "/admin/session");
        if (answer.status === 200 && answer.body && answer.body.csrf) { csrf = answer.body.csrf; return true; }
        if (answer.status === 401) { showLogin("your session has ended: log in again"); return false; }
        return null;  // unknown (the server is away): the caller retries
      }

      // --- the stream -----------------------------------------------------------------------
      function setStream(state, text) {
        $("stream").dataset.state = state;
        $("stream").textContent = text;
      }
      function stopStream() {
        clearTimeout(retryTimer);
        retryTimer = null;
        if (source) { source.close(); source = null; }
      }
      function startStream(room) {
        stopStream();
        streamRoom = room;
        membersKey = "";
        setStream("connecting", "connecting…");
        const es = new EventSource("/admin/events" + (room === null ? "" : "?room=" + encodeURIComponent(room)));
        source = es;
        es.addEventListener("history", (e) => {
          if (source !== es) return;
          const data = JSON.parse(e.data);
          points = Array.isArray(data.points) ? data.points.slice(-MAX_POINTS) : [];
          retry = 0;
          setStream("live", "live");
          drawCharts();
        });
        es.addEventListener("snapshot", (e) => {
          if (source !== es) return;
          retry = 0;
          setStream("live", "live");
          snapshot(JSON.parse(e.data));
        });
        es.addEventListener("end", (e) => {
          if (source !== es) return;
          stopStream();
          let reason = "";
          try { reason = JSON.parse(e.data).reason || ""; } catch (_) { reason = ""; }
          setStream("offline", "ended" + (reason ? ": " + reason : ""));
          checkSession().then((ok) => { if (ok !== false) scheduleRetry(); });
        });
        es.onerror = () => {
          if (source !== es) return;
          // A stream that ends or fails: ask whether the session still holds (a 401 shows the
          // login form), then connect again, waiting longer after each failure in a row.
          stopStream();
          setStream("offline", "offline · reconnecting");
          checkSession().then((ok) => { if (ok !== false) scheduleRetry(); });
        };
      }
      function scheduleRetry() {
        clearTimeout(retryTimer);
        const wait = Math.min(30000, 1000 * 2 ** Math.min(retry, 5));
        retry += 1;
        retryTimer = setTimeout(() => { if (!$("app").hidden) startStream(streamRoom); }, wait);
      }

      // --- what a snapshot shows ------------------------------------------------------------
      function snapshot(s) {
        $("node").textContent = "node " + s.node;
        if (s.point && (points.length === 0 || s.point.time > points[points.length - 1].time)) {
          points.push(s.point);
          if (points.length > MAX_POINTS) points.splice(0, points.length - MAX_POINTS);
        }
        if (streamRoom === null) {
          drawNodes(s.nodes || []);
          drawTransports(s.connections || {});
          drawCharts();
          rooms = Array.isArray(s.rooms) ? s.rooms : [];
          drawRooms(false);
        } else if (s.room) {
          const listed = (s.rooms || []).find((r) => r.room === streamRoom);
          const perSecond = listed ? listed.messagesPerSecond : null;
          $("room-rate").textContent = typeof perSecond === "number" ? rate(perSecond) + " messages/s" : "";
          drawRoom(s.room);
        }
      }
      function drawNodes(nodes) {
        const key = JSON.stringify(nodes);
        if (key === nodesKey) return;
        nodesKey = key;
        const body = $("nodes").tBodies[0];
        body.replaceChildren(...nodes.map((n) => {
          const tr = el("tr");
          tr.dataset.node = n.node;
          const name = el("td", n.node);
          if (n.self) name.append(" ", el("span", "(this node)", "self"));
          tr.append(name, el("td", n.version), el("td", duration(n.uptimeSeconds || 0), "num"),
            el("td", count(n.connections), "num"), el("td", count(n.rooms), "num"),
            el("td", ms(n.lagP50Ms) + " / " + ms(n.lagP99Ms), "num"), el("td", rate(n.messagesPerSecond), "num"),
            el("td", rate(n.deliveriesPerSecond), "num"), el("td", bytes(n.heapBytes), "num"));
          return tr;
        }));
        $("nodes-count").textContent = nodes.length === 1 ? "1 node" : nodes.length + " nodes";
      }
      function drawTransports(c) {
        for (const t of TRANSPORTS) {
          document.querySelector('#transports [data-transport="' + t + '"] dd').textContent = count(c[t] || 0);
        }
      }

      // --- charts: inline SVG, one polyline per series over the last MAX_POINTS seconds ------
      function buildCharts() {
        for (const c of CHARTS) {
          const fig = el("figure");
          fig.dataset.chart = c.id;
          const cap = el("figcaption");
          cap.append(el("b", c.title));
          c.series.forEach((s, i) => {
            const legend = el("span", null, "legend s" + i);
            legend.append(el("i"), el("span", s[1] + " "), el("span", "–", "now"));
            cap.append(legend);
          });
          const plot = el("div", null, "plot");
          const graph = svg("svg", { viewBox: "0 0 600 100", preserveAspectRatio: "none", role: "img",
            "aria-label": c.title });
          graph.append(svg("line", { x1: 0, y1: 50, x2: 600, y2: 50, class: "grid" }));
          c.series.forEach((_, i) => {
            graph.append(svg("polyline", { class: "s" + i, points: "", "vector-effect": "non-scaling-stroke" }));
          });
          plot.append(graph, el("span", "", "max"));
          const axis = el("div", null, "axis");
          axis.append(el("span", "", "from"), el("span", "now"));
          fig.append(cap, plot, axis);
          $("charts").append(fig);
        }
      }
      function niceMax(v) {
        if (!(v > 0)) return 1;
        const p = 10 ** Math.floor(Math.log10(v));
        for (const m of [1, 2, 2.5, 5, 10]) if (v <= m * p) return m * p;
        return 10 * p;
      }
      function drawCharts() {
        if (streamRoom !== null || points.length === 0) return;
        // The window grows with the history, a whole number of minutes from one to ten, so a
        // server that started a moment ago does not show ten minutes of nothing.
        const end = points[points.length - 1].time;
        const minutes = Math.min(MAX_POINTS / 60, Math.max(1, Math.ceil((end - points[0].time) / 60000)));
        const start = end - minutes * 60000;
        $("charts-span").textContent = "the last " + (minutes === 1 ? "minute" : minutes + " minutes");
        for (const c of CHARTS) {
          const fig = document.querySelector('#charts figure[data-chart="' + c.id + '"]');
          let top = 0;
          for (const p of points) for (const [k] of c.series) if (typeof p[k] === "number") top = Math.max(top, p[k]);
          const max = niceMax(top * 1.05);  // a little room above the highest point
          const lines = fig.querySelectorAll("polyline"), nows = fig.querySelectorAll(".now");
          c.series.forEach(([k], i) => {
            const xy = [];
            for (const p of points) {
              if (typeof p[k] !== "number" || p.time < start) continue;
              const x = (p.time - start) / (end - start || 1) * 600, y = 100 - p[k] / max * 96;
              xy.push(x.toFixed(1) + "," + y.toFixed(1));
            }
            lines[i].setAttribute("points", xy.join(" "));
            nows[i].textContent = c.fmt(points[points.length - 1][k]);
          });
          fig.querySelector(".max").textContent = c.fmt(max);
          fig.querySelector(".from").textContent = "−" + minutes + " min";
        }
      }

      // --- rooms: sortable by each column, filtered by text ---------------------------------
      function drawRooms(force) {
        const filter = $("room-filter").value.trim().toLowerCase();
        const shown = rooms.filter((r) => !filter || r.room.toLowerCase().includes(filter));
        const value = (r) => sort.key === "rate" ? r.messagesPerSecond ?? -1 : sort.key === "room" ? r.room : r[sort.key] ?? -1;
        shown.sort((a, b) => {
          const x = value(a), y = value(b);
          const order = typeof x === "string" ? x.localeCompare(y) : x - y;
          return (order || a.room.localeCompare(b.room)) * (order ? sort.dir : 1);
        });
        const key = JSON.stringify(shown);
        if (!force && key === roomsKey) return;
        roomsKey = key;
        const body = $("rooms").tBodies[0];
        if (shown.length === 0) {
          const tr = el("tr"), td = el("td", rooms.length ? "no room matches" : "no rooms open", "empty");
          td.colSpan = 4;
          tr.append(td);
          body.replaceChildren(tr);
        } else {
          body.replaceChildren(...shown.map((r) => {
            const tr = el("tr"), name = el("td"), link = el("a", r.room);
            tr.dataset.room = r.room;
            link.href = "#room=" + encodeURIComponent(r.room);
            name.append(link);
            tr.append(name, el("td", count(r.members), "num members"), el("td", rate(r.messagesPerSecond), "num rate"),
              el("td", r.lastId ?? "–", "num"));
            return tr;
          }));
        }
        $("rooms-count").textContent = (filter ? shown.length + " of " : "") + rooms.length +
          (rooms.length === 1 ? " room" : " rooms");
      }
      $("room-filter").addEventListener("input", () => drawRooms(true));
      for (const th of document.querySelectorAll("#rooms th[data-sort]")) {
        th.querySelector("button").addEventListener("click", () => {
          const key = th.dataset.sort;
          sort = { key, dir: sort.key === key ? -sort.dir : key === "room" ? 1 : -1 };
          for (const other of document.querySelectorAll("#rooms th[data-sort]")) other.removeAttribute("aria-sort");
          th.setAttribute("aria-sort", sort.dir > 0 ? "ascending" : "descending");
          drawRooms(true);
        });
      }

      // --- one room: members with a disconnect button, messages as they arrive --------------
      function drawRoom(room) {
        const members = Array.isArray(room.members) ? room.members : [];
        $("room-count").textContent = members.length === 1 ? "1 member" : members.length + " members";
        const key = JSON.stringify(members);
        if (key !== membersKey) {
          membersKey = key;
          const body = $("members").tBodies[0];
          if (members.length === 0) {
            const tr = el("tr"), td = el("td", "nobody is in this room", "empty");
            td.colSpan = 6;
            tr.append(td);
            body.replaceChildren(tr);
          } else {
            body.replaceChildren(...members.map((m) => {
              const tr = el("tr"), act = el("td", null, "act"), button = el("button", "disconnect", "danger small disconnect");
              tr.dataset.member = m.name;
              button.type = "button";
              button.addEventListener("click", () => askDisconnect(m.name));
              act.append(button);
              tr.append(el("td", m.name), el("td", m.transport ?? "–", "transport"), el("td", m.address ?? "–", "address"),
                el("td", m.since ? clock(m.since) : "–", "since"), el("td", m.node ?? "–", "member-node"), act);
              return tr;
            }));
          }
        }
        const list = $("messages");
        const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 24;
        if (typeof room.skipped === "number" && room.skipped > 0) {
          list.append(el("li", "… " + count(room.skipped) + " more messages in that second, not shown", "skipped"));
        }
        for (const m of Array.isArray(room.messages) ? room.messages : []) {
          if (typeof m.id === "number" && m.id <= lastMessageId) continue;
          if (typeof m.id === "number") lastMessageId = m.id;
          const li = el("li", null, m.action ? "action" : "");
          li.dataset.id = m.id;
          li.append(el("span", clock(m.time), "time"));
          if (m.action) {
            li.append(el("span", "* " + m.author + " " + m.text, "text"));
          } else {
            li.append(el("span", m.author, "author"), el("span", m.text, "text"));
          }
          list.append(li);
        }
        while (list.children.length > MAX_MESSAGES) list.firstElementChild.remove();
        if (atBottom) list.scrollTop = list.scrollHeight;
      }

      // --- actions --------------------------------------------------------------------------
      // The answer as the server API gave it (status and JSON), under the form that asked.
      function showResult(answer, what, after) {
        const out = $("action-result");
        if (after) after.after(out);
        out.dataset.state = answer.status >= 200 && answer.status < 300 ? "ok" : "error";
        out.textContent = what + " → " + (answer.status || "failed") + " " +
          (answer.body ? JSON.stringify(answer.body) : answer.text || "");
      }
      async function act(path, body, what, after) {
        let answer = await request("POST", path, body);
        if (answer.status === 401) { showLogin("your session has ended: log in again"); return answer; }
        // A stale token (the session was renewed in another tab): fetch it again, try once more.
        if (answer.status === 403 && await checkSession()) answer = await request("POST", path, body);
        showResult(answer, what, after);
        return answer;
      }
      function askDisconnect(name) {
        pendingDisconnect = name;
        $("confirm").returnValue = "";  // Escape keeps the last one: a cancel must not read as a yes
        $("confirm-text").textContent = "Disconnect " + name + " from " + streamRoom + "?";
        $("confirm-reason").value = "";
        $("confirm").showModal();
        $("confirm-reason").focus();
      }
      $("confirm").addEventListener("close", () => {
        const name = pendingDisconnect, room = streamRoom;
        pendingDisconnect = null;
        if ($("confirm").returnValue !== "yes" || name === null || room === null) return;
        const reason = $("confirm-reason").value.trim();
        const body = reason ? { user: name, room, reason } : { user: name, room };
        act("/admin/api/disconnect", body, "disconnect " + name, $("members").parentElement);
      });
      $("publish-form").addEventListener("submit", async (event) => {
        event.preventDefault();
        const text = $("publish-text").value, author = $("publish-author").value.trim();
        if (!text || streamRoom === null) return;
        const body = author ? { room: streamRoom, text, author } : { room: streamRoom, text };
        const answer = await act("/admin/api/publish", body, "publish", $("publish-form"));
        if (answer.status === 200) $("publish-text").value = "";
      });

      // --- routes: #room=NAME or the overview -------------------------------------------------
      function route() {
        if ($("app").hidden) return;
        const match = /^#room=(.*)$/.exec(location.hash);
        let room = null;
        if (match) {
          try { room = decodeURIComponent(match[1]); } catch (_) { room = ""; }
        }
        // The same route again (a click on its own link): keep what is shown, and the stream.
        if (room === shownRoute) {
          if (source === null && retryTimer === null && (room === null || validRoom(room))) startStream(room);
          return;
        }
        shownRoute = room;
        lastMessageId = -1;
        $("action-result").textContent = "";
        if (room !== null && !validRoom(room)) {
          $("overview").hidden = true;
          $("room-view").hidden = false;
          $("room-title").textContent = room;
          $("room-count").textContent = "";
          $("members").tBodies[0].replaceChildren();
          $("messages").replaceChildren();
          showResult({ status: 400, body: null, text: "not a room name (1-64 letters, digits, - _ .)" }, "room");
          stopStream();
          return;
        }
        $("overview").hidden = room !== null;
        $("room-view").hidden = room === null;
        document.title = room === null ? "Switchboard admin" : room + " · Switchboard admin";
        if (room !== null) {
          $("room-title").textContent = "# " + room;
          $("room-count").textContent = "";
          $("room-rate").textContent = "";
          $("members").tBodies[0].replaceChildren();
          $("messages").replaceChildren();
        } else {
          nodesKey = "";
          drawRooms(true);
        }
        if (source === null || streamRoom !== room) startStream(room);
      }
      window.addEventListener("hashchange", route);

      buildCharts();
      request("GET", "/admin/session").then((answer) => {
        if (answer.status === 200 && answer.body && answer.body.csrf) showApp(answer.body);
        else showLogin(answer.status === 401 ? "" : errorText(answer));
      });
    })();

    """#
}
