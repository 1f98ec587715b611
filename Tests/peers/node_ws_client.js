#!/usr/bin/env node
// Drives switchboard with the node `ws` library (Debian's node-ws, unpacked; see
// scripts/install-test-peers.sh):
//   NODE_PATH=/var/cache/switchboard-peers/node-ws/usr/share/nodejs node node_ws_client.js ws://127.0.0.1:PORT [TIMEOUT_S]
// 1. `/`: the name as the first text frame (-> color), a JSON message, which comes back
//    as a `message` frame (every member, the sender included, receives it);
// 2. `/echo`: a binary message comes back as the same binary, a text one as text.
// Exit 0 when both pass; otherwise one line "FAIL: reason" and exit 1.
"use strict";

let WebSocket;
try {
  WebSocket = require("ws");
} catch (e) {
  try {
    WebSocket = require("/var/cache/switchboard-peers/node-ws/usr/share/nodejs/ws");
  } catch (e2) {
    console.log("FAIL: node module ws not found (set NODE_PATH to the unpacked node-ws)");
    process.exit(1);
  }
}
const crypto = require("crypto");

const base = (process.argv[2] || "").replace(/\/+$/, "");
const timeoutS = Number(process.argv[3] || 30);
if (!/^ws:\/\/(127\.|localhost|\[::1\])/.test(base)) {
  console.log("FAIL: usage: node_ws_client.js ws://127.0.0.1:PORT [TIMEOUT_S] (loopback only)");
  process.exit(1);
}

let step = "start";
const sockets = [];
function fail(reason) {
  console.log("FAIL: " + reason + " (step: " + step + ")");
  for (const s of sockets) { try { s.terminate(); } catch (_) {} }
  process.exit(1);
}
const hard = setTimeout(() => fail("hard timeout of " + timeoutS + "s"), timeoutS * 1000);

function open(url) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { handshakeTimeout: 10000, maxPayload: 64 * 1024 * 1024 });
    sockets.push(ws);
    const queue = [];
    let waiter = null;
    ws.on("message", (data, isBinary) => {
      queue.push({ data, isBinary });
      if (waiter) { const w = waiter; waiter = null; w(); }
    });
    ws.on("close", (code, reason) => {
      ws.closedWith = code;
      if (waiter) { const w = waiter; waiter = null; w(); }
    });
    ws.on("error", (err) => { reject(err); fail("socket error on " + url + ": " + err.message); });
    ws.on("open", () => resolve(ws));
    // Waits for a frame for which pred(frame) is true; earlier ones are skipped.
    ws.expect = (pred, what, ms = 10000) => new Promise((res) => {
      const deadline = Date.now() + ms;
      const check = () => {
        while (queue.length) {
          const f = queue.shift();
          if (pred(f)) return res(f);
        }
        if (ws.closedWith !== undefined) return fail(url + " closed (" + ws.closedWith + ") while waiting for " + what);
        const left = deadline - Date.now();
        if (left <= 0) return fail("no " + what + " on " + url + " within " + ms + " ms");
        const t = setTimeout(() => { waiter = null; check(); }, left);
        waiter = () => { clearTimeout(t); check(); };
      };
      check();
    });
  });
}

function json(f) {
  if (f.isBinary) return null;
  try { return JSON.parse(f.data.toString("utf8")); } catch (_) { return null; }
}

async function main() {
  const tag = crypto.randomBytes(4).toString("hex");
  const name = "node-" + tag;

  step = "connect /";
  const chat = await open(base + "/");
  step = "history";
  await chat.expect((f) => { const o = json(f); return o && o.type === "history" && Array.isArray(o.data); }, "history frame");
  step = "name";
  chat.send(name);
  const color = await chat.expect((f) => { const o = json(f); return o && o.type === "color"; }, "color frame");
  if (typeof json(color).data !== "string") fail("color frame without a colour: " + color.data);
  step = "message";
  const text = "hello from node ws " + tag + " ✓";
  chat.send(JSON.stringify({ type: "message", data: { text, ref: "n1" } }));
  const m = await chat.expect((f) => { const o = json(f); return o && o.type === "message" && o.data && o.data.text === text; },
    "message frame with the sent text");
  const d = json(m).data;
  if (d.author !== name) fail("message author " + JSON.stringify(d.author) + ", expected " + name);
  if (!Number.isInteger(d.id) || d.id < 1) fail("message id " + d.id);
  await chat.expect((f) => { const o = json(f); return o && o.type === "ack" && o.data && o.data.ref === "n1" && o.data.id === d.id; },
    "ack for ref n1");

  step = "connect /echo";
  const echo = await open(base + "/echo");
  step = "echo binary";
  const payload = crypto.randomBytes(300 * 1024);
  echo.send(payload, { binary: true });
  const b = await echo.expect(() => true, "echoed binary");
  if (!b.isBinary) fail("echo answered a binary message with text");
  if (!Buffer.from(b.data).equals(payload)) fail("echoed binary differs (" + b.data.length + " bytes)");
  step = "echo text";
  echo.send("echo " + tag);
  const t = await echo.expect(() => true, "echoed text");
  if (t.isBinary || t.data.toString("utf8") !== "echo " + tag) fail("echoed text differs: " + t.data);

  step = "close";
  await Promise.all([chat, echo].map((ws) => new Promise((res) => {
    ws.once("close", (code) => res(code));
    ws.close(1000, "done");
  })));
  clearTimeout(hard);
  console.log("OK: node ws client (chat message id " + d.id + ", echo binary " + payload.length + " bytes, deflate " +
    (chat.extensions.includes("permessage-deflate") ? "on" : "off") + ")");
  process.exit(0);
}

main().catch((e) => fail(e && e.stack ? e.stack.split("\n")[0] : String(e)));
