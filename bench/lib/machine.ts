/** What the figures were measured on: they mean little without it. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, release, totalmem } from 'node:os';

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly kernel: string;
  readonly os: string;
  readonly node: string;
  readonly srt: string;
  readonly bwrap: string;
  readonly loadAtStart: string;
}

export function describeMachine(): Machine {
  return {
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cores: cpus().length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    kernel: release(),
    os: osName(),
    node: process.version,
    srt: srtVersion(),
    bwrap: quiet(() => execFileSync('bwrap', ['--version'], { encoding: 'utf8' }).trim()),
    loadAtStart: loadavg()
      .map(value => value.toFixed(2))
      .join(' '),
  };
}

function osName(): string {
  return quiet(
    () => /^PRETTY_NAME="?([^"\n]*)/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? 'unknown',
  );
}

/** The srt the runtime package loads (its own dependency, not whatever the root has). */
function srtVersion(): string {
  return quiet(() => {
    const require = createRequire(new URL('../../packages/sandbox-runtime/package.json', import.meta.url));
    const manifest = require('@anthropic-ai/sandbox-runtime/package.json') as { version: string };
    return manifest.version;
  });
}

function quiet(read: () => string): string {
  try {
    return read();
  } catch {
    return 'unknown';
  }
}
