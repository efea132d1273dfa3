import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

import { openDescriptorsAboveStderr, withDescriptorsClosed } from './inherited-descriptors.js';

describe('inherited descriptors', () => {
  it('lists only numbers above stderr, sorted', () => {
    expect(openDescriptorsAboveStderr(() => ['0', '1', '2', '251', '3', '10', 'x'])).toEqual([3, 10, 251]);
  });

  it('closes them for the command bash execs, which keeps its place', () => {
    const command = withDescriptorsClosed(`ls /proc/self/fd`, [200, 201]);
    // A shell that holds fd 200 open (as an inherited descriptor would be) runs the edited command.
    const result = spawnSync('/bin/bash', ['-c', `exec 200</dev/null 201</dev/null; ${command}`], {
      encoding: 'utf8',
    });
    const fds = result.stdout.split('\n').filter(Boolean).map(Number);
    expect(fds).not.toContain(200);
    expect(fds).not.toContain(201);
    expect(fds).toContain(0);
  });

  it('execs the command even with nothing to close', () => {
    expect(withDescriptorsClosed('bwrap --x', [])).toBe('exec bwrap --x');
  });
});
