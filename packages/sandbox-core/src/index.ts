// The shared core, layered bottom to top: protocol and errors; the supervisor link; network; session;
// lifecycle. The supervisor program (./supervisor) is bundled on its own and is not exported here.
export * from './errors.js';
export * from './protocol/frame.js';
export * from './protocol/messages.js';
export { SupervisorLink, type LinkedProcess, type SupervisorTransport } from './link/supervisor-link.js';
export { SupervisorProcess, locateSupervisorScript } from './link/supervisor-process.js';
export { RemoteError } from './link/remote-error.js';
export * from './network/port-registry.js';
export * from './network/port-forwarder.js';
export * from './session/sandbox-commands.js';
export * from './session/network-session.js';
export * from './session/input-checks.js';
export * from './lifecycle/sandbox-id.js';
export * from './lifecycle/sandbox-record.js';
export * from './lifecycle/parse-options.js';
