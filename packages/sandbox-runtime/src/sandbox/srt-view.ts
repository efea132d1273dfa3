/**
 * A view of an srt sandbox, as the harness sees it: a `HarnessV1NetworkSandboxSession` with its own
 * ports, credentials and processes over a shared sandbox. The session `createSrtNetworkSandboxSession`
 * returns is the first view; `fork()` makes more (one per conversation, for sharedSandbox()), and
 * `release()` ends what a view holds without touching the sandbox or the other views.
 */
import {
  HarnessCapabilityUnsupportedError,
  type HarnessV1NetworkPolicy,
  type HarnessV1NetworkSandboxSession,
  type HarnessV1RequestTransformation,
} from '@ai-sdk/harness';
import { assembleNetworkSession, SandboxCommands, type PortProtocol } from '@internal/sandbox-core';
import { rm } from 'node:fs/promises';
import { allowedDomainsForPolicy } from '../network/network-policy.js';
import { checkPorts } from '../srt-options.js';
import type { CredentialSet } from './credential-set.js';
import type { SrtSandbox } from './srt-sandbox.js';

export type SrtNetworkSandboxSession = HarnessV1NetworkSandboxSession & {
  /** True when this sandbox's allow list is its own (srt 0.0.80+), not shared by the process. */
  readonly isolatesNetwork: boolean;
  /** A new view over the same sandbox with its own ports, credentials and processes. */
  fork(options: { ports: readonly number[] }): SrtNetworkSandboxSession;
  /** Ends this view's processes, port forwards and credentials; the sandbox keeps running. */
  release(): Promise<void>;
  /** Ends every process of the sandbox (all views), keeping it running. */
  killAllProcesses(): Promise<number>;
};

export function createSrtView(
  sandbox: SrtSandbox,
  ports: readonly number[],
  isRoot: boolean,
): SrtNetworkSandboxSession {
  let viewPorts = [...ports];
  let released = false;
  const credentials: CredentialSet = isRoot ? sandbox.credentials : sandbox.newCredentialSet();
  const brokering = sandbox.record.brokerCredentials;
  const link = () => {
    const live = sandbox.link();
    if (released) {
      throw new HarnessCapabilityUnsupportedError({
        message: 'This view of the sandbox was released; fork a new one.',
      });
    }
    return live;
  };
  const commands = new SandboxCommands({
    description:
      `A sandbox fenced by the operating system (srt): commands run through /bin/bash in ${sandbox.workspace}; ` +
      'files outside the workspace and the sandbox home are read-only, the user home is hidden, and only ' +
      'allowed hosts are reachable through a proxy.',
    link,
    prepareEnvironment: env => (brokering && env ? credentials.maskEnvironment(env) : env),
  });

  const endpoint = async (port: number, protocol: PortProtocol) => {
    link();
    if (!viewPorts.includes(port)) {
      throw new HarnessCapabilityUnsupportedError({
        message: `Port ${port} is not exposed by this sandbox (it exposes ${viewPorts.join(', ') || 'none'}); add it to ports.`,
      });
    }
    const { hostPort } = await sandbox.forwarder.forward(port);
    return { url: `${protocol}://127.0.0.1:${hostPort}` };
  };

  const warn = (warnings: string[]) => {
    for (const warning of warnings) console.warn(`ai-sdk-sandbox-runtime: ${warning}`);
  };

  const release = async () => {
    if (released) return;
    await commands.killStarted();
    released = true;
    await Promise.all(viewPorts.map(port => sandbox.forwarder.unforward(port)));
    if (isRoot) credentials.withdrawAll();
    else sandbox.dropCredentialSet(credentials);
  };

  const brokeringMembers = brokering
    ? {
        addRequestTransformations: async (rules: ReadonlyArray<HarnessV1RequestTransformation>) => {
          link();
          warn(credentials.add(rules));
        },
        setRequestTransformations: async (rules: ReadonlyArray<HarnessV1RequestTransformation>) => {
          link();
          warn(credentials.replace(rules));
        },
      }
    : {};

  return assembleNetworkSession(
    {
      id: sandbox.id,
      defaultWorkingDirectory: sandbox.workspace,
      commands,
      ports: {
        get ports() {
          return viewPorts;
        },
        endpoint,
        async setPorts(next: readonly number[]) {
          const checked = checkPorts(next);
          for (const port of viewPorts) if (!checked.includes(port)) await sandbox.forwarder.unforward(port);
          viewPorts = checked;
        },
      },
      stop: () => sandbox.stop(),
      async destroy() {
        await sandbox.stop();
        sandbox.markDestroyed();
        // Its own directory only: a workspace it was given lives elsewhere and is the caller's.
        await rm(sandbox.layout.sandboxDir, { recursive: true, force: true });
      },
      async setNetworkPolicy(policy: HarnessV1NetworkPolicy) {
        const domains = allowedDomainsForPolicy(policy);
        link();
        sandbox.setDomains(domains);
      },
      ...brokeringMembers,
    },
    {
      isolatesNetwork: sandbox.isolatesNetwork,
      fork: ({ ports: forkPorts }: { ports: readonly number[] }) =>
        createSrtView(sandbox, checkPorts(forkPorts), false),
      release,
      killAllProcesses: () => link().killAll(),
    },
  );
}
