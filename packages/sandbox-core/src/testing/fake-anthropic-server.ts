/**
 * A fake Anthropic Messages API on loopback, for tests that drive a real Claude Code turn without a
 * real model. It records every request and answers the few endpoints Claude Code calls:
 * `HEAD /` (its preconnect), `POST /v1/messages` (streaming SSE or JSON) and
 * `POST /v1/messages/count_tokens`. Everything else gets a 404, recorded too.
 *
 * The default conversation is stateless, so concurrent sessions can share one server: a request whose
 * last message carries a `tool_result` gets a final text answer quoting that result; any other request
 * that offers tools gets a `Bash` tool call. Requests without tools (a title or other small-model call)
 * get a harmless answer that never touches the script.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** The command the default conversation asks the `Bash` tool to run. */
export const DEFAULT_FAKE_BASH_COMMAND = `echo "hello from the sandbox: $((6 * 7))" > note.txt && cat note.txt`;
/**
 * What {@link DEFAULT_FAKE_BASH_COMMAND} prints. It is not a substring of the command, so an answer
 * that contains it proves the command really ran.
 */
export const DEFAULT_FAKE_BASH_OUTPUT = 'hello from the sandbox: 42';

export interface RecordedRequest {
  readonly protocol: 'http' | 'https';
  readonly method: string;
  /** Path with the query string, as sent (`/v1/messages?beta=true`). */
  readonly url: string;
  /** Path without the query string. */
  readonly path: string;
  /** Lower-cased header names, as Node parses them. */
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The body parsed as JSON, or undefined when it is empty or not JSON. */
  readonly json: unknown;
  /** `Date.now()` when the body had arrived. */
  readonly receivedAt: number;
}

/** One reply of the assistant: a single tool call or a single text block. */
export type FakeAnthropicReply =
  | { readonly type: 'tool_use'; readonly name?: string; readonly input: Record<string, unknown> }
  | { readonly type: 'text'; readonly text: string };

export interface FakeTurnContext {
  readonly request: RecordedRequest;
  /** Text of every `tool_result` block in the request's last message, in order. */
  readonly toolResults: readonly string[];
  /** How many conversation requests the server answered before this one (0 for the first). */
  readonly index: number;
}

/** A scripted reply, or a function that builds one from the request it answers. */
export type ScriptedTurn = FakeAnthropicReply | ((context: FakeTurnContext) => FakeAnthropicReply);

export interface FakeAnthropicServerOptions {
  /**
   * Replies for the conversation requests (those offering tools), used in order, one per request.
   * When it runs out, the server answers with a text saying so. Without a script, the stateless
   * default conversation applies (see the module comment).
   */
  readonly script?: readonly ScriptedTurn[];
  /** Command of the default conversation's `Bash` call. Default: {@link DEFAULT_FAKE_BASH_COMMAND}. */
  readonly bashCommand?: string;
  /** Interface to listen on. Default `127.0.0.1`. */
  readonly host?: string;
  /**
   * Also listen with TLS, on a port of its own, with a self-signed certificate made by `openssl` for
   * `localhost`, `127.0.0.1` and the given extra names. Tests that terminate TLS need this.
   */
  readonly https?: boolean | { readonly hostnames?: readonly string[] };
}

export interface FakeAnthropicServer {
  /** `http://<host>:<port>`, to pass as the Anthropic base URL. */
  readonly url: string;
  /** `https://<host>:<port>` when `https` was asked for. */
  readonly httpsUrl: string | undefined;
  /** The self-signed certificate (PEM) behind `httpsUrl`, to trust as a CA. */
  readonly certificate: string | undefined;
  /** Every request received, in arrival order; the array grows as requests come in. */
  readonly requests: RecordedRequest[];
  /** The `POST /v1/messages` requests among {@link requests}. */
  messageRequests(): RecordedRequest[];
  close(): Promise<void>;
}

