// The seed apps' JSON chat protocol (the tutorial server their Starscream client talks
// to), on the `ws` package, written for the benchmarks. What it does, as that protocol
// defines it:
//   - on connect: `{"type":"history","data":[…]}` with the kept messages, if any;
//   - a client's first text frame is its name: answered `{"type":"color","data":C}`;
//   - every later text frame is a message: `{"type":"message","data":{"time","text",
//     "author","color"}}` to every open client (the sender included), kept in a
//     history of the last 100; text and names are HTML-escaped.
// One addition, so `switchboard bench --protocol json` drives it exactly as it drives
// Switchboard's JSON dialect: a frame holding `{"type":"message","data":{"text":T}}`
// (Switchboard's form of a message) is the message T, and a client that sends messages
// before a name is called `Client N`. Each broadcast is encoded once and the same bytes
// go to every client.
// Usage: NODE_PATH=<unpacked node-ws>/usr/share/nodejs node node_json_chat.js PORT
'use strict';
const { WebSocketServer, WebSocket } = require('ws');

const port = Number(process.argv[2] || 8092);
const historyLimit = 100;
const palette = ['red', 'green', 'blue', 'magenta', 'purple', 'plum', 'orange'];
const escapes = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const escapeHTML = (s) => s.replace(/[&<>"]/g, (c) => escapes[c]);

const history = [];
let joined = 0;
const wss = new WebSocketServer({ host: '127.0.0.1', port, perMessageDeflate: false, backlog: 4096 });

// The text of a Switchboard-style message frame, or null for anything else.
function messageText(raw) {
  if (raw.length === 0 || raw[0] !== '{') return null;
  try {
    const frame = JSON.parse(raw);
    if (frame && frame.type === 'message' && frame.data && typeof frame.data.text === 'string') {
      return frame.data.text;
    }
  } catch (e) {
    // not JSON: plain text
  }
  return null;
}

wss.on('connection', (ws) => {
  joined += 1;
  const member = { name: null, color: palette[(joined - 1) % palette.length], number: joined };
  ws.on('error', () => {});
  if (history.length > 0) ws.send(JSON.stringify({ type: 'history', data: history }));
  ws.on('message', (data, isBinary) => {
    if (isBinary) return;
    const raw = data.toString('utf8');
    let text = messageText(raw);
    if (text === null && member.name === null) {
      member.name = escapeHTML(raw);
      ws.send(JSON.stringify({ type: 'color', data: member.color }));
      return;
    }
    if (text === null) text = raw;
    const entry = {
      time: Date.now(),
      text: escapeHTML(text),
      author: member.name === null ? `Client ${member.number}` : member.name,
      color: member.color,
    };
    history.push(entry);
    if (history.length > historyLimit) history.shift();
    const frame = Buffer.from(JSON.stringify({ type: 'message', data: entry }));
    for (const client of wss.clients) {
      if (client.readyState === WebSocket.OPEN) client.send(frame, { binary: false });
    }
  });
});
wss.on('listening', () => console.log(`node JSON chat server on 127.0.0.1:${port}`));
