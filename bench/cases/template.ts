/**
 * A sandbox prepared from Claude Code's template (the harness's bootstrap: its bridge and CLI
 * installed with pnpm): prepared afresh (templateCache: false), and copied from the template cache
 * (warmed by one creation before the rounds), beside a plain creation in the same rounds.
 */
import { createClaudeCode } from '@ai-sdk/harness-claude-code';
import { sandboxTemplateFor } from '../../packages/sandbox-runtime/dist/index.js';
import type { BenchContext } from '../lib/context.ts';
import { interleave } from '../lib/interleave.ts';
import { newSrt } from '../lib/sandboxes.ts';

const GROUP = 'Startup';
const FRESH = 'srt, Claude Code template prepared afresh';
const CACHED = 'srt, Claude Code template from the cache';

export async function templateCases(context: BenchContext): Promise<void> {
  // Two copies of the harness types meet here (the adapter pins an older one): the cast is expected.
  const template = await sandboxTemplateFor(createClaudeCode() as never);
  await (await newSrt({ template })).destroy(); // fills the cache
  let destroy: (() => PromiseLike<unknown>) | undefined;
  const after = async () => {
    await destroy?.();
    destroy = undefined;
  };
  const create = (options: Parameters<typeof newSrt>[0]) => async () => {
    const session = await newSrt(options);
    destroy = () => session.destroy();
    const result = await session.run({ command: 'true' });
    if (result.exitCode !== 0) throw new Error('the first command failed');
  };
  const samples = await interleave(
    [
      { name: 'srt, no template', run: create({}), after },
      { name: FRESH, run: create({ template, templateCache: false }), after },
      { name: CACHED, run: create({ template }), after },
    ],
    { iterations: context.quick ? 1 : 3 },
  );
  context.results.addCase(
    GROUP,
    "new sandbox from the Claude Code template to first run('true') result",
    samples,
    {
      baseline: 'srt, no template',
      targets: { [CACHED]: summary => ({ text: '<= 500 ms', met: summary.median <= 500 }) },
      notes: {
        [FRESH]: `template ${template.identity}: the pnpm install through srt's proxy, every time`,
        [CACHED]: 'a copy of the prepared home and /tmp (cp -a; a reflink where the file system has them)',
      },
    },
  );
}
