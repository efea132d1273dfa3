// Tests run the TypeScript sources, but the supervisor is a separate program the host starts with
// `node`: build its bundle once before any test needs it.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const core = fileURLToPath(new URL('../packages/sandbox-core', import.meta.url));
  execFileSync('pnpm', ['exec', 'tsup', '--silent'], { cwd: core, stdio: 'inherit' });
}
