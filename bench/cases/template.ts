/**
 * A sandbox prepared from Claude Code's template (the harness's bootstrap: its bridge and CLI
 * installed with pnpm). There is no template cache yet, so every creation prepares it again: this
 * is that cost, beside a plain creation measured in the same rounds.
 */
import { createClaudeCode } from '@ai-sdk/harness-claude-code';
import { sandboxTemplateFor } from '../../packages/sandbox-runtime/dist/index.js';
import type { BenchContext } from '../lib/context.ts';
import { interleave } from '../lib/interleave.ts';
import { newSrt } from '../lib/sandboxes.ts';

const GROUP = 'Startup';

export async function templateCases(context: BenchContext): Promise<void> {
  // Two copies of the harness types meet here (the adapter pins an older one): the cast is expected.
  const template = await sandboxTemplateFor(createClaudeCode() as never);
  let destroy: (() => PromiseLike<unknown>) | undefined;
  const after = async () => {
    await destroy?.();
    destroy = undefined;
  };
  const create = (withTemplate: boolean) => async () => {
    const session = await newSrt(withTemplate ? { template } : {});
    destroy = () => session.destroy();
    const result = await session.run({ command: 'true' });
    if (result.exitCode !== 0) throw new Error('the first command failed');
  };
  const samples = await interleave(
    [
      { name: 'srt, no template', run: create(false), after },
      { name: 'srt, Claude Code template (prepared again)', run: create(true), after },
    ],
    { iterations: context.quick ? 1 : 2 },
  );
  context.results.addCase(
    GROUP,
    "new sandbox from the Claude Code template to first run('true') result",
    samples,
    {
      baseline: 'srt, no template',
      targets: {
        'srt, Claude Code template (prepared again)': summary => ({
          text: '<= 500 ms',
          met: summary.median <= 500,
        }),
      },
      notes: {
        'srt, Claude Code template (prepared again)': `template ${template.identity}; no cache exists, so each sandbox runs the pnpm install again`,
      },
    },
  );
}
