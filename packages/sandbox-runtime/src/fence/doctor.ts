import { SrtError } from '../srt-error.js';
import {
  diagnose,
  doctorChecks,
  gatherHostFacts,
  hostFactSources,
  type DoctorCheck,
  type FactSources,
} from './preflight.js';
import { resolveRuntimeSettings, type SrtRuntimeSettings } from './runtime-settings.js';
import { srtRuntime, type SrtRuntime } from './srt-runtime.js';

export type { DoctorCheck } from './preflight.js';

/**
 * Checks this host for srt, for a `doctor` command: the platform, the programs, the user
 * namespace restrictions, and (when nothing blocks it) a trivial command fenced for real, which
 * starts the process's srt with `settings`.
 */
export async function doctor(
  settings?: SrtRuntimeSettings,
  options: { readonly runtime?: SrtRuntime; readonly factSources?: FactSources } = {},
): Promise<DoctorCheck[]> {
  const resolved = resolveRuntimeSettings(settings, (options.factSources ?? hostFactSources).env);
  const facts = gatherHostFacts(resolved, options.factSources);
  const checks = doctorChecks(facts, resolved);
  if (diagnose(facts)) return checks;
  try {
    await (options.runtime ?? srtRuntime()).ensure(settings);
    checks.push({ name: 'fenced command', ok: true, detail: 'a trivial command ran under srt' });
  } catch (error) {
    const reason = SrtError.isInstance(error) ? error.reason : 'refused';
    checks.push({
      name: 'fenced command',
      ok: false,
      detail: error instanceof Error ? error.message : String(error),
      fix: `see the detail (${reason})`,
    });
  }
  return checks;
}
