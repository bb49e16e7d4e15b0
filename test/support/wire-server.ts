/**
 * A local HTTP server that speaks the wire format of the Gemini, Anthropic and OpenAI APIs, so tests drive the
 * REAL SDKs (pointed at it by base URL) without a network or a key. Never mock an SDK module: use this.
 *
 *   import { startWireServer, gemini, anthropic, openai, fault } from './support/wire-server.js';
 *
 *   const server = await startWireServer({
 *     gemini: (req) => req.method === 'generateContent' ? gemini.functionCall('activate_skill', { name: 'pdf' })
 *                                                       : gemini.embeddings(req.body.requests.map(() => [1, 0])),
 *     anthropic: () => anthropic.toolUse('activate_skill', { name: 'pdf' }, { input: 120, output: 9 }),
 *     openai: () => openai.text('no skill needed'),
 *   });
 *   // Base URLs to give the SDKs / skillbench's --base-url:
 *   //   gemini:    server.url          (the SDK appends /v1beta/models/{m}:generateContent)
 *   //   anthropic: server.url          (the SDK appends /v1/messages)
 *   //   openai:    server.url + '/v1'  (the SDK appends /chat/completions; '/chat/completions' without /v1 works too)
 *   server.baseUrl('openai') gives the right one for each provider.
 *   ...
 *   expect(server.requests[0].body.tools ...)   // what the SDK actually sent
 *   await server.close();
 *
 * Routing, by path:
 *   gemini     /{version}/models/{model}:{method}   method = generateContent | countTokens | batchEmbedContents | ...
 *   anthropic  /v1/messages, /v1/messages/count_tokens   (method = 'messages' | 'count_tokens')
 *   openai     [/v1]/chat/completions, [/v1]/embeddings    (method = 'chat.completions' | 'embeddings')
 * An API without a handler answers 404 in that API's error format.
 *
 * A Handler receives the parsed request (`Recorded`: api, method, model, path, headers, body) and returns a Reply
 * (or a promise of one). Every request is appended to `server.requests` (and counted in `server.hits`) BEFORE the
 * handler runs, so a test can count what reached the server, faults included.
 *
 * Reply builders (each returns a `{status: 200, body}` reply in the API's real JSON shape):
 *   gemini.functionCall(name, args, usage?, opts?)   gemini.functionCalls([{name, args}], usage?, opts?)
 *   gemini.text(text, usage?)   gemini.json(value, usage?)   gemini.embeddings(vectors)   gemini.countTokens(n)
 *   gemini.rateLimited(retryDelay = '1s')   429 RESOURCE_EXHAUSTED with a google.rpc.RetryInfo detail
 *   anthropic.toolUse(name, input, usage?)   anthropic.toolUses([{name, input}], usage?, text?)   anthropic.text(text, usage?)
 *   anthropic.countTokens(n)   anthropic.overloaded()   529 overloaded_error
 *   openai.toolCalls([{name, args}], usage?)   openai.toolCall(name, args, usage?)   openai.text(text, usage?)
 *   openai.embeddings(vectors)
 *   usage: {input?, output?, cachedInput?, cacheWrite?, thinking?} in the API's own meaning: for anthropic `input` is the
 *   uncached part (input_tokens); for gemini/openai `input` is the whole prompt (cachedInput is part of it).
 * Faults:
 *   fault.status(status, {headers?, body?})   any status, e.g. fault.status(429, {headers: {'retry-after': '1'}})
 *   fault.hang()        never answers (the client's timeout must fire); released when the server closes
 *   fault.malformed()   200 with a body that is not JSON
 *   fault.drop()        destroys the socket without an answer (connection reset)
 *   fault.delay(ms, reply)   answers `reply` after ms
 * Helpers:
 *   script(...replies)  a Handler answering each reply in turn, then repeating the last one
 *   server.setHandlers(h) swaps the handlers; server.reset() forgets recorded requests and counters
 *   Options: startWireServer(handlers, {rateLimit: {perSecond, burst?}}): a token bucket over all requests; a request
 *   over the rate gets 429 with `retry-after-ms` (and `retry-after` in seconds) and is counted in `server.rejected`.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { strictRefusal } from './strict-models.js';

export type Api = 'gemini' | 'anthropic' | 'openai';

export interface Recorded {
  api: Api;
  /** generateContent / countTokens / batchEmbedContents / embedContent (gemini); messages / count_tokens (anthropic);
   * chat.completions / embeddings (openai). */
  method: string;
  /** Model from the path (gemini) or the body (anthropic, openai). */
  model: string;
  /** HTTP method and path with the query string removed. */
  httpMethod: string;
  path: string;
  query: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** Parsed JSON body (undefined when there was none or it was not JSON). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export type Reply =
  | { status?: number; headers?: Record<string, string>; body?: unknown }
  | { fault: 'hang' }
  | { fault: 'drop' }
  | { fault: 'malformed'; status?: number }
  | { fault: 'stall'; body: string }
  | { fault: 'drip'; everyMs: number }
  | { fault: 'delay'; ms: number; reply: Reply };

