import type { NextConfig } from 'next';

const config: NextConfig = {
  // Loaded by Node from node_modules rather than bundled: srt finds its helpers (its seccomp filters,
  // the proxy's files) next to its own files, and the sandbox packages copy their supervisor.js from
  // beside their own module into each sandbox. A bundle would move the code away from those files.
  serverExternalPackages: [
    'ai-sdk-sandbox-runtime',
    '@anthropic-ai/sandbox-runtime',
    'ai-sdk-sandbox-local',
    '@ai-sdk/harness-claude-code',
  ],
};

export default config;
