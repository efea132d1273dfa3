import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'vitest';
import { createSrtNetworkSandboxSession } from '../index.js';

test('smoke', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'srt-smoke-'));
  for (let i = 0; i < 3; i++) {
    let t = performance.now();
    const session = await createSrtNetworkSandboxSession({ directory, ports: [4000] });
    console.log('create ms', performance.now() - t);
    t = performance.now();
    await session.run({ command: 'true' });
    console.log('first run ms', performance.now() - t);
    t = performance.now();
    await session.stop();
    console.log('stop ms', performance.now() - t);
    t = performance.now();
    await session.destroy();
    console.log('destroy ms', performance.now() - t);
  }
}, 60000);
