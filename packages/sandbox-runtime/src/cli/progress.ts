import type { SrtProgressEvent } from '../srt-options.js';
import { line, type CliIo } from './cli-io.js';

/**
 * Prints the library's progress on stderr, so stdout carries nothing but the command's output.
 * Setup and template steps, which take seconds, are always shown; starting and ready only when
 * someone watches (stderr is a terminal), so a script's stderr stays the command's own.
 */
export function progressPrinter(
  io: CliIo,
  { always = false }: { always?: boolean } = {},
): (event: SrtProgressEvent) => void {
  const watched = always || io.stderr.isTTY === true;
  return event => {
    if (!watched && (event.phase === 'starting' || event.phase === 'ready')) return;
    line(
      io.stderr,
      `› ${event.phase === 'setup' || event.phase === 'template' ? `${event.phase}: ` : ''}${event.message}`,
    );
  };
}
