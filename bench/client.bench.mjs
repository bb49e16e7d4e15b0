#!/usr/bin/env node
// Provider core benchmarks, against dist/ (run through `npm run bench`, or `node bench/run.mjs client`):
//  1. replay throughput of a fully cached run: 10,000 cached calls (target: under 2 s on 2 cores);
//  2. throughput against the local wire server with a rate limit set on it (target: >= 95% of the allowed rate,
//     no failed request);
//  3. embedding throughput of the offline model (Universal Sentence Encoder lite).
// Real data from ../shared/data/metatool when present (199 tools as the catalogue, its requests as user turns);
// synthetic text otherwise (said in the output). Results go to docs/benchmarks.md, section "Provider core".
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { machineLine, root, writeBenchSection } from './run.mjs';

const dist = (p) => pathToFileURL(path.join(root, 'dist', p)).href;
const { createChatClient, createEmbedder, withDefaults } = await import(dist('client.js'));
const { ResponseCache, makeEntry } = await import(dist('cache.js'));
// A model the table knows and does not retire soon: the client sends it what the table allows.
const MODEL = 'gpt-6-luna';

// The test suite's wire server, transpiled on the fly (it is TypeScript; the bench runs plain node), with the
// support modules it imports; their imports of skillbench itself (the model table's loader) read dist/.
const WIRE_MODULES = ['wire-server', 'strict-models', 'wire-batches'];

async function loadWireServer() {
  const out = path.join(root, 'node_modules', '.cache', `skillbench-bench-${process.pid}`);
  mkdirSync(out, { recursive: true });
  const opts = { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } };
  for (const name of WIRE_MODULES) {
    const src = readFileSync(path.join(root, 'test', 'support', `${name}.ts`), 'utf8');
    let js = ts.transpileModule(src, opts).outputText.replaceAll("'../../src/", `'${pathToFileURL(path.join(root, 'dist')).href}/`);
    for (const other of WIRE_MODULES) js = js.replaceAll(`'./${other}.js'`, `'./${other}.mjs'`);
    writeFileSync(path.join(out, `${name}.mjs`), js);
  }
  const mod = await import(pathToFileURL(path.join(out, 'wire-server.mjs')).href);
  rmSync(out, { recursive: true, force: true });
  return mod;
}
const { startWireServer, openai } = await loadWireServer();

// ---------------------------------------------------------------- data
const dataDir = path.resolve(root, '..', 'shared', 'data', 'metatool');
let tools;
let texts;
let dataNote;
if (existsSync(path.join(dataDir, 'tools.json'))) {
  tools = JSON.parse(readFileSync(path.join(dataDir, 'tools.json'), 'utf8'));
  texts = JSON.parse(readFileSync(path.join(dataDir, 'requests.json'), 'utf8')).map((r) => r.text);
  dataNote = `MetaTool (../shared/data/metatool): ${tools.length} tools as the catalogue, ${texts.length} requests`;
} else {
  tools = Array.from({ length: 199 }, (_, i) => ({ name: `tool_${i}`, description: `Synthetic tool number ${i} that does task ${i} for the user.` }));
  texts = Array.from({ length: 1000 }, (_, i) => `synthetic request number ${i}: please help with task ${i % 199}`);
  dataNote = 'synthetic (../shared/data/metatool absent): 199 tools, 1,000 requests';
}
const system = [
  { text: `<available_skills>\n${tools.map((t) => `<skill><name>${t.name}</name><description>${t.description}</description></skill>`).join('\n')}\n</available_skills>`, cache: true },
  { text: 'Load a skill with activate_skill only when the request needs it.' },
];
const toolDecl = [{ name: 'activate_skill', description: 'Load a skill', parameters: { type: 'object', properties: { name: { type: 'string', enum: tools.map((t) => t.name) } }, required: ['name'] } }];
const request = (i) => ({ system, tools: toolDecl, messages: [{ role: 'user', content: texts[i % texts.length] }] });
const sampleOf = (i) => Math.floor(i / texts.length);

