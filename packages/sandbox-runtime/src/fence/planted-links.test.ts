import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { SrtError } from '../srt-error.js';
import { ensureLayout, sandboxLayout } from './layout.js';
import { removePlantedLinks } from './planted-links.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

async function setup() {
  const root = mkdtempSync(join(tmpdir(), 'planted-links-'));
  roots.push(root);
  const layout = sandboxLayout('box', join(root, 'sandboxes'));
  await ensureLayout(layout);
  const victim = join(root, 'victim');
  mkdirSync(victim);
  writeFileSync(join(victim, 'keep.txt'), 'host file');
  return { layout, victim };
}

describe('removePlantedLinks', () => {
  it('puts back a directory the sandbox swapped for a link to the host, leaving the target alone', async () => {
    const { layout, victim } = await setup();
    rmSync(layout.tmp, { recursive: true });
    symlinkSync(victim, layout.tmp);
    rmSync(layout.home, { recursive: true });
    writeFileSync(layout.home, 'not a directory');
    expect(await removePlantedLinks(layout)).toEqual([layout.home, layout.tmp]);
    expect(lstatSync(layout.tmp).isDirectory()).toBe(true);
    expect(lstatSync(layout.home).isDirectory()).toBe(true);
    expect(readFileSync(join(victim, 'keep.txt'), 'utf8')).toBe('host file');
  });

  it('leaves real directories as they are', async () => {
    const { layout } = await setup();
    writeFileSync(join(layout.tmp, 'kept'), 'x');
    expect(await removePlantedLinks(layout)).toEqual([]);
    expect(existsSync(join(layout.tmp, 'kept'))).toBe(true);
  });

  it('refuses a sandbox whose own directory parts are links', async () => {
    const { layout, victim } = await setup();
    rmSync(layout.supervisorDir, { recursive: true });
    symlinkSync(victim, layout.supervisorDir);
    await expect(removePlantedLinks(layout)).rejects.toBeInstanceOf(SrtError);
  });
});
