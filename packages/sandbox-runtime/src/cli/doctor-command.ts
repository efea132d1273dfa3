/**
 * `doctor`: whether this host can run sandboxes, and what to do if not. The fence's own checks
 * (platform, programs, user namespaces), Node's version, and a real sandbox started, given `true`
 * to run, and removed. Exits 0 only when every check passes, the real sandbox included.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { diagnose, doctorChecks, gatherHostFacts, type DoctorCheck } from '../fence/preflight.js';
import { resolveRuntimeSettings, type SrtRuntimeSettings } from '../fence/runtime-settings.js';
import { createSrtNetworkSandboxSession } from '../srt-lifecycle.js';
import { COMMON_OPTIONS, parseCommandArgs, runtimeSettings } from './args.js';
import { line, type CliIo } from './cli-io.js';
import { mark, renderTable } from './table.js';
import { DOCTOR_USAGE } from './usage.js';

export const MINIMUM_NODE = [22, 12] as const;

export function nodeCheck(version: string = process.versions.node): DoctorCheck {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const ok = major > MINIMUM_NODE[0] || (major === MINIMUM_NODE[0] && minor >= MINIMUM_NODE[1]);
  return {
    name: 'node',
    ok,
    detail: `v${version}${ok ? '' : ` (needs ${MINIMUM_NODE.join('.')} or later)`}`,
    ...(ok
      ? {}
      : { fix: 'Install Node.js 24 (or 22.12 or later), from nodejs.org or your package manager.' }),
  };
}

/** Starts a sandbox in a directory of its own, runs `true` in it and removes it. */
export async function probeSandbox(
  runtime: SrtRuntimeSettings | undefined,
  signal?: AbortSignal,
): Promise<DoctorCheck> {
  const directory = await mkdtemp(join(tmpdir(), 'ai-sdk-sandbox-runtime-doctor-'));
  const started = Date.now();
  try {
    const session = await createSrtNetworkSandboxSession({ directory, runtime, abortSignal: signal });
    try {
      const result = await session.run({ command: 'true', abortSignal: signal });
      if (result.exitCode !== 0) {
        return {
          name: 'sandbox',
          ok: false,
          detail: `a sandbox started, but \`true\` exited with ${result.exitCode}: ${result.stderr.trim()}`,
          fix: 'Report it with the output of this command.',
        };
      }
      return {
        name: 'sandbox',
        ok: true,
        detail: `started a sandbox and ran \`true\` in it (${Date.now() - started} ms)`,
      };
    } finally {
      await session.destroy();
    }
  } catch (error) {
    return {
      name: 'sandbox',
      ok: false,
      detail: `no sandbox could start: ${error instanceof Error ? error.message : String(error)}`,
      fix: 'See the detail; the checks above name the usual causes.',
    };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** The lines doctor prints: a mark per check, the fix under each failed one, and the verdict. */
export function doctorReport(checks: readonly DoctorCheck[]): string[] {
  const rows = renderTable(
    checks.map(check => [mark(check.ok), check.name, check.detail]),
    '  ',
  );
  const lines = ['ai-sdk-sandbox-runtime doctor'];
  checks.forEach((check, index) => {
    lines.push(rows[index]!);
    if (!check.ok && check.fix) {
      check.fix.split('\n').forEach((fix, n) => lines.push(`${n === 0 ? '     fix: ' : '          '}${fix}`));
    }
  });
  const ok = checks.every(check => check.ok);
  lines.push(
    '',
    ok ? 'This host can run sandboxes.' : 'This host cannot run sandboxes yet: see the fixes above.',
  );
  return lines;
}

export async function doctorCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('doctor', argv, COMMON_OPTIONS);
  if (values.help) {
    io.stdout.write(DOCTOR_USAGE);
    return 0;
  }
  const runtime = runtimeSettings(values);
  const resolved = resolveRuntimeSettings(runtime, io.env);
  const facts = gatherHostFacts(resolved);
  const checks = [nodeCheck(), ...doctorChecks(facts, resolved)];
  const blocker = diagnose(facts);
  checks.push(
    blocker
      ? { name: 'sandbox', ok: false, detail: 'not tried: fix the checks above first', fix: blocker.message }
      : await probeSandbox(runtime, io.signal),
  );

  for (const text of doctorReport(checks)) line(io.stdout, text);
  const ok = checks.every(check => check.ok);
  return ok ? 0 : 1;
}
