/**
 * HTTPS out of the sandbox: under srt it goes through srt's proxy in this process (CONNECT, then TLS
 * terminated and re-made upstream), against curl on the host straight to the server. The figure is
 * curl's own total time for the request, so starting curl is not in it. The npm registry's ping is
 * the only host reachable here.
 */
import type { BenchContext } from '../lib/context.ts';
import { hostRun, type RunResult } from '../lib/host.ts';
import { interleave } from '../lib/interleave.ts';

const GROUP = 'Network';
const URL = 'https://registry.npmjs.org/-/ping';
const CURL = `curl -sS -o /dev/null -w '%{http_code} %{time_total}' ${URL}`;

export async function httpsCases(context: BenchContext): Promise<void> {
  const { srt, local } = context;
  const timed = (result: RunResult) => {
    const [code, seconds] = result.stdout.trim().split(' ');
    if (code !== '200') throw new Error(`HTTPS request failed: ${result.stdout} ${result.stderr}`);
    return Number(seconds) * 1000;
  };
  const samples = await interleave(
    [
      { name: 'host', run: async () => timed(await hostRun(CURL)) },
      { name: 'local', run: async () => timed(await local.run({ command: CURL })) },
      { name: 'srt', run: async () => timed(await srt.run({ command: CURL })) },
    ],
    { iterations: context.n(20), warmup: 2 },
  );
  context.results.addCase(GROUP, `HTTPS GET ${URL} (curl, new connection)`, samples, {
    notes: { srt: "through srt's proxy, TLS terminated in the host process" },
  });
}
