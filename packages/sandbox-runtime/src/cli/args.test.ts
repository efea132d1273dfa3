import { SandboxOptionsError } from '@internal/sandbox-core';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ALLOWED_DOMAINS } from '../fence/default-allowed-domains.js';
import { parseCommandArgs, SANDBOX_OPTIONS, sandboxSpec } from './args.js';

const parse = (argv: string[]) => parseCommandArgs('run', argv, SANDBOX_OPTIONS);

describe('sandbox options', () => {
  it('resolves paths from the working directory and ~ from the home, as a shell would', () => {
    const { values } = parse([
      '--workspace',
      'project',
      '--read-only',
      '~/docs',
      '--deny-write',
      '/abs/.git/hooks',
    ]);
    const spec = sandboxSpec(values, '/work/here');
    expect(spec.rules).toMatchObject({
      workspace: '/work/here/project',
      readOnlyWorkspaces: [join(homedir(), 'docs')],
      denyWrite: ['/abs/.git/hooks'],
      hideHome: true,
    });
  });

  it('adds --allow-domain to the defaults, or to nothing with --no-default-domains', () => {
    expect(sandboxSpec(parse(['--allow-domain', 'github.com']).values, '/').rules.allowedDomains).toEqual([
      ...DEFAULT_ALLOWED_DOMAINS,
      'github.com',
    ]);
    const only = parse(['--no-default-domains', '--allow-domain', 'a.com', '--allow-domain', '*.b.com']);
    expect(sandboxSpec(only.values, '/').rules.allowedDomains).toEqual(['a.com', '*.b.com']);
  });

  it('names the rule options given, which a resumed sandbox ignores', () => {
    const spec = sandboxSpec(
      parse(['--sandbox-id', 'x', '--keep', '--no-hide-home', '--workspace', '/w']).values,
      '/',
    );
    expect(spec).toMatchObject({ sandboxId: 'x', keep: true, rules: { hideHome: false } });
    expect(spec.rulesGiven.sort()).toEqual(['--no-hide-home', '--workspace']);
  });

  it('leaves the words after -- to the command, its options included', () => {
    const parsed = parse(['--keep', '--', 'ls', '--keep', '-la']);
    expect(parsed.values.keep).toBe(true);
    expect(parsed.rest).toEqual(['ls', '--keep', '-la']);
  });

  it('reports an unknown option or a missing value as a SandboxOptionsError naming the command', () => {
    expect(() => parse(['--nope'])).toThrow(SandboxOptionsError);
    expect(() => parse(['--nope'])).toThrow(
      /^run: Unknown option '--nope'\. Run `ai-sdk-sandbox-runtime run --help`/,
    );
    expect(() => parse(['--workspace'])).toThrow(/argument missing/);
    expect(() => parse(['ls'])).toThrow(/Unexpected argument 'ls' \(the command goes after --\)/);
  });
});
