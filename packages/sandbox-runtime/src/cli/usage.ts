/** The help texts, one per command. */

const NAME = 'ai-sdk-sandbox-runtime';

export const MAIN_USAGE = `Usage: ${NAME} <command> [options]

Runs commands, and AI SDK harness agents, fenced by Anthropic's sandbox runtime (srt).

Commands:
  doctor                    check that this host can run sandboxes, and how to fix it
  run [options] -- <cmd…>   run one command in a sandbox; exits with its exit code
  shell [options]           run command lines in a sandbox, one after the other
  list                      the sandboxes, their size on disk, last use and workspace
  rm <id…> | rm --all       remove sandboxes
  demo                      a Claude Code turn in a sandbox; without a key, a live tour of the fence

Every command takes --directory <dir> (where sandboxes live, default ~/.ai-sdk-sandbox-runtime)
and --help. \`${NAME} <command> --help\` lists a command's options.
`;

const SANDBOX_OPTIONS_HELP = `Sandbox options:
  --workspace <dir>          the directory it works in, read-write (default: a workspace of
                             its own, inside the sandbox's directory)
  --read-only <dir>          a directory it may read but not write (repeatable)
  --no-hide-home             let it read your home directory (hidden by default)
  --allow-read <path>        re-open a path of the hidden home for reading (repeatable)
  --deny-read <path>         hide a path (repeatable)
  --deny-write <path>        keep a path read-only inside a writable one (repeatable)
  --allow-domain <host>      let it reach a host, in srt's syntax (example.com, *.example.com,
                             host:port), on top of the defaults (repeatable)
  --no-default-domains       start from no host rather than the defaults (registry.npmjs.org,
                             api.anthropic.com, api.openai.com, chatgpt.com, ai-gateway.vercel.sh)
  --sandbox-id <id>          work in this sandbox: resumed if it exists (with the rules it was
                             created with, and kept afterwards), created otherwise
  --keep                     keep a sandbox this command created (default: removed at the end)
  --directory <dir>          where sandboxes live (default: ~/.ai-sdk-sandbox-runtime)
  --allow-all-unix-sockets   run without srt's seccomp filter, where the host cannot run it
                             (see doctor); also SRT_ALLOW_ALL_UNIX_SOCKETS=1
`;

export const RUN_USAGE = `Usage: ${NAME} run [options] -- <command> [args…]

Runs one command in a sandbox, its output streamed as it comes, and exits with its exit code.
Several words after -- are run as exactly those arguments; a single word is a shell command
line, so \`run -- 'ls | wc -l'\` pipes. The command has no standard input.

${SANDBOX_OPTIONS_HELP}`;

export const SHELL_USAGE = `Usage: ${NAME} shell [options]

Reads command lines from standard input and runs each in the same sandbox, the way an agent's
commands run: every line is its own \`bash -c\`, without a terminal or standard input. So
variables, aliases and background jobs do not carry over from one line to the next, and
programs that need a terminal (an editor, a pager, a REPL) do not work. The working directory
does: a line that is only \`cd <dir>\` is resolved in the sandbox and used for the next lines.
Ctrl-C stops the running command; Ctrl-D or \`exit [code]\` leaves. Exits with the last
command's exit code.

${SANDBOX_OPTIONS_HELP}`;

export const LIST_USAGE = `Usage: ${NAME} list [--directory <dir>] [--json]

Lists the sandboxes under the directory, most recently used first: size on disk, last use (the
latest change to any of its files), whether a process runs it now, and its workspace.
`;

export const RM_USAGE = `Usage: ${NAME} rm [--directory <dir>] [--force] <id…>
       ${NAME} rm [--directory <dir>] [--force] --all

Removes sandboxes: each one's directory under the sandboxes directory, nothing else (a workspace
it was given lives elsewhere and stays). A sandbox a running process uses is left alone unless
--force. Exits 1 when any sandbox could not be removed.
`;

export const DOCTOR_USAGE = `Usage: ${NAME} doctor [--allow-all-unix-sockets]

Checks this host: Node.js, the platform, bubblewrap, socat and ripgrep, the user namespace
restrictions, then starts a real sandbox, runs \`true\` in it and removes it. Prints each check
and, for a failed one, its fix. Exits 0 only when every check passes.
`;

export const DEMO_USAGE = `Usage: ${NAME} demo [--prompt <text>] [--workspace <dir>] [--directory <dir>]
                    [--allow-all-unix-sockets]

With ANTHROPIC_API_KEY or CLAUDE_CODE_OAUTH_TOKEN set (and ANTHROPIC_BASE_URL, if any): a real
Claude Code turn in a new sandbox, with the preparation of its template, the commands the agent
ran and its answer. It works on --workspace, by default a fresh temporary directory, which is
kept; the sandbox is removed. Needs @ai-sdk/harness and @ai-sdk/harness-claude-code installed.

Without a key: a tour of the fence, each row checked live: your home hidden, where it may
write, which hosts it reaches, the placeholder it gets instead of a key, a forwarded port.
`;
