import { describe, expect, it } from 'vitest';

import { endOrphanBridges, type OrphanBridgeDeps } from './orphan-bridges.js';

const bridge = (hex: string, port: number) => [
  'socat',
  `UNIX-LISTEN:/tmp/claude-http-${hex}.sock,fork,reuseaddr`,
  `TCP:localhost:${port},keepalive,keepidle=10,keepintvl=5,keepcnt=3`,
];

function deps(processes: Map<number, string[]>, deadPorts: number[]) {
  const killed: number[] = [];
  const removed: string[] = [];
  const fake: OrphanBridgeDeps = {
    processes: async () => processes,
    refuses: async port => deadPorts.includes(port),
    kill: pid => void killed.push(pid),
    unlink: async path => void removed.push(path),
  };
  return { fake, killed, removed };
}

describe('endOrphanBridges', () => {
  it('ends the bridges whose proxy port refuses, and removes their sockets', async () => {
    const { fake, killed, removed } = deps(
      new Map([
        [10, bridge('aa', 4000)],
        [11, bridge('bb', 4001)],
        [12, ['socat', 'TCP6-LISTEN:3128,fork', 'UNIX-CONNECT:/tmp/claude-http-cc.sock']],
        [13, ['node', 'UNIX-LISTEN:/tmp/claude-http-dd.sock,fork', 'TCP:localhost:4000,x']],
      ]),
      [4000],
    );
    expect(await endOrphanBridges('/tmp', fake)).toEqual(['/tmp/claude-http-aa.sock']);
    expect(killed).toEqual([10]);
    expect(removed).toEqual(['/tmp/claude-http-aa.sock']);
  });

  it('leaves the bridges of another directory', async () => {
    const { fake, killed } = deps(new Map([[10, bridge('aa', 4000)]]), [4000]);
    expect(await endOrphanBridges('/var/tmp', fake)).toEqual([]);
    expect(killed).toEqual([]);
  });
});