export type Handler = (req: Recorded) => Reply | Promise<Reply>;

export interface Handlers {
  gemini?: Handler;
  anthropic?: Handler;
  openai?: Handler;
}

export interface WireServerOptions {
  /** Token bucket over every request: `perSecond` refill, `burst` capacity (default: perSecond). */
  rateLimit?: { perSecond: number; burst?: number };
  /**
   * As strict as the real APIs (default true): a request to a model of skillbench's model table that carries a
   * parameter the model does not take gets that API's 400; a retired model gets a 404 (test/support/strict-models.ts).
   */
  strict?: boolean;
}

export interface WireServer {
  /** http://127.0.0.1:PORT (no trailing slash). */
  url: string;
  /** The base URL to give each SDK / `--base-url` (openai: url + '/v1'). */
  baseUrl(api: Api): string;
  requests: Recorded[];
  /** Requests received per api (faults and rate-limited ones included). */
  hits: Record<Api, number>;
  /** Requests answered 429 by the rate limiter. */
  rejected: number;
  /** Replace the handlers while running. */
  setHandlers(handlers: Handlers): void;
  /** Forget the recorded requests, hits and rejections (handlers stay). */
  reset(): void;
  close(): Promise<void>;
}

export async function startWireServer(handlers: Handlers = {}, options: WireServerOptions = {}): Promise<WireServer> {
  let current: Handlers = { ...handlers };
  const requests: Recorded[] = [];
  const hits: Record<Api, number> = { gemini: 0, anthropic: 0, openai: 0 };
  const sockets = new Set<Socket>();
  const hanging = new Set<http.ServerResponse>();
  const bucket = options.rateLimit ? createBucket(options.rateLimit.perSecond, options.rateLimit.burst) : null;
  const state = { rejected: 0 };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void handle(req, Buffer.concat(chunks).toString('utf8'), res).catch((err: unknown) => {
        if (!res.headersSent) send(res, { status: 500, body: { error: { message: `wire-server: ${String(err)}` } } });
      });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.keepAliveTimeout = 30_000;

  async function handle(req: http.IncomingMessage, text: string, res: http.ServerResponse): Promise<void> {
    const [path, query = ''] = (req.url ?? '/').split('?', 2) as [string, string?];
    const route = routeOf(path);
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : (v ?? '');
    if (!route) {
      send(res, { status: 404, body: { error: { code: 404, message: `wire-server: no route for ${path}` } } });
      return;
    }
    const model =
      route.model ?? (body && typeof body === 'object' && 'model' in body ? String((body as { model: unknown }).model) : '');
    const rec: Recorded = { api: route.api, method: route.method, model, httpMethod: req.method ?? 'GET', path, query, headers, body };
    requests.push(rec);
    hits[route.api] += 1;
    if (bucket) {
      const wait = bucket.take();
      if (wait > 0) {
        state.rejected += 1;
        send(res, rateLimitReply(route.api, wait));
        return;
      }
    }
    const refusal = options.strict === false ? null : strictRefusal(route.api, route.method, model, body);
    if (refusal) {
      send(res, { status: refusal.status, body: errorBody(route.api, refusal.status, refusal.message) });
      return;
    }
    const handler = current[route.api];
    if (!handler) {
      send(res, { status: 404, body: errorBody(route.api, 404, `wire-server: no ${route.api} handler`) });
      return;
    }
    await answer(res, await handler(rec));
  }

  async function answer(res: http.ServerResponse, reply: Reply): Promise<void> {
    if ('fault' in reply) {
      switch (reply.fault) {
        case 'hang':
          hanging.add(res);
          res.on('close', () => hanging.delete(res));
          return;
        case 'drop':
          res.socket?.destroy();
          return;
        case 'stall':
          // Headers and half a body, then nothing: the SDK's own timer has stopped once the headers came.
          hanging.add(res);
          res.on('close', () => hanging.delete(res));
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write(reply.body.slice(0, Math.floor(reply.body.length / 2)));
          return;
        case 'drip': {
          // One space every few ms, forever: every read succeeds, the answer never ends.
          hanging.add(res);
          res.writeHead(200, { 'content-type': 'application/json' });
          const timer = setInterval(() => res.write(' '), reply.everyMs);
          res.on('close', () => {
            clearInterval(timer);
            hanging.delete(res);
          });
          return;
        }
        case 'malformed':
          res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
          res.end('{"candidates": [ this is not json');
          return;
        case 'delay':
          await new Promise((r) => setTimeout(r, reply.ms));
          await answer(res, reply.reply);
          return;
      }
    }
    send(res, reply);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseUrl: (api) => (api === 'openai' ? `${url}/v1` : url),
    requests,
    hits,
    get rejected() {
      return state.rejected;
    },
    setHandlers(h) {
      current = { ...h };
    },
    reset() {
      requests.length = 0;
      hits.gemini = hits.anthropic = hits.openai = 0;
      state.rejected = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of hanging) r.destroy();
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function send(res: http.ServerResponse, reply: { status?: number; headers?: Record<string, string>; body?: unknown }): void {
  const payload = reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
  res.end(payload);
}

interface Route {
  api: Api;
  method: string;
  model?: string;
}

function routeOf(path: string): Route | null {
  const g = /^\/[^/]+\/models\/([^/:]+):([A-Za-z]+)$/.exec(path);
  if (g) return { api: 'gemini', model: decodeURIComponent(g[1]!), method: g[2]! };
  if (path === '/v1/messages') return { api: 'anthropic', method: 'messages' };
  if (path === '/v1/messages/count_tokens') return { api: 'anthropic', method: 'count_tokens' };
  const o = /^(?:\/v1)?\/(chat\/completions|embeddings)$/.exec(path);
  if (o) return { api: 'openai', method: o[1] === 'embeddings' ? 'embeddings' : 'chat.completions' };
  return null;
}

function createBucket(perSecond: number, burst = perSecond) {
  let tokens = burst;
  let last = performance.now();
  return {
    /** 0 when a token was taken, else the ms until one is available. */
    take(): number {
      const now = performance.now();
      tokens = Math.min(burst, tokens + ((now - last) / 1000) * perSecond);
      last = now;
      if (tokens >= 1) {
        tokens -= 1;
        return 0;
      }
      return Math.ceil(((1 - tokens) / perSecond) * 1000);
    },
  };
}

type PlainReply = { status?: number; headers?: Record<string, string>; body?: unknown };

function rateLimitReply(api: Api, waitMs: number): PlainReply {
  const headers = { 'retry-after-ms': String(waitMs), 'retry-after': String(Math.ceil(waitMs / 1000)) };
  if (api === 'gemini') {
    const r = gemini.rateLimited(`${(waitMs / 1000).toFixed(3)}s`) as PlainReply;
    return { ...r, headers };
  }
  return { status: 429, headers, body: errorBody(api, 429, 'rate limited by wire-server') };
}

function errorBody(api: Api, status: number, message: string): unknown {
  const anthropicType: Record<number, string> = { 400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error', 429: 'rate_limit_error' };
  if (api === 'anthropic') return { type: 'error', error: { type: anthropicType[status] ?? 'api_error', message } };
  if (api === 'openai') return { error: { message, type: status === 400 ? 'invalid_request_error' : 'server_error', param: null, code: String(status) } };
  const googleStatus: Record<number, string> = { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 429: 'RESOURCE_EXHAUSTED' };
  return { error: { code: status, message, status: googleStatus[status] ?? 'INTERNAL' } };
}

/** Gemini's daily quota: a 429 whose QuotaFailure names a per-day quota (retrying today does not help). */
export function geminiDailyQuota(): Reply {
  return {
    status: 429,
    body: {
      error: {
        code: 429,
        message: 'You exceeded your current quota, please check your plan and billing details.',
        status: 'RESOURCE_EXHAUSTED',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_requests', quotaId: 'GenerateRequestsPerDayPerProjectPerModel' }] },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '40s' },
        ],
      },
    },
  };
}

/** OpenAI's "no credit left": a 429 that waiting does not cure. */
export function openaiInsufficientQuota(): Reply {
  return { status: 429, body: { error: { message: 'You exceeded your current quota, please check your plan and billing details.', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } } };
}

// ---------------------------------------------------------------- reply builders

export interface UsageSpec {
  input?: number;
  output?: number;
  cachedInput?: number;
  cacheWrite?: number;
  thinking?: number;
}

let seq = 0;
const nextId = (prefix: string) => `${prefix}_${(++seq).toString(36).padStart(6, '0')}`;

export const gemini = {
  functionCalls(calls: { name: string; args: Record<string, unknown> }[], usage: UsageSpec = {}, opts: { thoughtSignature?: string; text?: string } = {}): Reply {
    const parts: Record<string, unknown>[] = [];
    if (opts.text) parts.push({ text: opts.text });
    calls.forEach((c, i) => {
      const part: Record<string, unknown> = { functionCall: { name: c.name, args: c.args } };
      if (i === 0 && opts.thoughtSignature) part.thoughtSignature = opts.thoughtSignature;
      parts.push(part);
    });
    return gemini.content(parts, usage);
  },
  functionCall(name: string, args: Record<string, unknown>, usage?: UsageSpec, opts?: { thoughtSignature?: string; text?: string }): Reply {
    return gemini.functionCalls([{ name, args }], usage, opts);
  },
  text(text: string, usage?: UsageSpec): Reply {
    return gemini.content([{ text }], usage);
  },
  json(value: unknown, usage?: UsageSpec): Reply {
    return gemini.text(JSON.stringify(value), usage);
  },
  /** A candidate with these raw parts. */
  content(parts: Record<string, unknown>[], usage: UsageSpec = {}, finishReason = 'STOP'): Reply {
    const input = usage.input ?? 10;
    const output = usage.output ?? 5;
    const usageMetadata: Record<string, number> = {
      promptTokenCount: input,
      candidatesTokenCount: output,
      totalTokenCount: input + output + (usage.thinking ?? 0),
    };
    if (usage.cachedInput) usageMetadata.cachedContentTokenCount = usage.cachedInput;
    if (usage.thinking) usageMetadata.thoughtsTokenCount = usage.thinking;
    return {
      status: 200,
      body: {
        candidates: [{ content: { role: 'model', parts }, finishReason, index: 0 }],
        usageMetadata,
        modelVersion: 'wire-server',
        responseId: nextId('resp'),
      },
    };
  },
  embeddings(vectors: number[][]): Reply {
    return { status: 200, body: { embeddings: vectors.map((values) => ({ values })) } };
  },
  countTokens(totalTokens: number): Reply {
    return { status: 200, body: { totalTokens } };
  },
  rateLimited(retryDelay = '1s'): Reply {
    return {
      status: 429,
      body: {
        error: {
          code: 429,
          message: 'Resource has been exhausted (e.g. check quota).',
          status: 'RESOURCE_EXHAUSTED',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay }],
        },
      },
    };
  },
};