export async function startFakeAnthropicServer(
  options: FakeAnthropicServerOptions = {},
): Promise<FakeAnthropicServer> {
  const host = options.host ?? '127.0.0.1';
  const requests: RecordedRequest[] = [];
  const script = options.script;
  const bashCommand = options.bashCommand ?? DEFAULT_FAKE_BASH_COMMAND;
  let conversationIndex = 0;

  const reply = (request: RecordedRequest, body: MessagesBody): FakeAnthropicReply => {
    if (!Array.isArray(body.tools) || body.tools.length === 0) return sideReply(body);
    const toolResults = lastMessageToolResults(body);
    const index = conversationIndex++;
    if (script === undefined) {
      return toolResults.length > 0
        ? { type: 'text', text: `The command printed: ${toolResults.join('\n')}` }
        : { type: 'tool_use', name: 'Bash', input: { command: bashCommand, description: 'Run a command' } };
    }
    const turn = script[index];
    if (turn === undefined) {
      return { type: 'text', text: `(fake Anthropic server: script exhausted after ${script.length} turns)` };
    }
    return typeof turn === 'function' ? turn({ request, toolResults, index }) : turn;
  };

  const handle = (protocol: 'http' | 'https') => (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const url = req.url ?? '/';
      const request: RecordedRequest = {
        protocol,
        method: req.method ?? 'GET',
        url,
        path: url.split('?')[0] ?? url,
        headers: req.headers,
        body,
        json: parseJson(body),
        receivedAt: Date.now(),
      };
      requests.push(request);
      respond(request, res, reply);
    });
  };

  const servers: Server[] = [];
  const http = createHttpServer(handle('http'));
  servers.push(http);
  const url = `http://${urlHost(host)}:${await listen(http, host)}`;

  let httpsUrl: string | undefined;
  let certificate: string | undefined;
  if (options.https) {
    const hostnames = typeof options.https === 'object' ? (options.https.hostnames ?? []) : [];
    const pair = await makeSelfSignedCertificate(['localhost', '127.0.0.1', ...hostnames]);
    certificate = pair.cert;
    const https = createHttpsServer({ key: pair.key, cert: pair.cert }, handle('https'));
    servers.push(https);
    httpsUrl = `https://${urlHost(host)}:${await listen(https, host)}`;
  }

  return {
    url,
    httpsUrl,
    certificate,
    requests,
    messageRequests: () => requests.filter(r => r.method === 'POST' && r.path === '/v1/messages'),
    close: async () => {
      await Promise.all(
        servers.map(
          server =>
            new Promise<void>(resolve => {
              server.close(() => resolve());
              server.closeAllConnections();
            }),
        ),
      );
    },
  };
}

interface MessagesBody {
  model?: unknown;
  stream?: unknown;
  tools?: unknown;
  messages?: unknown;
  output_format?: { schema?: unknown };
  output_config?: { format?: { schema?: unknown } };
}

function respond(
  request: RecordedRequest,
  res: ServerResponse,
  reply: (request: RecordedRequest, body: MessagesBody) => FakeAnthropicReply,
): void {
  if (request.method === 'HEAD' && request.path === '/') {
    res.writeHead(200).end();
    return;
  }
  if (request.method === 'POST' && request.path === '/v1/messages/count_tokens') {
    sendJson(res, 200, { input_tokens: estimateTokens(request.body) });
    return;
  }
  if (request.method === 'POST' && request.path === '/v1/messages') {
    const body = request.json;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      sendJson(res, 400, apiError('invalid_request_error', 'The request body must be a JSON object.'));
      return;
    }
    const messagesBody = body as MessagesBody;
    const message = buildMessage(reply(request, messagesBody), messagesBody, request.body);
    if (messagesBody.stream === true) sendStream(res, message);
    else sendJson(res, 200, message);
    return;
  }
  sendJson(
    res,
    404,
    apiError('not_found_error', `The fake Anthropic server has no ${request.method} ${request.path}.`),
  );
}

type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

interface Message {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: ContentBlock[];
  stop_reason: 'tool_use' | 'end_turn';
  stop_sequence: null;
  usage: { input_tokens: number; output_tokens: number };
}

