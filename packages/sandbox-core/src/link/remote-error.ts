/**
 * An operation the supervisor reported as failed, with the errno-style code it gave. The session turns
 * it into the public error types; the code is whatever the sandbox said, so it is only ever compared
 * against known values, never trusted further.
 */
export class RemoteError extends Error {
  override name = 'RemoteError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