export const anthropic = {
  toolUses(calls: { name: string; input: Record<string, unknown> }[], usage?: UsageSpec, text?: string): Reply {
    const content: Record<string, unknown>[] = [];
    if (text) content.push({ type: 'text', text });
    for (const c of calls) content.push({ type: 'tool_use', id: nextId('toolu'), name: c.name, input: c.input });
    return anthropic.message(content, usage, calls.length ? 'tool_use' : 'end_turn');
  },
  toolUse(name: string, input: Record<string, unknown>, usage?: UsageSpec): Reply {
    return anthropic.toolUses([{ name, input }], usage);
  },
  text(text: string, usage?: UsageSpec): Reply {
    return anthropic.message([{ type: 'text', text }], usage, 'end_turn');
  },
  message(content: Record<string, unknown>[], usage: UsageSpec = {}, stopReason = 'end_turn'): Reply {
    return {
      status: 200,
      body: {
        id: nextId('msg'),
        type: 'message',
        role: 'assistant',
        model: 'wire-server',
        content,
        stop_reason: stopReason,
        stop_sequence: null,
        usage: {
          input_tokens: usage.input ?? 10,
          output_tokens: usage.output ?? 5,
          cache_creation_input_tokens: usage.cacheWrite ?? 0,
          cache_read_input_tokens: usage.cachedInput ?? 0,
        },
      },
    };
  },
  countTokens(inputTokens: number): Reply {
    return { status: 200, body: { input_tokens: inputTokens } };
  },
  overloaded(): Reply {
    return { status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } };
  },
};

