/**
 * A byte stream to a TCP port where the supervisor runs. On Linux under srt that is the sandbox's own
 * network namespace, whose loopback the host cannot reach: this is how the host forwards a port.
 */
import { connect as connectTcp, type Socket } from 'node:net';
import type { SupervisorWire } from './wire.js';

export function openConnection(
  wire: SupervisorWire,
  port: number,
  host: string,
  stream: number,
): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connectTcp({ port, host, noDelay: true });
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.off('error', reject);
      let reset = false;
      wire.openInbound(stream, {
        write: chunk =>
          new Promise<void>((done, fail) => socket.write(chunk, error => (error ? fail(error) : done()))),
        end: () => socket.end(),
        reset: () => {
          reset = true;
          socket.destroy();
        },
      });
      void wire.pump(stream, socket).then(
        () => {
          if (!reset) wire.end(stream);
        },
        () => undefined,
      );
      socket.on('error', () => {
        if (!reset) wire.reset(stream);
        reset = true;
      });
      socket.once('close', () => wire.closeInbound(stream));
      resolve(socket);
    });
  });
}
