import { request as httpsRequest } from 'node:https';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_FAKE_BASH_COMMAND,
  startFakeAnthropicServer,
  type FakeAnthropicServer,
  type FakeAnthropicServerOptions,
} from './fake-anthropic-server.js';

const TOOLS = [{ name: 'Bash', description: 'Run a command', input_schema: { type: 'object' } }];

let server: FakeAnthropicServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options?: FakeAnthropicServerOptions): Promise<FakeAnthropicServer> {
  server = await startFakeAnthropicServer(options);
  return server;
}

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

interface SseEvent {
  event: string;
  data: { type: string; [key: string]: unknown };
}

/** Parses a text/event-stream body the way the Anthropic SDK does: blank-line separated frames. */
function parseSse(text: string): SseEvent[] {
  expect(text.endsWith('\n\n')).toBe(true);
  return text
    .split('\n\n')
    .filter(frame => frame.length > 0)
    .map(frame => {
      const fields = new Map(
        frame.split('\n').map(line => {
          const colon = line.indexOf(': ');
          return [line.slice(0, colon), line.slice(colon + 2)] as const;
        }),
      );
      return { event: fields.get('event') ?? '', data: JSON.parse(fields.get('data') ?? 'null') };
    });
}

/** Rebuilds the assistant's content blocks from the stream, as a client would. */
function assemble(events: SseEvent[]) {
  const blocks: Array<{ type: string; text?: string; name?: string; json?: string }> = [];
  let stopReason: unknown;
  for (const { data } of events) {
    if (data.type === 'content_block_start') {
      const block = data.content_block as { type: string; name?: string };
      blocks[data.index as number] = { type: block.type, name: block.name, text: '', json: '' };
    } else if (data.type === 'content_block_delta') {
      const delta = data.delta as { type: string; text?: string; partial_json?: string };
      const block = blocks[data.index as number]!;
      if (delta.type === 'text_delta') block.text += delta.text ?? '';
      if (delta.type === 'input_json_delta') block.json += delta.partial_json ?? '';
    } else if (data.type === 'message_delta') {
      stopReason = (data.delta as { stop_reason: unknown }).stop_reason;
    }
  }
  return { blocks, stopReason };
}

