/**
 * Checks on what callers pass per call. The type checker does not run at runtime, and a NUL byte or a
 * non-string slipping into a path or an environment would otherwise surface as an obscure failure
 * deep in the supervisor.
 */
import { SandboxOptionsError } from '../errors.js';

export function assertPath(path: unknown, name: string): asserts path is string {
  if (typeof path !== 'string' || path.length === 0) {
    throw new SandboxOptionsError(`${name} must be a non-empty string, got ${describe(path)}`);
  }
  if (path.includes('\0'))
    throw new SandboxOptionsError(`${name} contains a NUL byte: ${JSON.stringify(path)}`);
}

export function assertCommand(command: unknown): asserts command is string {
  if (typeof command !== 'string')
    throw new SandboxOptionsError(`command must be a string, got ${describe(command)}`);
  if (command.includes('\0'))
    throw new SandboxOptionsError('command contains a NUL byte, which no shell can run');
}

export function assertEnvironment(env: unknown): asserts env is Record<string, string> {
  if (typeof env !== 'object' || env === null || Array.isArray(env)) {
    throw new SandboxOptionsError(`env must be an object of strings, got ${describe(env)}`);
  }
  for (const [name, value] of Object.entries(env)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new SandboxOptionsError(
        `env has an invalid variable name ${JSON.stringify(name)}: use letters, digits and _`,
      );
    }
    if (typeof value !== 'string') {
      throw new SandboxOptionsError(`env.${name} must be a string, got ${describe(value)}`);
    }
    if (value.includes('\0')) throw new SandboxOptionsError(`env.${name} contains a NUL byte`);
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? JSON.stringify(value) : typeof value;
}
