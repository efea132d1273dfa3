/**
 * A started supervisor process and its link: the handshake, the tail of its stderr for diagnostics,
 * and a stop that always leaves no process behind.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SandboxError, SupervisorLinkError } from '../errors.js';
import { PROTOCOL_VERSION, type HelloValue, type SupervisorConfig } from '../protocol/messages.js';
import { SupervisorLink } from './supervisor-link.js';

/** How much of the supervisor's stderr is kept to explain a failure. */
const STDERR_TAIL_BYTES = 8 * 1024;
/** How long a stopping supervisor gets to exit on its own before it is killed. */
const EXIT_GRACE_MS = 2_000;
/** How long a stopping supervisor gets to end the sandbox's processes (it waits their grace itself). */
const KILL_ALL_TIMEOUT_MS = 10_000;

/**
 * The supervisor program. Bundled packages ship it beside their entry file; in this repository's
 * tests it is the core's own build.
 */
export function locateSupervisorScript(): string {
  const candidates = [
    new URL('./supervisor.js', import.meta.url),
    new URL('../../dist/supervisor.js', import.meta.url),
  ];
  for (const candidate of candidates) {
    const path = fileURLToPath(candidate);
    if (existsSync(path)) return path;
  }
  throw new SandboxError(
    `The sandbox supervisor program is missing (looked for ${candidates.map(c => fileURLToPath(c)).join(', ')}). ` +
      'Reinstall the package, or run the build in a checkout.',
  );
}

export class SupervisorProcess {
  readonly link: SupervisorLink;
  private stderrTail = '';
  private readonly exited: Promise<void>;

  private constructor(
    readonly child: ChildProcess,
    readonly hello: HelloValue,
    link: SupervisorLink,
  ) {
    this.link = link;
    this.exited = new Promise(resolve => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', () => resolve());
    });
  }

  /**
   * Links to a freshly spawned supervisor (stdio: pipe, pipe, pipe) and configures it. Rejects with a
   * SupervisorLinkError that includes the supervisor's stderr when it dies before answering.
   */
  static async connect(
    child: ChildProcess,
    config: SupervisorConfig,
    options: { abortSignal?: AbortSignal; describeFailure?: (stderr: string) => string | undefined } = {},
  ): Promise<SupervisorProcess> {
    if (!child.stdout || !child.stdin || !child.stderr)
      throw new SandboxError('the supervisor needs piped stdio');
    const link = new SupervisorLink({ fromSupervisor: child.stdout, toSupervisor: child.stdin });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      stderr = (stderr + text).slice(-STDERR_TAIL_BYTES);
    });
    const spawnFailed = new Promise<never>((_, reject) =>
      child.once('error', error =>
        reject(
          new SupervisorLinkError(`the sandbox supervisor could not start: ${error.message}`, 'exited', {
            cause: error,
          }),
        ),
      ),
    );
    const onAbort = () => child.kill('SIGKILL');
    options.abortSignal?.addEventListener('abort', onAbort, { once: true });
    try {
      const hello = await Promise.race([link.hello(config), spawnFailed]);
      if (hello.protocol !== PROTOCOL_VERSION) {
        throw new SupervisorLinkError(
          `the sandbox supervisor speaks protocol ${hello.protocol}, this host ${PROTOCOL_VERSION}: reinstall the package`,
          'protocol',
        );
      }
      const process = new SupervisorProcess(child, hello, link);
      process.stderrTail = stderr;
      child.stderr.on('data', (text: string) => {
        process.stderrTail = (process.stderrTail + text).slice(-STDERR_TAIL_BYTES);
      });
      return process;
    } catch (error) {
      child.kill('SIGKILL');
      options.abortSignal?.throwIfAborted();
      if (error instanceof SupervisorLinkError && error.reason === 'exited') {
        await new Promise(resolve => setTimeout(resolve, 20)); // let the last stderr arrive
        const explained = options.describeFailure?.(stderr);
        if (explained) throw new SupervisorLinkError(explained, 'exited', { cause: error });
        const detail = stderr.trim();
        if (detail) throw new SupervisorLinkError(`${error.message}: ${detail}`, 'exited', { cause: error });
      }
      throw error;
    } finally {
      options.abortSignal?.removeEventListener('abort', onAbort);
    }
  }

  /** What the supervisor printed to stderr lately (diagnostics, never protocol). */
  get recentStderr(): string {
    return this.stderrTail;
  }

  /**
   * Ends every process of the sandbox, then the supervisor. Safe to call on a dead supervisor, and
   * twice. Killing the processes first matters: without srt's namespace, nothing else would.
   */
  async stop(): Promise<void> {
    if (this.link.isOpen) {
      // A supervisor the sandbox froze (kill -STOP) or wedged never answers: the kill below ends it.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.link.killAll().catch(() => undefined),
        new Promise(resolve => (timer = setTimeout(resolve, KILL_ALL_TIMEOUT_MS))),
      ]);
      clearTimeout(timer);
      this.link.close();
    }
    this.child.stdin?.end();
    const exited = await Promise.race([
      this.exited.then(() => true),
      new Promise<boolean>(resolve => setTimeout(() => resolve(false), EXIT_GRACE_MS).unref()),
    ]);
    if (!exited) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }
}
