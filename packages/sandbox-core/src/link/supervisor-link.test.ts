import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { SupervisorLinkError } from '../errors.js';
import { encodeFrame, encodeJsonFrame, FrameKind, MAX_FRAME_PAYLOAD } from '../protocol/frame.js';
import { SupervisorLink } from './supervisor-link.js';
import { locateSupervisorScript, SupervisorProcess } from './supervisor-process.js';

const text = (stream: ReadableStream<Uint8Array>) => new Response(stream).text();

/** A link whose "supervisor" is this test: it writes whatever bytes it likes into the host side. */
function fakeSupervisor() {
  const fromSupervisor = new PassThrough();
  const toSupervisor = new PassThrough();
  const link = new SupervisorLink({ fromSupervisor, toSupervisor });
  return { link, fromSupervisor, toSupervisor };
}

describe('SupervisorLink against hostile bytes', () => {
  const cases: Array<[string, Buffer]> = [
    ['an unknown frame kind', Buffer.from([0, 0, 0, 0, 99, 0, 0, 0, 1])],
    ['a frame over the size limit', encodeFrame(FrameKind.Reply, 1).fill(0xff, 0, 4)],
    ['a reply that is not JSON', encodeFrame(FrameKind.Reply, 1, Buffer.from('{nope'))],
    ['a reply of the wrong shape', encodeJsonFrame(FrameKind.Reply, 1, { ok: 'yes' })],
    ['an exit code out of range', encodeJsonFrame(FrameKind.Event, 1, { type: 'exit', exitCode: 1e9 })],
    ['a call from the supervisor', encodeJsonFrame(FrameKind.Call, 1, { op: 'ping' })],
    ['a credit frame of the wrong size', encodeFrame(FrameKind.Credit, 1, Buffer.from([1]))],
  ];

  it.each(cases)('ends the link with a typed error on %s, and rejects pending calls', async (_, bytes) => {
    const { link, fromSupervisor } = fakeSupervisor();
    const pending = link.ping();
    fromSupervisor.write(bytes);
    const error = await pending.catch(e => e);
    expect(error).toBeInstanceOf(SupervisorLinkError);
    expect(error.reason).toBe('protocol');
    expect(link.isOpen).toBe(false);
    // Later calls fail the same way instead of hanging.
    await expect(link.ping()).rejects.toBeInstanceOf(SupervisorLinkError);
  });

  it('refuses stream bytes beyond the credit it granted', async () => {
    const { link, fromSupervisor, toSupervisor } = fakeSupervisor();
    const calls: Array<{ id: number; stream: number }> = [];
    toSupervisor.on('data', (chunk: Buffer) => {
      // The first frame the host sends is the readFile call; answer it, then flood its stream.
      if (chunk.readUInt8(4) !== FrameKind.Call) return;
      const request = JSON.parse(chunk.subarray(9).toString()) as { stream: number };
      calls.push({ id: chunk.readUInt32BE(5), stream: request.stream });
    });
    const reading = link.readFile('/x');
    await new Promise(resolve => setImmediate(resolve));
    const { id, stream } = calls[0]!;
    fromSupervisor.write(encodeJsonFrame(FrameKind.Reply, id, { ok: true, value: { found: true } }));
    const body = (await reading)!;
    const chunk = Buffer.alloc(256 * 1024);
    for (let i = 0; i < 5; i++) fromSupervisor.write(encodeFrame(FrameKind.Data, stream, chunk));
    await expect(text(body)).rejects.toBeInstanceOf(SupervisorLinkError);
    expect(link.error?.reason).toBe('protocol');
  });

  it('never buffers more than one frame of a peer that announces a huge one', () => {
    const { link, fromSupervisor } = fakeSupervisor();
    const head = Buffer.alloc(9);
    head.writeUInt32BE(MAX_FRAME_PAYLOAD + 1, 0);
    head.writeUInt8(FrameKind.Data, 4);
    fromSupervisor.write(head);
    expect(link.error?.reason).toBe('protocol');
  });

  it('ignores replies to calls it never made', async () => {
    const { link, fromSupervisor, toSupervisor } = fakeSupervisor();
    fromSupervisor.write(encodeJsonFrame(FrameKind.Reply, 4242, { ok: true }));
    let callId = 0;
    toSupervisor.once('data', (chunk: Buffer) => (callId = chunk.readUInt32BE(5)));
    const pending = link.ping();
    await new Promise(resolve => setImmediate(resolve));
    fromSupervisor.write(encodeJsonFrame(FrameKind.Reply, callId, { ok: true }));
    await expect(pending).resolves.toBeUndefined();
    expect(link.isOpen).toBe(true);
  });
});