const tmp = await mkdtemp(path.join(os.tmpdir(), 'skillbench-bench-'));
const fmt = (n, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const results = [];

try {
  // ---------------------------------------------------------------- 1. replay
  const N = 10_000;
  // Fill: the first 200 entries through live calls (the real path), the rest written with the client's own key and
  // entry functions (10,000 live calls would only measure the local HTTP stack).
  const server = await startWireServer({ openai: () => openai.toolCall('activate_skill', { name: tools[0].name }, { input: 4000, output: 12 }) });
  const cacheDir = path.join(tmp, 'replay-cache');
  const fill = await createChatClient(
    { provider: 'openai', model: MODEL, baseUrl: server.baseUrl('openai'), cacheDir, cache: true, concurrency: 8, timeout: 30 },
    { env: { OPENAI_API_KEY: 'bench' } },
  );
  let t0 = performance.now();
  const LIVE = 200;
  const live = await Promise.all(Array.from({ length: LIVE }, (_, i) => fill.chat(request(i), { sample: sampleOf(i) })));
  await server.close();
  const cache = new ResponseCache(cacheDir);
  for (let i = LIVE; i < N; i += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, N - i) }, (_, j) => {
        const full = withDefaults(request(i + j), MODEL);
        const key = fill.keyOf(request(i + j), sampleOf(i + j));
        return cache.put(makeEntry(key, 'chat', 'openai', full, sampleOf(i + j), { response: live[0].response, costUsd: live[0].costUsd }));
      }),
    );
  }
  const fillS = (performance.now() - t0) / 1000;
  const systemChars = system.reduce((a, b) => a + b.text.length, 0);
  console.log(`filled ${fmt(N)} entries in ${fmt(fillS, 1)} s (${LIVE} live); system prompt ${fmt(systemChars)} chars, ${tools.length}-name enum`);

  const replayTimes = [];
  for (let run = 0; run < 3; run++) {
    const replay = await createChatClient({ provider: 'openai', model: MODEL, cacheDir, cache: true, cacheOnly: true }, { env: {} });
    t0 = performance.now();
    const out = await Promise.all(Array.from({ length: N }, (_, i) => replay.chat(request(i), { sample: sampleOf(i) })));
    const s = (performance.now() - t0) / 1000;
    if (!out.every((r) => r.cached) || replay.stats().cacheHits !== N) throw new Error('replay: not every call came from the cache');
    replayTimes.push(s);
    console.log(`replay ${run + 1}: ${fmt(N)} cached calls in ${fmt(s, 2)} s (${fmt(N / s)} calls/s)`);
  }
  const best = Math.min(...replayTimes);
  const median = [...replayTimes].sort((a, b) => a - b)[1];
  results.push({
    name: `Replay of a fully cached run (${fmt(N)} calls, --cache-only, no key)`,
    value: `median ${fmt(median, 2)} s (${fmt(N / median)} calls/s); best ${fmt(best, 2)} s; runs ${replayTimes.map((x) => fmt(x, 2)).join(', ')} s`,
    target: 'under 2 s',
    pass: median < 2,
  });

  // ---------------------------------------------------------------- 2. rate-limited throughput, at every -j
  const RATE = 50;
  const BURST = 10;
  const M = 600;
  for (const J of [4, 8, 16, 32]) {
    const limited = await startWireServer({ openai: () => openai.toolCall('activate_skill', { name: tools[1].name }, { input: 4000, output: 12 }) }, { rateLimit: { perSecond: RATE, burst: BURST } });
    const rl = await createChatClient(
      { provider: 'openai', model: MODEL, baseUrl: limited.baseUrl('openai'), cacheDir: path.join(tmp, `rl-cache-${J}`), cache: true, concurrency: J, timeout: 30 },
      { env: { OPENAI_API_KEY: 'bench' } },
    );
    t0 = performance.now();
    const settled = await Promise.allSettled(Array.from({ length: M }, (_, i) => rl.chat(request(i), { sample: 100 + sampleOf(i) })));
    const elapsed = (performance.now() - t0) / 1000;
    const ok = settled.filter((r) => r.status === 'fulfilled').length;
    const failed = M - ok;
    await limited.close();
    // The bucket starts full: the first BURST calls are free of the rate; the sustained rate leaves them out.
    const sustained = (ok - BURST) / elapsed;
    const share = sustained / RATE;
    console.log(`rate-limited -j ${J}: ${ok}/${M} ok, ${failed} failed, ${limited.rejected} answered 429, ${fmt(elapsed, 2)} s, sustained ${fmt(sustained, 1)}/s of ${RATE}/s (${fmt(share * 100, 1)}%)`);
    results.push({
      name: `Against the local server limited to ${RATE} requests/s (token bucket, burst ${BURST}), ${M} calls, -j ${J}`,
      value: `${fmt(sustained, 1)} calls/s sustained = ${fmt(share * 100, 1)}% of the allowed rate; ${failed} failed; ${fmt(limited.rejected)} 429s absorbed (retry-after-ms honoured by every lane)`,
      target: '>= 95% of the allowed rate, no failed request',
      pass: share >= 0.95 && failed === 0,
    });
  }

  // ---------------------------------------------------------------- 3. offline embeddings
  const docs = tools.map((t) => ({ text: t.description, title: t.name }));
  const emb = await createEmbedder({ embeddings: 'use', cacheDir: path.join(tmp, 'emb-cache'), cache: true });
  t0 = performance.now();
  await emb.embed([docs[0]], 'document');
  const coldS = (performance.now() - t0) / 1000;
  t0 = performance.now();
  await emb.embed(docs.slice(1), 'document');
  const warmS = (performance.now() - t0) / 1000;
  const perS = (docs.length - 1) / warmS;
  t0 = performance.now();
  const again = await createEmbedder({ embeddings: 'use', cacheDir: path.join(tmp, 'emb-cache'), cache: true });
  await again.embed(docs, 'document');
  const cachedS = (performance.now() - t0) / 1000;
  console.log(`use: cold load + 1 text ${fmt(coldS, 2)} s; ${docs.length - 1} texts in ${fmt(warmS, 2)} s (${fmt(perS, 1)} texts/s); all ${docs.length} from the disk cache in ${fmt(cachedS, 3)} s`);
  results.push({
    name: `Offline embeddings (use, Universal Sentence Encoder lite), ${docs.length} tool descriptions, one text at a time on each of up to 2 threads (a worker's own model load included)`,
    value: `${fmt(perS, 1)} texts/s after a ${fmt(coldS, 2)} s cold load; an unchanged catalogue re-read from the vector cache in ${fmt(cachedS * 1000)} ms`,
    target: 'recorded (no target)',
    pass: true,
  });
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

const table = [
  '| benchmark | result | target | met |',
  '|---|---|---|---|',
  ...results.map((r) => `| ${r.name} | ${r.value} | ${r.target} | ${r.pass ? 'yes' : '**no**'} |`),
].join('\n');
writeBenchSection(
  'Provider core',
  `Command: \`npm run bench\` (or \`node bench/run.mjs client\`), file \`bench/client.bench.mjs\`, against \`dist/\`.\n` +
    `Machine: ${machineLine()}. Data: ${dataNote}. The server is the test suite's wire server on loopback ` +
    `(\`test/support/wire-server.ts\`) reached through the real \`openai\` SDK.\n\n${table}\n\n` +
    `- Replay: the cache is filled with 200 live calls and 9,800 entries written with the client's own key and entry ` +
    `functions; each replay is a fresh \`--cache-only\` client with no key, all 10,000 requests issued at once, every ` +
    `one checked to come from the cache.\n` +
    `- Rate limit: sustained rate = (successful calls - the bucket's initial burst) / wall time.\n`,
);
console.log(`\n${table}`);
if (!results.every((r) => r.pass)) process.exitCode = 1;
