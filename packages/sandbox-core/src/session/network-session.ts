/**
 * Assembles a `HarnessV1NetworkSandboxSession` from its parts: the commands and files of one view, its
 * ports, and the lifecycle and policy hooks a package provides.
 *
 * Adapters detect optional capabilities by presence (`'setNetworkPolicy' in session`), so a member a
 * package cannot honour is left out entirely rather than stubbed.
 */
import type {
  HarnessV1NetworkPolicy,
  HarnessV1NetworkSandboxSession,
  HarnessV1PortEndpoint,
  HarnessV1RequestTransformation,
} from '@ai-sdk/harness';
import type { SandboxCommands } from './sandbox-commands.js';

export type PortProtocol = 'http' | 'https' | 'ws';

/** How a view reaches the ports of its sandbox. */
export interface PortAccess {
  readonly ports: readonly number[];
  endpoint(port: number, protocol: PortProtocol): Promise<HarnessV1PortEndpoint>;
  setPorts?(ports: readonly number[], options?: { abortSignal?: AbortSignal }): Promise<void>;
}

export interface NetworkSessionParts {
  id: string;
  defaultWorkingDirectory: string;
  commands: SandboxCommands;
  ports: PortAccess;
  stop(): Promise<void>;
  destroy(): Promise<void>;
  setNetworkPolicy?(policy: HarnessV1NetworkPolicy): Promise<void>;
  addRequestTransformations?(rules: ReadonlyArray<HarnessV1RequestTransformation>): Promise<void>;
  setRequestTransformations?(rules: ReadonlyArray<HarnessV1RequestTransformation>): Promise<void>;
}

export function assembleNetworkSession<Extra extends object>(
  parts: NetworkSessionParts,
  extra: Extra,
): HarnessV1NetworkSandboxSession & Extra {
  const { commands, ports } = parts;
  const getPortEndpoint = ({ port, protocol = 'http' }: { port: number; protocol?: PortProtocol }) =>
    ports.endpoint(port, protocol);
  const session = {
    id: parts.id,
    defaultWorkingDirectory: parts.defaultWorkingDirectory,
    description: commands.description,
    get ports() {
      return [...ports.ports];
    },
    readFile: commands.readFile,
    readBinaryFile: commands.readBinaryFile,
    readTextFile: commands.readTextFile,
    writeFile: commands.writeFile,
    writeBinaryFile: commands.writeBinaryFile,
    writeTextFile: commands.writeTextFile,
    spawn: commands.spawn,
    run: commands.run,
    getPortEndpoint,
    // Deprecated upstream but still what claude-code 1.0.41 calls; it appends `?token=` to the result,
    // so the URL must never carry a query string of its own.
    getPortUrl: async (options: { port: number; protocol?: PortProtocol }) =>
      (await getPortEndpoint(options)).url,
    stop: () => parts.stop(),
    destroy: () => parts.destroy(),
    restricted: () => commands.restricted(),
    ...(parts.setNetworkPolicy && { setNetworkPolicy: parts.setNetworkPolicy }),
    ...(parts.addRequestTransformations && { addRequestTransformations: parts.addRequestTransformations }),
    ...(parts.setRequestTransformations && { setRequestTransformations: parts.setRequestTransformations }),
    ...(ports.setPorts && { setPorts: ports.setPorts.bind(ports) }),
  };
  return Object.defineProperties(
    session,
    Object.getOwnPropertyDescriptors(extra),
  ) as HarnessV1NetworkSandboxSession & Extra;
}
