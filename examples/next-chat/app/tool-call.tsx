import type { DynamicToolUIPart, ToolUIPart } from 'ai';

const STATE_LABEL: Record<string, string> = {
  'input-streaming': 'preparing',
  'input-available': 'running',
  'output-available': 'done',
  'output-error': 'failed',
  'output-denied': 'denied',
};

/** A tool call: the command (or the tool's input) and, once it ran, what it printed. */
export function ToolCall({ name, part }: { name: string; part: ToolUIPart | DynamicToolUIPart }) {
  const input = part.input as Record<string, unknown> | undefined;
  const command = typeof input?.command === 'string' ? input.command : undefined;
  const output =
    part.state === 'output-available'
      ? textOf(part.output)
      : part.state === 'output-error'
        ? part.errorText
        : '';
  return (
    <figure className="tool" data-tool={name} data-state={part.state}>
      <figcaption>
        <span className="tool-name">{name}</span>
        <span className={`tool-state ${part.state}`}>{STATE_LABEL[part.state] ?? part.state}</span>
      </figcaption>
      <pre className="tool-input">
        {command !== undefined ? `$ ${command}` : JSON.stringify(part.input ?? {}, null, 2)}
      </pre>
      {output ? <pre className="tool-output">{output}</pre> : null}
    </figure>
  );
}

/** Tool outputs come as text, as content blocks, or as objects with stdout and stderr. */
function textOf(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map(textOf).join('');
  if (output && typeof output === 'object') {
    const o = output as Record<string, unknown>;
    if (typeof o.text === 'string') return o.text;
    if (typeof o.stdout === 'string' || typeof o.stderr === 'string') {
      return [o.stdout, o.stderr].filter(s => typeof s === 'string' && s).join('\n');
    }
    if ('output' in o) return textOf(o.output);
    if ('content' in o) return textOf(o.content);
  }
  return output === undefined ? '' : JSON.stringify(output, null, 2);
}
