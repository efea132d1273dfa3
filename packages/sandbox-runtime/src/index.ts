export {
  createSrtNetworkSandboxSession,
  resumeSrtNetworkSandboxSession,
  SrtSandboxNotFoundError,
} from './srt-lifecycle.js';
export { createSrtSandboxProvider, type SrtSandboxProviderOptions } from './srt-provider.js';
export type { SrtNetworkSandboxSession } from './sandbox/srt-view.js';
export type { SrtProgressEvent, SrtSandboxOptions, SrtSandboxResumeOptions } from './srt-options.js';
export type { SrtRuntimeSettings } from './fence/runtime-settings.js';
export { DEFAULT_ALLOWED_DOMAINS } from './fence/default-allowed-domains.js';
export { SrtError, type SrtErrorReason } from './srt-error.js';
export { sandboxTemplateFor, type SandboxTemplate } from './template/sandbox-template.js';
export {
  SandboxError,
  SandboxCommandError,
  SandboxConflictError,
  SandboxFileError,
  SandboxOptionsError,
  SandboxStateError,
  SandboxStoppedError,
  SupervisorLinkError,
} from '@internal/sandbox-core';