describe('SupervisorLink with the real supervisor', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function start() {
    const directory = await mkdtemp(join(tmpdir(), 'link-test-'));
    const child = spawn(process.execPath, [locateSupervisorScript()], { stdio: ['pipe', 'pipe', 'pipe'] });
    const supervisor = await SupervisorProcess.connect(child, {
      processTag: `link-test-${process.pid}-${Math.random()}`,
      defaultWorkingDirectory: directory,
      env: {},
      unsetEnv: [],
      killGraceMs: 200,
    });
    cleanups.push(async () => {
      await supervisor.stop();
      await rm(directory, { recursive: true, force: true });
    });
    return { supervisor, child, directory };
  }

  it('rejects every pending call with a typed error when the supervisor is killed mid-call', async () => {
    const { supervisor, child, directory } = await start();
    const { link } = supervisor;
    const sleeper = await link.spawn({ command: 'sleep 30' });
    const output = text(sleeper.stdout);
    // A write that is still streaming when the supervisor dies.
    const never = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => undefined) });
    const writing = link.writeFile(join(directory, 'half.txt'), never);
    const pings = [link.ping(), link.ping()];
    child.kill('SIGKILL');
    const outcomes = await Promise.allSettled([sleeper.exited, output, writing, ...pings]);
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      const reason = (outcome as PromiseRejectedResult).reason;
      expect(reason).toBeInstanceOf(SupervisorLinkError);
      expect(reason.reason).toBe('exited');
    }
    await expect(link.spawn({ command: 'true' })).rejects.toBeInstanceOf(SupervisorLinkError);
  });

  it('leaves the old content when a write is cut short', async () => {
    const { supervisor, child, directory } = await start();
    const target = join(directory, 'kept.txt');
    await supervisor.link.writeFile(target, [Buffer.from('old content')]);
    let sent = 0;
    const slow = new ReadableStream<Uint8Array>({
      pull: async controller => {
        if (sent++ === 3) child.kill('SIGKILL');
        controller.enqueue(Buffer.alloc(64 * 1024, 0x41));
        await new Promise(resolve => setTimeout(resolve, 5));
      },
    });
    await expect(supervisor.link.writeFile(target, slow)).rejects.toBeInstanceOf(SupervisorLinkError);
    expect(await readFile(target, 'utf8')).toBe('old content');
  });

  it('streams a command’s output and reports its exit code', async () => {
    const { supervisor } = await start();
    const process = await supervisor.link.spawn({ command: 'echo out; echo err >&2; exit 7' });
    expect(await text(process.stdout)).toBe('out\n');
    expect(await text(process.stderr)).toBe('err\n');
    expect(await process.exited).toBe(7);
  });

  it('connects to a port where the supervisor runs', async () => {
    const { supervisor } = await start();
    const server = await supervisor.link.spawn({
      command: `exec node -e "require('net').createServer(s => s.pipe(s)).listen(0, '127.0.0.1', function () { console.log(this.address().port) })"`,
    });
    const reader = server.stdout.getReader();
    const port = Number(new TextDecoder().decode((await reader.read()).value).trim());
    const socket = await supervisor.link.connect(port);
    const echoed = new Promise<string>(resolve =>
      socket.once('data', (data: Buffer) => resolve(data.toString())),
    );
    socket.write('ping through the link');
    expect(await echoed).toBe('ping through the link');
    socket.destroy();
    await server.kill();
  });
});
