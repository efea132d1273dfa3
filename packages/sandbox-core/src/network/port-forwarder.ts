/**
 * Forwards sandbox ports to the host's loopback. Under srt on Linux the sandbox has a network
 * namespace of its own, so a bridge listening on its 127.0.0.1 is out of the host's reach: each
 * forwarded port gets a listener on a free host port, and every connection to it is carried through
 * the supervisor, which dials the port inside.
 *
 * Forwarding starts on first use (the harness asks for an endpoint only when it connects) and stops
 * per port, so a view that releases its ports leaves the others' alone.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { SupervisorLink } from '../link/supervisor-link.js';

export interface ForwardedPort {
  readonly sandboxPort: number;
  readonly hostPort: number;
}

export class PortForwarder {
  private readonly listeners = new Map<number, Promise<{ server: Server; hostPort: number }>>();
  private readonly sockets = new Map<number, Set<Socket>>();

  constructor(private readonly link: () => SupervisorLink) {}

  /** The host port forwarding `sandboxPort`, listening from the first call on. */
  async forward(sandboxPort: number): Promise<ForwardedPort> {
    let listening = this.listeners.get(sandboxPort);
    if (!listening) {
      listening = this.listen(sandboxPort);
      this.listeners.set(sandboxPort, listening);
      listening.catch(() => this.listeners.delete(sandboxPort));
    }
    const { hostPort } = await listening;
    return { sandboxPort, hostPort };
  }

  /** Stops forwarding `sandboxPort`, closing its open connections too. */
  async unforward(sandboxPort: number): Promise<void> {
    const listening = this.listeners.get(sandboxPort);
    this.listeners.delete(sandboxPort);
    for (const socket of this.sockets.get(sandboxPort) ?? []) socket.destroy();
    this.sockets.delete(sandboxPort);
    const opened = await listening?.catch(() => undefined);
    if (opened) await new Promise<void>(resolve => opened.server.close(() => resolve()));
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.listeners.keys()].map(port => this.unforward(port)));
  }

  get forwardedPorts(): number[] {
    return [...this.listeners.keys()];
  }

  private listen(sandboxPort: number): Promise<{ server: Server; hostPort: number }> {
    const server = createServer({ noDelay: true }, socket => this.relay(sandboxPort, socket));
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port: 0, host: '127.0.0.1' }, () => {
        server.off('error', reject);
        const address = server.address();
        if (address === null || typeof address === 'string') return reject(new Error('no TCP address'));
        resolve({ server, hostPort: address.port });
      });
    });
  }

  private relay(sandboxPort: number, client: Socket): void {
    const open = this.sockets.get(sandboxPort) ?? new Set<Socket>();
    this.sockets.set(sandboxPort, open);
    open.add(client);
    client.once('close', () => open.delete(client));
    let upstream;
    try {
      // The client's first bytes (an HTTP request, a WebSocket upgrade) go out at once, without
      // waiting for the supervisor to report the connection.
      upstream = this.link().openConnection(sandboxPort);
    } catch {
      client.destroy();
      return;
    }
    const { socket: inside, connected } = upstream;
    // Nothing listening inside, or the sandbox stopped meanwhile: the client sees a reset.
    connected.catch(() => client.resetAndDestroy());
    client.pipe(inside).on('error', () => client.destroy());
    inside.pipe(client).on('error', () => inside.destroy());
    client.once('close', () => inside.destroy());
    inside.once('close', () => client.destroy());
    client.on('error', () => inside.destroy());
    inside.on('error', () => client.destroy());
  }
}
