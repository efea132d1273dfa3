/**
 * The supervisor: the one long-running process of a sandbox. The host starts it (under srt, or plainly
 * for the local sandbox) and talks to it over stdin/stdout; every command, file operation and
 * connection of the sandbox is carried out here.
 *
 * This folder imports nothing from the host side: it is bundled on its own and runs inside the fence.
 * It never prints to stdout (that is the wire); diagnostics go to stderr.
 */
import type { ChildProcess } from 'node:child_process';
import { platform } from 'node:os';
import { PROTOCOL_VERSION, type CallRequest, type SupervisorConfig } from '../protocol/messages.js';
import { openConnection } from './connect.js';
import { readFileTo, resolvePath, writeFileFrom } from './file-ops.js';
import { terminateSandboxProcesses } from './process-tree.js';
import { spawnCommand } from './spawn-command.js';
import { SupervisorWire } from './wire.js';

let config: SupervisorConfig | undefined;
/** Marks a reply the handler already sent itself. */
const SENT = Symbol('sent');
const running = new Map<number, ChildProcess>();

const wire = new SupervisorWire(process.stdout, (call, id) => {
  handle(call, id).then(
    value => {
      if (value !== SENT) wire.reply(id, { ok: true, value });
    },
    (error: NodeJS.ErrnoException) => {
      wire.reply(id, { ok: false, error: { code: error.code ?? 'EIO', message: error.message } });
      for (const stream of streamsOf(call)) {
        wire.reset(stream);
        // Bytes the host sent ahead (a forwarded connection's first request) are dropped with it.
        wire.closeInbound(stream);
      }
    },
  );
});

async function handle(call: CallRequest, id: number): Promise<unknown> {
  if (call.op === 'hello') {
    config = call.config;
    return {
      protocol: PROTOCOL_VERSION,
      pid: process.pid,
      platform: platform(),
      defaultWorkingDirectory: config.defaultWorkingDirectory,
    };
  }
  if (call.op === 'ping') return {};
  if (!config) throw Object.assign(new Error('hello must come first'), { code: 'EINVAL' });
  const settings = config;
  switch (call.op) {
    case 'spawn': {
      const child = await spawnCommand(wire, settings, call, tagOf(id), exitCode => {
        running.delete(id);
        wire.event(id, { type: 'exit', exitCode });
      });
      running.set(id, child);
      return { pid: child.pid ?? 0 };
    }
    case 'kill': {
      const roots = running.get(call.call)?.pid;
      await terminateSandboxProcesses(
        { tag: tagOf(call.call), roots: roots ? [roots] : [] },
        { graceMs: settings.killGraceMs },
      );
      return {};
    }
    case 'killAll':
      return {
        killed: await terminateSandboxProcesses(
          {
            prefix: `${settings.processTag}:`,
            roots: runningPids(),
            wholeNamespace: settings.ownsPidNamespace,
          },
          { graceMs: settings.killGraceMs },
        ),
      };
    case 'readFile': {
      let answered = false;
      try {
        // The reply goes out before the bytes, so the host knows whether to expect any.
        await readFileTo(wire, resolvePath(settings, call.path), call.stream, value => {
          answered = true;
          wire.reply(id, { ok: true, value });
        });
      } catch (error) {
        if (!answered) throw error;
        const { code = 'EIO', message } = error as NodeJS.ErrnoException;
        wire.reset(call.stream, { code, message });
      }
      return SENT;
    }
    case 'writeFile':
      await writeFileFrom(wire, resolvePath(settings, call.path), call.stream);
      return {};
    case 'connect':
      await openConnection(wire, call.port, call.host ?? '127.0.0.1', call.stream);
      return {};
  }
}

function tagOf(callId: number): string {
  return `${config?.processTag ?? 'untagged'}:${callId}`;
}

function runningPids(): number[] {
  return [...running.values()].flatMap(child => (child.pid ? [child.pid] : []));
}

function streamsOf(call: CallRequest): number[] {
  if (call.op === 'spawn') return [call.stdout, call.stderr];
  if ('stream' in call) return [call.stream];
  return [];
}

// When the host goes away (it exited, or was killed), nothing is left to supervise: end every process
// of the sandbox and exit, so that no orphan outlives the host even without srt's namespace.
function shutdown(): void {
  const tag = config?.processTag;
  const done = tag
    ? terminateSandboxProcesses({ prefix: `${tag}:`, roots: runningPids() }, { graceMs: 500 })
    : Promise.resolve(0);
  void done.finally(() => process.exit(0));
}

process.stdout.on('error', shutdown);
wire.attach(process.stdin, shutdown);
process.on('SIGTERM', shutdown);
process.on('SIGHUP', shutdown);