function buildMessage(reply: FakeAnthropicReply, body: MessagesBody, raw: string): Message {
  const block: ContentBlock =
    reply.type === 'text'
      ? { type: 'text', text: reply.text }
      : { type: 'tool_use', id: `toolu_${randomId()}`, name: reply.name ?? 'Bash', input: reply.input };
  return {
    id: `msg_${randomId()}`,
    type: 'message',
    role: 'assistant',
    model: typeof body.model === 'string' ? body.model : 'claude-fake',
    content: [block],
    stop_reason: reply.type === 'text' ? 'end_turn' : 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: estimateTokens(raw), output_tokens: estimateTokens(JSON.stringify(block)) },
  };
}

/** Streams a message the way the Messages API does, deltas split in two to exercise reassembly. */
function sendStream(res: ServerResponse, message: Message): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'request-id': `req_${randomId()}`,
  });
  const send = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);

  send('message_start', {
    message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } },
  });
  send('ping', {});
  message.content.forEach((block, index) => {
    if (block.type === 'text') {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      for (const text of halves(block.text)) {
        send('content_block_delta', { index, delta: { type: 'text_delta', text } });
      }
    } else {
      send('content_block_start', { index, content_block: { ...block, input: {} } });
      for (const partial_json of halves(JSON.stringify(block.input))) {
        send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
      }
    }
    send('content_block_stop', { index });
  });
  send('message_delta', {
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: message.usage.output_tokens },
  });
  send('message_stop', {});
  res.end();
}

/** A small-model call: fill its JSON schema if it has one, else a plain acknowledgement. */
function sideReply(body: MessagesBody): FakeAnthropicReply {
  const schema = body.output_format?.schema ?? body.output_config?.format?.schema;
  if (schema === undefined) return { type: 'text', text: 'OK' };
  return { type: 'text', text: JSON.stringify(sampleFromSchema(schema)) };
}

function sampleFromSchema(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return null;
  const s = schema as { type?: unknown; properties?: Record<string, unknown>; enum?: unknown[] };
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  switch (s.type) {
    case 'object':
      return Object.fromEntries(
        Object.entries(s.properties ?? {}).map(([key, value]) => [key, sampleFromSchema(value)]),
      );
    case 'array':
      return [];
    case 'string':
      return 'Fake conversation';
    case 'number':
    case 'integer':
      return 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}

function lastMessageToolResults(body: MessagesBody): string[] {
  if (!Array.isArray(body.messages)) return [];
  const last: unknown = body.messages.at(-1);
  if (typeof last !== 'object' || last === null) return [];
  const { role, content } = last as { role?: unknown; content?: unknown };
  if (role !== 'user' || !Array.isArray(content)) return [];
  return content.flatMap(block => {
    if (typeof block !== 'object' || block === null) return [];
    const b = block as { type?: unknown; content?: unknown };
    return b.type === 'tool_result' ? [toolResultText(b.content)] : [];
  });
}

function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map(part =>
      typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'text'
        ? String((part as { text?: unknown }).text ?? '')
        : '',
    )
    .join('');
}

async function makeSelfSignedCertificate(names: readonly string[]): Promise<{ key: string; cert: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'fake-anthropic-cert-'));
  try {
    const keyPath = join(dir, 'key.pem');
    const certPath = join(dir, 'cert.pem');
    const altNames = [...new Set(names)]
      .map(name => (/^[\d.]+$|:/.test(name) ? `IP:${name}` : `DNS:${name}`))
      .join(',');
    await promisify(execFile)('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyPath,
      '-out',
      certPath,
      '-days',
      '2',
      '-subj',
      '/CN=fake-anthropic-server',
      '-addext',
      `subjectAltName=${altNames}`,
    ]);
    return { key: await readFile(keyPath, 'utf8'), cert: await readFile(certPath, 'utf8') };
  } catch (error) {
    throw new Error(
      'The fake Anthropic server could not make a TLS certificate with `openssl`; install openssl or start it without `https`.',
      { cause: error },
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function listen(server: Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${randomId()}` });
  res.end(JSON.stringify(value));
}

function apiError(type: string, message: string) {
  return { type: 'error', error: { type, message } };
}

function parseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function halves(text: string): string[] {
  const middle = Math.ceil(text.length / 2);
  return text.length < 2 ? [text] : [text.slice(0, middle), text.slice(middle)];
}

function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function randomId(): string {
  return randomBytes(12).toString('hex');
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