export const openai = {
  toolCalls(calls: { name: string; args: Record<string, unknown> }[], usage?: UsageSpec, text: string | null = null): Reply {
    return openai.message(
      {
        role: 'assistant',
        content: text,
        tool_calls: calls.map((c) => ({ id: nextId('call'), type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } })),
      },
      usage,
      'tool_calls',
    );
  },
  toolCall(name: string, args: Record<string, unknown>, usage?: UsageSpec): Reply {
    return openai.toolCalls([{ name, args }], usage);
  },
  text(text: string, usage?: UsageSpec): Reply {
    return openai.message({ role: 'assistant', content: text }, usage, 'stop');
  },
  message(message: Record<string, unknown>, usage: UsageSpec = {}, finishReason = 'stop'): Reply {
    const input = usage.input ?? 10;
    const completion = (usage.output ?? 5) + (usage.thinking ?? 0);
    return {
      status: 200,
      body: {
        id: nextId('chatcmpl'),
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: 'wire-server',
        choices: [{ index: 0, message, finish_reason: finishReason, logprobs: null }],
        usage: {
          prompt_tokens: input,
          completion_tokens: completion,
          total_tokens: input + completion,
          prompt_tokens_details: { cached_tokens: usage.cachedInput ?? 0 },
          completion_tokens_details: { reasoning_tokens: usage.thinking ?? 0 },
        },
      },
    };
  },
  embeddings(vectors: number[][]): Reply {
    return {
      status: 200,
      body: {
        object: 'list',
        data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
        model: 'wire-server',
        usage: { prompt_tokens: vectors.length, total_tokens: vectors.length },
      },
    };
  },
};

export const fault = {
  status(status: number, opts: { headers?: Record<string, string>; body?: unknown } = {}): Reply {
    return { status, headers: opts.headers, body: opts.body ?? { error: { code: status, message: `scripted ${status}` } } };
  },
  hang(): Reply {
    return { fault: 'hang' };
  },
  malformed(status = 200): Reply {
    return { fault: 'malformed', status };
  },
  drop(): Reply {
    return { fault: 'drop' };
  },
  delay(ms: number, reply: Reply): Reply {
    return { fault: 'delay', ms, reply };
  },
  /** 200 with headers and the first half of `reply`'s body, then silence (the body never completes). */
  stall(reply: Reply): Reply {
    const body = 'body' in reply ? JSON.stringify(reply.body) : '{}';
    return { fault: 'stall', body };
  },
  /** 200, then one byte every `everyMs` ms, forever. */
  drip(everyMs = 100): Reply {
    return { fault: 'drip', everyMs };
  },
};

/** A Handler answering each reply in turn, then repeating the last one. */
export function script(...replies: Reply[]): Handler {
  let i = 0;
  return () => replies[Math.min(i++, replies.length - 1)]!;
}
