export {
  createLocalNetworkSandboxSession,
  resumeLocalNetworkSandboxSession,
  type LocalNetworkSandboxSession,
} from './local-sandbox.js';
export { createLocalSandboxProvider, type LocalSandboxProviderOptions } from './local-provider.js';
export {
  DEFAULT_LOCAL_DIRECTORY,
  type LocalSandboxOptions,
  type LocalSandboxResumeOptions,
} from './local-options.js';
export {
  SandboxError,
  SandboxCommandError,
  SandboxConflictError,
  SandboxFileError,
  SandboxNotFoundError,
  SandboxOptionsError,
  SandboxStateError,
  SandboxStoppedError,
  SupervisorLinkError,
} from '@internal/sandbox-core';
