export type SandboxKind = 'srt' | 'local';

/** `EXAMPLE_SANDBOX`: `srt` (the default) or `local`. */
export function sandboxKind(): SandboxKind {
  const value = process.env.EXAMPLE_SANDBOX || 'srt';
  if (value !== 'srt' && value !== 'local') {
    throw new Error(
      `EXAMPLE_SANDBOX is ${JSON.stringify(value)}: set it to "srt" or "local", or leave it unset.`,
    );
  }
  return value;
}
