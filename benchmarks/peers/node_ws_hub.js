// A broadcast server on the `ws` package, as its README's "broadcast to all connected
// clients, including itself" example: every message goes to every open client.
// Usage: NODE_PATH=<unpacked node-ws>/usr/share/nodejs node node_ws_hub.js PORT
'use strict';
const { WebSocketServer, WebSocket } = require('ws');

const port = Number(process.argv[2] || 8091);
const wss = new WebSocketServer({ host: '127.0.0.1', port, perMessageDeflate: false, backlog: 4096 });

wss.on('connection', (ws) => {
  ws.on('error', () => {});
  ws.on('message', (data, isBinary) => {
    for (const client of wss.clients) {
      if (client.readyState === WebSocket.OPEN) client.send(data, { binary: isBinary });
    }
  });
});
wss.on('listening', () => console.log(`node ws hub on 127.0.0.1:${port}`));
