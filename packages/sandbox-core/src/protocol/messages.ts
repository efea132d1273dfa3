/**
 * The JSON messages carried by CALL, REPLY and EVENT frames.
 *
 * The host allocates every id (calls and streams share one counter), so the supervisor never has to
 * invent one and a hostile supervisor cannot open a stream the host did not ask for. Streams named in
 * a call are created by that call; bytes on an unknown stream are dropped.
 *
 * Flow control is credit based and per stream: a sender may have at most INITIAL_STREAM_CREDIT bytes
 * outstanding until the receiver grants more with CREDIT frames, as it consumes what it got. Neither
 * side therefore buffers more than that per stream, whatever the other does.
 */

export const PROTOCOL_VERSION = 1;

export const INITIAL_STREAM_CREDIT = 1024 * 1024;

/** Where the supervisor starts commands and resolves relative paths, and what it adds to every command. */
export interface SupervisorConfig {
  /** Marks every process the supervisor starts, so kill-all finds descendants that left its tree. */
  processTag: string;
  defaultWorkingDirectory: string;
  /** Merged over the supervisor's own environment for every command. */
  env: Record<string, string>;
  /** Variables removed from the supervisor's environment before commands see it. */
  unsetEnv: string[];
  /** Milliseconds between SIGTERM and SIGKILL when ending processes. */
  killGraceMs: number;
  /**
   * The supervisor's PID namespace holds the sandbox's processes only (srt), so kill-all may end
   * every process in it, tagged or not.
   */
  ownsPidNamespace?: boolean;
}

export type CallRequest =
  | { op: 'hello'; config: SupervisorConfig }
  | { op: 'ping' }
  | {
      op: 'spawn';
      command: string;
      workingDirectory?: string;
      env?: Record<string, string>;
      stdout: number;
      stderr: number;
    }
  | { op: 'kill'; call: number }
  | { op: 'killAll' }
  | { op: 'readFile'; path: string; stream: number }
  | { op: 'writeFile'; path: string; stream: number }
  | { op: 'connect'; port: number; host?: string; stream: number };

export type CallOp = CallRequest['op'];

/** Error codes a REPLY may carry. Anything else from the supervisor is treated as `EIO`. */
export const FILE_ERROR_CODES = [
  'ENOENT',
  'EACCES',
  'EPERM',
  'EISDIR',
  'ENOTDIR',
  'ENOSPC',
  'EROFS',
  'EEXIST',
  'ELOOP',
  'EINVAL',
  'EIO',
] as const;

export interface ReplyError {
  code: string;
  message: string;
}

export type Reply = { ok: true; value?: unknown } | { ok: false; error: ReplyError };

export interface HelloValue {
  protocol: number;
  pid: number;
  platform: string;
  defaultWorkingDirectory: string;
}

export interface SpawnValue {
  pid: number;
}

export interface ReadFileValue {
  /** False when the file does not exist: the read resolves to null. */
  found: boolean;
  size?: number;
}

export interface KillAllValue {
  killed: number;
}

/** EVENT payloads. */
export type CallEvent = { type: 'exit'; exitCode: number };
