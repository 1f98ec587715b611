// A WebSocket echo server on node's `ws` (Debian node-ws), for testing the Swift client
// against a server nobody here wrote. Binds 127.0.0.1 on a kernel-chosen port, prints
// "listening PORT", echoes every message (text as text, binary as binary) with
// permessage-deflate available, and exits after 120 s at the latest.
// usage: NODE_PATH=…/node-ws/usr/share/nodejs node node_ws_echo_server.js
const { WebSocketServer } = require('ws');
const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: true, maxPayload: 32 << 20 });
server.on('listening', () => console.log(`listening ${server.address().port}`));
server.on('connection', (socket) => {
  socket.on('message', (data, isBinary) => socket.send(data, { binary: isBinary }));
  socket.on('error', () => {});
});
setTimeout(() => process.exit(0), 120000).unref();
