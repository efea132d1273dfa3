import { HarnessCapabilityUnsupportedError } from '@ai-sdk/harness';
import { describe, expect } from 'vitest';
import { SERVER_SCRIPT, waitForHttp, webSocketMessage } from './port-probes.js';
import { SETTLE_TIMEOUT, expectRejection, settle } from './settle.js';
import { drain } from './streams.js';
import type { ConformanceSuite } from './suite.js';

export function describePorts({ check, sharedSession }: ConformanceSuite): void {
  describe('ports', () => {
    const ctx = sharedSession();

    check('ports is an array of valid port numbers', [], async () => {
      expect(Array.isArray(ctx.session.ports)).toBe(true);
      for (const port of ctx.session.ports) {
        expect(Number.isInteger(port) && port > 0 && port < 65_536, `port ${port}`).toBe(true);
      }
    });

    check('a port not in `ports` is refused', [], async () => {
      let port = 1;
      while (ctx.session.ports.includes(port)) port += 1;
      for (const protocol of ['http', 'ws'] as const) {
        for (const [method, call] of [
          ['getPortEndpoint', () => ctx.session.getPortEndpoint({ port, protocol })],
          ['getPortUrl', () => ctx.session.getPortUrl({ port, protocol })],
        ] as const) {
          const error = await expectRejection(call, `${method}({port: ${port}, protocol: '${protocol}'})`);
          expect(
            HarnessCapabilityUnsupportedError.isInstance(error),
            `${method} rejects with HarnessCapabilityUnsupportedError, got ${String(error)}`,
          ).toBe(true);
        }
      }
    });

    check(
      'a server on each port answers HTTP and WebSocket from the host',
      ['ports', 'realProcesses'],
      async () => {
        expect(
          ctx.session.ports.length,
          "create() exposes at least one port, or skips 'ports'",
        ).toBeGreaterThan(0);
        for (const port of ctx.session.ports) {
          const reply = `hello-${port}`;
          const server = await ctx.session.spawn({
            command: 'exec node -e "$SERVER"',
            env: { SERVER: SERVER_SCRIPT, PORT: String(port), REPLY: reply },
          });
          const serverOutput = drain(server);
          try {
            const endpoint = await ctx.session.getPortEndpoint({ port, protocol: 'http' });
            expect(endpoint.url).toMatch(/^https?:\/\//);
            const body = await waitForHttp(new URL('/probe?x=1', endpoint.url), endpoint.headers);
            expect(body).toBe(`${reply} /probe?x=1`);

            // claude-code 1.0.41 appends its token to getPortUrl()'s result by string concatenation.
            const wsUrl = await ctx.session.getPortUrl({ port, protocol: 'ws' });
            expect(wsUrl).toMatch(/^wss?:\/\//);
            expect(wsUrl).not.toContain('?');
            const message = await webSocketMessage(`${wsUrl}?agent_bridge_token=t0k`);
            expect(message).toBe(`${reply} /?agent_bridge_token=t0k`);

            const wsEndpoint = await ctx.session.getPortEndpoint({ port, protocol: 'ws' });
            expect(wsEndpoint.url).toMatch(/^wss?:\/\//);
            const url = new URL(wsEndpoint.url);
            url.searchParams.set('agent_bridge_token', 't1k');
            expect(await webSocketMessage(url.toString(), wsEndpoint.headers)).toBe(
              `${reply} ${url.pathname}?agent_bridge_token=t1k`,
            );
          } finally {
            await server.kill();
            await settle(serverOutput, SETTLE_TIMEOUT, 'the server to end');
          }
        }
      },
      60_000,
    );
  });
}
