import { SETTLE_TIMEOUT, within } from './settle.js';

/**
 * An HTTP server that answers `<REPLY> <path+query>`, and a minimal WebSocket endpoint that sends the
 * same as one text frame after the handshake (enough to prove upgrades pass through the forwarding).
 */
export const SERVER_SCRIPT = `
const http = require('node:http');
const crypto = require('node:crypto');
const answer = (req) => process.env.REPLY + ' ' + req.url;
const server = http.createServer((req, res) => res.end(answer(req)));
server.on('upgrade', (req, socket) => {
  const accept = crypto.createHash('sha1')
    .update(req.headers['sec-websocket-key'] + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
  socket.write('HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\n' +
    'Sec-WebSocket-Accept: ' + accept + '\\r\\n\\r\\n');
  const payload = Buffer.from(answer(req));
  socket.write(Buffer.concat([Buffer.from([0x81, payload.length]), payload]));
  socket.on('data', () => socket.destroy());
  socket.on('error', () => {});
});
server.listen(Number(process.env.PORT), '0.0.0.0');
`;

/** Fetches `url` until the server behind the forwarded port answers. */
export async function waitForHttp(url: URL, headers?: Readonly<Record<string, string>>): Promise<string> {
  const deadline = Date.now() + SETTLE_TIMEOUT;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url, { headers: { ...headers }, signal: AbortSignal.timeout(5_000) });
      const body = await response.text();
      if (response.ok) return body;
      last = `HTTP ${response.status}: ${body}`;
    } catch (error) {
      last = error;
    }
    await new Promise(resolve => setTimeout(resolve, 100));
  }
  throw new Error(`${url.href} did not answer within ${SETTLE_TIMEOUT} ms; last: ${String(last)}`);
}

/** Opens a WebSocket and resolves with the first message the server sends. */
export function webSocketMessage(url: string, headers?: Readonly<Record<string, string>>): Promise<string> {
  const received = new Promise<string>((resolve, reject) => {
    // Node's WebSocket (undici) takes `{ headers }` as its second argument; the DOM type does not say so.
    const socket =
      headers === undefined ? new WebSocket(url) : new WebSocket(url, { headers } as unknown as string[]);
    socket.onmessage = event => {
      resolve(String(event.data));
      socket.close();
    };
    socket.onerror = () => reject(new Error(`WebSocket to ${url} failed`));
    socket.onclose = () => reject(new Error(`WebSocket to ${url} closed before a message`));
  });
  return within(received, SETTLE_TIMEOUT, `a message over the WebSocket to ${url}`);
}