describe('startFakeAnthropicServer', () => {
  it('answers the preconnect HEAD and records it', async () => {
    const s = await start();
    const response = await fetch(`${s.url}/`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(s.requests).toMatchObject([{ method: 'HEAD', path: '/', protocol: 'http' }]);
  });

  it('streams a Bash tool call as well-formed SSE, then an answer quoting the tool result', async () => {
    const s = await start();
    const first = await post(`${s.url}/v1/messages?beta=true`, {
      model: 'claude-test',
      stream: true,
      tools: TOOLS,
      messages: [{ role: 'user', content: 'write a note' }],
    });
    expect(first.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = parseSse(await first.text());
    for (const { event, data } of events) expect(event).toBe(data.type);
    expect(events.map(e => e.event)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events[0]!.data.message).toMatchObject({ role: 'assistant', model: 'claude-test', content: [] });
    const toolCall = assemble(events);
    expect(toolCall.stopReason).toBe('tool_use');
    expect(toolCall.blocks).toHaveLength(1);
    expect(toolCall.blocks[0]!.name).toBe('Bash');
    expect(JSON.parse(toolCall.blocks[0]!.json!)).toMatchObject({ command: DEFAULT_FAKE_BASH_COMMAND });

    const toolUseId = (events[2]!.data.content_block as { id: string }).id;
    const second = await post(`${s.url}/v1/messages?beta=true`, {
      stream: true,
      tools: TOOLS,
      messages: [
        { role: 'user', content: 'write a note' },
        { role: 'assistant', content: [{ type: 'tool_use', id: toolUseId, name: 'Bash', input: {} }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: toolUseId, content: [{ type: 'text', text: 'it ran: 42' }] },
          ],
        },
      ],
    });
    const answer = assemble(parseSse(await second.text()));
    expect(answer.stopReason).toBe('end_turn');
    expect(answer.blocks).toEqual([
      expect.objectContaining({ type: 'text', text: expect.stringContaining('it ran: 42') }),
    ]);
  });

  it('answers without streaming when the request does not ask for it', async () => {
    const s = await start({ bashCommand: 'ls -la' });
    const response = await post(`${s.url}/v1/messages`, {
      tools: TOOLS,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toMatchObject({
      type: 'message',
      role: 'assistant',
      stop_reason: 'tool_use',
      content: [{ type: 'tool_use', name: 'Bash', input: { command: 'ls -la' } }],
    });
  });

  it('plays a script in order, leaving tool-less side requests out of it', async () => {
    const s = await start({
      script: [
        { type: 'text', text: 'first' },
        ({ index, toolResults }) => ({ type: 'tool_use', name: 'Read', input: { index, toolResults } }),
      ],
    });
    const ask = async (body: Record<string, unknown>) =>
      (await (await post(`${s.url}/v1/messages`, body)).json()) as { content: unknown[] };

    expect((await ask({ tools: TOOLS, messages: [{ role: 'user', content: 'a' }] })).content).toEqual([
      { type: 'text', text: 'first' },
    ]);
    const side = await ask({
      messages: [{ role: 'user', content: 'title?' }],
      output_format: {
        type: 'json_schema',
        schema: { type: 'object', properties: { title: { type: 'string' } } },
      },
    });
    expect(JSON.parse((side.content[0] as { text: string }).text)).toEqual({ title: expect.any(String) });
    const toolResultMessage = {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'x', content: 'done' }],
    };
    expect((await ask({ tools: TOOLS, messages: [toolResultMessage] })).content).toEqual([
      expect.objectContaining({ type: 'tool_use', name: 'Read', input: { index: 1, toolResults: ['done'] } }),
    ]);
    const exhausted = await ask({ tools: TOOLS, messages: [{ role: 'user', content: 'c' }] });
    expect(exhausted.content).toEqual([{ type: 'text', text: expect.stringContaining('script exhausted') }]);
  });

  it('counts tokens, and records and refuses unknown endpoints', async () => {
    const s = await start();
    const counted = await post(`${s.url}/v1/messages/count_tokens?beta=true`, { messages: [] });
    expect(await counted.json()).toEqual({ input_tokens: expect.any(Number) });
    const unknown = await fetch(`${s.url}/v1/models`);
    expect(unknown.status).toBe(404);
    expect(s.requests.map(r => `${r.method} ${r.url}`)).toEqual([
      'POST /v1/messages/count_tokens?beta=true',
      'GET /v1/models',
    ]);
  });

  it('records method, URL, headers and body of each request', async () => {
    const s = await start();
    await post(
      `${s.url}/v1/messages?beta=true`,
      { tools: TOOLS, messages: [{ role: 'user', content: 'hi' }] },
      { 'x-api-key': 'sk-ant-test-recorded' },
    );
    expect(s.messageRequests()).toHaveLength(1);
    const [recorded] = s.messageRequests();
    expect(recorded).toMatchObject({ method: 'POST', url: '/v1/messages?beta=true', path: '/v1/messages' });
    expect(recorded!.headers['x-api-key']).toBe('sk-ant-test-recorded');
    expect(recorded!.json).toMatchObject({ messages: [{ content: 'hi' }] });
    expect(JSON.parse(recorded!.body)).toEqual(recorded!.json);
  });

  it('rejects a body that is not a JSON object', async () => {
    const s = await start();
    const response = await fetch(`${s.url}/v1/messages`, { method: 'POST', body: 'not json' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  });

  it('serves HTTPS with a certificate a client can trust', async () => {
    const s = await start({ https: true });
    expect(s.httpsUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpsRequest(`${s.httpsUrl}/`, { method: 'HEAD', ca: s.certificate }, res => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(200);
    expect(s.requests).toMatchObject([{ protocol: 'https', method: 'HEAD' }]);
  });
});
