/**
 * Errors the sandbox packages throw. Each is a class of its own so callers can branch on it, and each
 * carries a marker under Symbol.for() so `isInstance` works across two copies of this code (a bundled
 * package and a test importing the sources, say).
 */

const MARKER = Symbol.for('ai-sdk-sandbox.error');

export class SandboxError extends Error {
  readonly [MARKER] = true;
  override name = 'SandboxError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }

  static isInstance(error: unknown): error is SandboxError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}

/**
 * The link to the supervisor is gone: it exited, was killed, or sent something that is not the
 * protocol. Every call pending on that link rejects with this, and so does every later call.
 */
export class SupervisorLinkError extends SandboxError {
  override name = 'SupervisorLinkError';
  constructor(
    message: string,
    readonly reason: 'exited' | 'protocol' | 'closed',
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A file operation failed inside the sandbox for a reason other than the file being absent. */
export class SandboxFileError extends SandboxError {
  override name = 'SandboxFileError';
  constructor(
    message: string,
    readonly code: string,
    readonly path: string,
  ) {
    super(message);
  }
}

/** A command could not be started, or the sandbox refused an operation. */
export class SandboxCommandError extends SandboxError {
  override name = 'SandboxCommandError';
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** An option or argument is wrong; the message says which and how to fix it. */
export class SandboxOptionsError extends SandboxError {
  override name = 'SandboxOptionsError';
}

/** The sandbox was stopped or destroyed; start or resume it again to use it. */
export class SandboxStoppedError extends SandboxError {
  override name = 'SandboxStoppedError';
}

/** A sandbox with this id exists already (create) or does not exist (resume). */
export class SandboxConflictError extends SandboxError {
  override name = 'SandboxConflictError';
  constructor(
    message: string,
    readonly sandboxId: string,
  ) {
    super(message);
  }
}

export class SandboxNotFoundError extends SandboxError {
  override name = 'SandboxNotFoundError';
  constructor(
    message: string,
    readonly sandboxId: string,
  ) {
    super(message);
  }
}

/** A sandbox's saved settings (`sandbox.json`) cannot be read: hand-edited, truncated, or from elsewhere. */
export class SandboxStateError extends SandboxError {
  override name = 'SandboxStateError';
  constructor(
    message: string,
    readonly file: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
