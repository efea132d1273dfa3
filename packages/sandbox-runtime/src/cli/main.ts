#!/usr/bin/env node
/**
 * The `ai-sdk-sandbox-runtime` command. Ctrl-C or SIGTERM asks the running command to stop what it
 * started and clean up; a second one exits at once.
 */
import { runCli } from './run-cli.js';
import { INTERRUPTED_EXIT_CODE, processIo } from './cli-io.js';

const stop = new AbortController();
let signals = 0;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  // A listener of ours also tells srt's runtime to leave the decision to us.
  process.on(signal, () => {
    signals += 1;
    if (signals > 1) process.exit(INTERRUPTED_EXIT_CODE);
    stop.abort(new Error(`Stopped by ${signal}.`));
  });
}

const code = await runCli(process.argv.slice(2), processIo(stop.signal));
// srt's proxy keeps the event loop alive; exit once what was written has been flushed.
await new Promise(resolve => process.stdout.write('', resolve));
await new Promise(resolve => process.stderr.write('', resolve));
process.exit(code);
