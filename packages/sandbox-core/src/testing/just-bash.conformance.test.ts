// The shared conformance suite against the peer reference sandbox, @ai-sdk/sandbox-just-bash: a check
// that the suite's expectations match a sandbox the harness authors ship, not only our own.
import { createJustBashSandbox } from '@ai-sdk/sandbox-just-bash';
import { describeSandboxConformance } from './conformance/index.js';

describeSandboxConformance('@ai-sdk/sandbox-just-bash', {
  create: () => createJustBashSandbox().createSession(),
  skip: {
    ports: 'just-bash runs in-process and exposes no ports (ports is [])',
    realProcesses: 'just-bash emulates bash in JavaScript: no OS processes, no pids, no kill, no node',
    backgroundJobs: 'just-bash: run() waits for the background jobs a command starts before it returns',
    liveOutput: 'just-bash bug: spawn() buffers stdout and delivers it only when the command ends',
    abortRejects: 'just-bash bug: an abort during run() resolves with exit code 124 instead of rejecting',
    writeOverDirectory:
      'just-bash bug: writeTextFile() onto a directory turns it into a file while its children stay readable',
    lifecycle: 'just-bash: stop() and destroy() do nothing to an in-memory sandbox; it stays usable',
  },
});
