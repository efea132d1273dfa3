import { describe, expect, it } from 'vitest';
import type { CredentialSpec } from '../fence/credential-broker.js';
import type { SrtRuntime } from '../fence/srt-runtime.js';
import { CredentialSet } from './credential-set.js';

/** srt's registry as this class sees it: what is registered now. */
function fakeRuntime() {
  const live = new Map<string, CredentialSpec>();
  let registrations = 0;
  const runtime = {
    registerCredential(spec: CredentialSpec) {
      registrations++;
      live.set(spec.placeholder, spec);
      return { placeholder: spec.placeholder, withdraw: () => void live.delete(spec.placeholder) };
    },
  } as unknown as SrtRuntime;
  return { runtime, live, registrations: () => registrations };
}

const rule = (placeholder: string, real: string, host = 'api.example.com') => ({
  match: { host, headers: [{ key: { exact: 'x-api-key' }, value: { exact: placeholder } }] },
  transform: { headers: { 'x-api-key': real } },
});
const P1 = `aisdkhc_${'1'.repeat(43)}`;
const P2 = `aisdkhc_${'2'.repeat(43)}`;

describe('CredentialSet', () => {
  it('registers a rule once however often it is added, and makes its host reachable', () => {
    const { runtime, live, registrations } = fakeRuntime();
    let changes = 0;
    const set = new CredentialSet(runtime, () => changes++, {});
    set.add([rule(P1, 'real-1')]);
    set.add([rule(P1, 'real-1')]);
    expect(registrations()).toBe(1);
    expect(live.get(P1)).toMatchObject({ realValue: 'real-1', hosts: ['api.example.com'] });
    expect(set.hosts).toEqual(['api.example.com']);
    expect(changes).toBe(2);
  });

  it('replace() withdraws what the new set leaves out', () => {
    const { runtime, live } = fakeRuntime();
    const set = new CredentialSet(runtime, () => undefined, {});
    set.add([rule(P1, 'real-1'), rule(P2, 'real-2', 'other.example.com')]);
    set.replace([rule(P2, 'real-2', 'other.example.com')]);
    expect([...live.keys()]).toEqual([P2]);
    expect(set.hosts).toEqual(['other.example.com']);
  });

  it('gives a masked variable one placeholder for every command, registered for its host by name', () => {
    const { runtime, live } = fakeRuntime();
    const set = new CredentialSet(runtime, () => undefined, {});
    const first = set.maskEnvironment({
      ANTHROPIC_API_KEY: 'sk-real',
      ANTHROPIC_BASE_URL: 'https://127.0.0.1:9443',
    });
    const second = set.maskEnvironment({
      ANTHROPIC_API_KEY: 'sk-real',
      ANTHROPIC_BASE_URL: 'https://127.0.0.1:9443',
    });
    expect(first.ANTHROPIC_API_KEY).toBe(second.ANTHROPIC_API_KEY);
    expect(live.get(first.ANTHROPIC_API_KEY!)).toMatchObject({ realValue: 'sk-real', hosts: ['127.0.0.1'] });
    expect(set.hosts).toEqual(['127.0.0.1:9443']);
  });

  it('withdrawAll() leaves nothing registered', () => {
    const { runtime, live } = fakeRuntime();
    const set = new CredentialSet(runtime, () => undefined, {});
    set.add([rule(P1, 'real-1')]);
    set.maskEnvironment({ OPENAI_API_KEY: 'sk-o' });
    set.withdrawAll();
    expect(live.size).toBe(0);
    expect(set.hosts).toEqual([]);
  });
});
