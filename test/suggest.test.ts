// `skillbench suggest` end to end: the real CLI, the real Gemini SDK pointed at the local wire-format server, and a
// scripted "model" that answers each stage's structured-output request from a plan per request. Every figure asserted
// here was worked out by hand from the plans below.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCli } from './support/cli.js';
import { computeMetrics } from '../src/metrics.js';
import { priceOf } from '../src/providers/pricing.js';
import type { ResultsFile } from '../src/types.js';
import { gemini, startWireServer, type Recorded, type Reply, type WireServer } from './support/wire-server.js';

const CATALOGUE = resolve('fixtures/suggest/catalogue');
const REQUESTS = resolve('fixtures/suggest/requests.json');
const MODEL = 'gemini-2.5-flash-lite';

// Usage the scripted model reports per kind of call, and the dollars that makes at gemini-2.5-flash-lite's list price
// ($0.10 input, $0.40 output per million tokens; checked below against the price table):
//   rank   1000 in + 50 out = 0.000100 + 0.000020 = $0.000120
//   gate    300 in + 20 out = 0.000030 + 0.000008 = $0.000038
//   narrow  800 in + 40 out = 0.000080 + 0.000016 = $0.000096
//   agent  2000 in + 30 out = 0.000200 + 0.000012 = $0.000212
const USAGE = {
  rank: { input: 1000, output: 50 },
  gate: { input: 300, output: 20 },
  narrow: { input: 800, output: 40 },
  agent: { input: 2000, output: 30 },
};
const COST = { rank: 0.00012, gate: 0.000038, narrow: 0.000096, agent: 0.000212 };

interface Plan {
  /** Skills this model prefers for the request, best first; other listed skills follow at 0.1. */
  prefer: string[];
  /** acts on the user's things, expert procedure, prose alone. */
  gate: [number, number, number];
  fits?: Record<string, number>;
  pick?: string;
  /** What the agent loads first with the index only (baseline): a name (possibly misspelt) or null. */
  baseline: string | null;
}

const PLANS: Record<string, Plan> = {
  'Open a pull request for my feature branch and ask Sam to review it': {
    prefer: ['github-pr-workflow', 'github-issues', 'newsletter-writer'],
    gate: [1, 1, 0],
    fits: { 'github-pr-workflow': 0.95, 'github-issues': 0.2 },
    baseline: 'github-pr-workflow',
  },
  'Close all the issues labelled wontfix in my repo': {
    prefer: ['github-issues', 'github-pr-workflow', 'gmail-triage'],
    gate: [1, 0.9, 0.1],
    fits: { 'github-issues': 0.9 },
    baseline: 'github-pr-workflow',
  },
  'Turn this screen recording into a gif for the README': {
    prefer: ['video-to-gif', 'image-resize', 'obsidian-vault'],
    gate: [0.9, 0.8, 0.2],
    fits: { 'video-to-gif': 0.85, 'image-resize': 0.3 },
    baseline: 'image-resize',
  },
  // The suggester gets this one wrong: the agent was right alone (broken).
  'Shrink every photo in my holidays folder to 1600 pixels wide': {
    prefer: ['video-to-gif', 'image-resize', 'csv-profiler'],
    gate: [1, 0.8, 0.1],
    fits: { 'video-to-gif': 0.6, 'image-resize': 0.5 },
    pick: 'video-to-gif',
    baseline: 'image-resize',
  },
  // The agent misspells the name alone: a wrong load (fixed by the suggestion).
  "Add today's shopping list to my Apple Notes": {
    prefer: ['apple-notes', 'obsidian-vault', 'newsletter-writer'],
    gate: [1, 0.7, 0.3],
    fits: { 'apple-notes': 0.9 },
    baseline: 'apple-note',
  },
  // Nothing fits (best 0.25 < 0.30): the agent is told none is relevant and loads nothing (broken).
  'Archive every newsletter in my Gmail inbox older than a month': {
    prefer: ['newsletter-writer', 'gmail-triage', 'apple-notes'],
    gate: [1, 0.8, 0.1],
    fits: { 'newsletter-writer': 0.2, 'gmail-triage': 0.25 },
    baseline: 'gmail-triage',
  },
  // Gate closed: (0.1 + 0.2 + (1 - 0.9)) / 3 = 0.133 < 0.30.
  'What is the difference between a merge and a rebase?': {
    prefer: ['github-pr-workflow', 'github-issues', 'sql-runner'],
    gate: [0.1, 0.2, 0.9],
    baseline: 'github-pr-workflow',
  },
  // Gate closed: (0 + 0 + 0) / 3 = 0.
  'Write a haiku about autumn': {
    prefer: ['newsletter-writer', 'apple-notes', 'obsidian-vault'],
    gate: [0, 0, 1],
    baseline: null,
  },
};

type Kind = 'rank' | 'gate' | 'narrow' | 'agent';
interface Seen {
  kind: Kind;
  request: string;
  /** rank: the skills listed; narrow: the candidates. */
  names: string[];
  withGate?: boolean;
  system: string;
  body: Recorded['body'];
}

const systemOf = (body: Recorded['body']): string =>
  ((body.systemInstruction?.parts ?? []) as { text: string }[]).map((p) => p.text).join('\n\n');
const userOf = (body: Recorded['body']): string => body.contents?.[0]?.parts?.[0]?.text ?? '';
const quoted = (user: string): string => /"""\n([\s\S]*?)\n"""/.exec(user)?.[1] ?? '';

function classify(body: Recorded['body']): Seen {
  const system = systemOf(body);
  const user = userOf(body);
  if (system.startsWith('You route requests')) {
    const names = [...user.matchAll(/^- ([a-z0-9-]+)(?: \(|:)/gm)].map((m) => m[1]!);
    const withGate = Boolean(body.generationConfig?.responseJsonSchema?.properties?.gate);
    return { kind: 'rank', request: quoted(user), names, withGate, system, body };
  }
  if (system.startsWith('You decide whether')) return { kind: 'gate', request: quoted(user), names: [], system, body };
  if (system.startsWith('You decide which skill')) {
    const names = [...user.matchAll(/<candidate name="([^"]+)"/g)].map((m) => m[1]!);
    return { kind: 'narrow', request: quoted(user), names, system, body };
  }
  return { kind: 'agent', request: user, names: [], system, body };
}

/** The scripted model: answers every stage from PLANS; `broken` requests get a non-JSON answer to their rank call. */
function fakeModel(seen: Seen[], broken = new Set<string>()) {
  return (req: Recorded): Reply => {
    const s = classify(req.body);
    seen.push(s);
    // An agent under a host that puts the listing in the user's turn: the request ends the message.
    const plan = PLANS[s.request] ?? Object.entries(PLANS).find(([k]) => s.kind === 'agent' && s.request.endsWith(k))?.[1];
    if (!plan) return gemini.text(`no plan for ${JSON.stringify(s.request)}`);
    const gate = { acts_on_user_things: plan.gate[0], expert_procedure: plan.gate[1], prose_alone: plan.gate[2] };
    switch (s.kind) {
      case 'rank': {
        if (broken.has(s.request)) return gemini.text('Sure! The best skill is probably the first one.', USAGE.rank);
        const depth = Number(/Rank the (\d+) most relevant/.exec(userOf(req.body))?.[1] ?? 3);
        const order = [...plan.prefer.filter((n) => s.names.includes(n)), ...s.names.filter((n) => !plan.prefer.includes(n))];
        const ranking = order.slice(0, depth).map((name, i) => ({ name, score: plan.prefer.includes(name) ? 0.9 - 0.1 * i : 0.1 }));
        return gemini.json(s.withGate ? { ranking, gate } : { ranking }, USAGE.rank);
      }
      case 'gate':
        return gemini.json(gate, USAGE.gate);
      case 'narrow': {
        const fits = s.names.map((name) => ({ name, fit: plan.fits?.[name] ?? 0 }));
        const best = [...fits].sort((a, b) => b.fit - a.fit)[0]!.name;
        return gemini.json({ fits, pick: plan.pick ?? best }, USAGE.narrow);
      }
      case 'agent': {
        // The agent follows a <skill_relevance> block when there is one, else loads what the plan says.
        const block = /<skill_relevance(?: skill="([^"]+)")?>/.exec(s.system);
        const load = block ? (block[1] ?? null) : plan.baseline;
        // It loads through the tool it was given (skill_view by default, the host's loading tool with --host).
        const tool = req.body.tools[0].functionDeclarations[0];
        return load === null ? gemini.text('Here is my answer.', USAGE.agent) : gemini.functionCall(tool.name, { [tool.parametersJsonSchema.required[0]]: load }, USAGE.agent);
      }
    }
  };
}

/** Runs the CLI in process; out/err are what it printed. */
async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const r = await runCli(args);
  return { code: r.code, out: r.stdout, err: r.stderr };
}

let server: WireServer;
let seen: Seen[];
let dir: string;

beforeAll(async () => {
  server = await startWireServer({});
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  seen = [];
  server.setHandlers({ gemini: fakeModel(seen) });
  dir = await mkdtemp(join(tmpdir(), 'skillbench-suggest-'));
  vi.stubEnv('GEMINI_API_KEY', 'test-key');
  vi.stubEnv('GOOGLE_API_KEY', '');
  vi.stubEnv('ANTHROPIC_API_KEY', '');
  vi.stubEnv('OPENAI_API_KEY', '');
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await rm(dir, { recursive: true, force: true });
});

const provider = () => ['--provider', 'gemini', '--model', MODEL, '--base-url', server.url, '--cache-dir', join(dir, 'cache')];

async function suggestJson(request: string, extra: string[] = []) {
  const r = await cli(['suggest', request, '--skills', CATALOGUE, ...provider(), ...extra, '--json']);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.out);
}

describe('the price the hand-checked figures assume', () => {
  it('is gemini-2.5-flash-lite at $0.10 / $0.40 per million tokens', () => {
    const p = priceOf('gemini', MODEL, { baseUrl: 'http://127.0.0.1:1' });
    expect(p).toMatchObject({ input: 0.1, output: 0.4 });
  });
});

describe('skillbench suggest "request" (--wide model)', () => {
  it('suggests the winner: one wide call (ranking + gate), one narrow call', async () => {
    const s = await suggestJson('Open a pull request for my feature branch and ask Sam to review it');
    expect(s.exit).toBe('suggested');
    expect(s.skill).toBe('github-pr-workflow');
    expect(s.gate).toMatchObject({ actsOnUserThings: 1, expertProcedure: 1, proseAlone: 0, score: 1, threshold: 0.3, open: true });
    expect(s.shortlist).toEqual([
      { name: 'github-pr-workflow', wideScore: 0.9, fit: 0.95 },
      { name: 'github-issues', wideScore: 0.8, fit: 0.2 },
      { name: 'newsletter-writer', wideScore: 0.7, fit: 0 },
    ]);
    expect(s.block).toContain('<skill_relevance skill="github-pr-workflow">');
    expect(s.block).toContain('ignore this note if it does not');
    expect(seen.map((x) => x.kind)).toEqual(['rank', 'narrow']);
    // Every skill of the catalogue is ranked in one call (10 <= --chunk-size 60), with the gate.
    expect(seen[0]!.names).toHaveLength(10);
    expect(seen[0]!.withGate).toBe(true);
    // The narrow stage sees the full description and the start of the body of each candidate.
    const narrow = userOf(seen[1]!.body);
    expect(narrow).toContain('Create, update, review and merge GitHub pull requests with the gh CLI: branches, reviewers, checks, merge strategies.');
    expect(narrow).toContain("Work on the user's repository through `gh`");
    expect(s.costUsd).toBeCloseTo(COST.rank + COST.narrow, 12);
    expect(s.calls.map((c: { stage: string }) => c.stage)).toEqual(['wide', 'narrow']);
  });

  it('prints the suggestion, the shortlist with scores, the gate answers and the cost', async () => {
    const r = await cli(['suggest', 'Open a pull request for my feature branch and ask Sam to review it', '--skills', CATALOGUE, ...provider()]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/suggests\s+github-pr-workflow/);
    expect(r.out).toMatch(/1\. github-pr-workflow\s+wide 0\.90\s+fit 0\.95\s+<- suggested/);
    expect(r.out).toMatch(/2\. github-issues\s+wide 0\.80\s+fit 0\.20/);
    expect(r.out).toContain("acts on the user's things 1.00, expert procedure 1.00, prose alone 0.00 (counts against) -> 1.00 >= 0.30: open");
    expect(r.out).toContain('<skill_relevance skill="github-pr-workflow">');
    expect(r.out).toContain(`cost       $0.000216: 2 calls (0 cached) to gemini/${MODEL}`);
  });

  it('closes the gate for a request that needs no skill: no narrow call, a "none" block', async () => {
    const s = await suggestJson('Write a haiku about autumn');
    expect(s.exit).toBe('gate-closed');
    expect(s.skill).toBeNull();
    expect(s.gate).toMatchObject({ score: 0, open: false });
    expect(s.shortlist.every((c: { fit: number | null }) => c.fit === null)).toBe(true);
    expect(s.block).toContain('found no skill that appears relevant');
    expect(s.block).not.toContain('skill="');
    expect(seen.map((x) => x.kind)).toEqual(['rank']);
    expect(s.costUsd).toBeCloseTo(COST.rank, 12);
  });

  it('the gate is the mean of acts, procedure and 1 - prose, against --gate', async () => {
    // (0.1 + 0.2 + 0.1) / 3 = 0.1333: closed at 0.30, open at 0.10.
    const closed = await suggestJson('What is the difference between a merge and a rebase?');
    expect(closed.gate.score).toBeCloseTo(0.4 / 3, 10);
    expect(closed.exit).toBe('gate-closed');
    const open = await suggestJson('What is the difference between a merge and a rebase?', ['--gate', '0.1']);
    expect(open.gate.open).toBe(true);
    expect(open.exit).toBe('nothing-fits'); // no fits planned: every candidate 0
  });

  it('suggests nothing when the best fit is under --fit, and the winner when --fit is lowered', async () => {
    const s = await suggestJson('Archive every newsletter in my Gmail inbox older than a month');
    expect(s.exit).toBe('nothing-fits');
    expect(s.skill).toBeNull();
    expect(s.pick).toBe('gmail-triage');
    expect(s.shortlist.map((c: { fit: number }) => c.fit)).toEqual([0.2, 0.25, 0]);
    expect(s.block).toContain('found no skill that appears relevant');
    const lower = await suggestJson('Archive every newsletter in my Gmail inbox older than a month', ['--fit', '0.25']);
    expect(lower.skill).toBe('gmail-triage');
    expect(lower.exit).toBe('suggested');
  });

  it('ranks a catalogue larger than --chunk-size in chunks, then the chunk winners together', async () => {
    const s = await suggestJson('Turn this screen recording into a gif for the README', ['--chunk-size', '4', '--shortlist', '2']);
    const ranks = seen.filter((x) => x.kind === 'rank');
    // Round 1: 10 skills in 3 chunks of 4, 3, 3 (name order), each keeping its 2 best.
    expect(ranks.slice(0, 3).map((x) => x.names)).toEqual([
      ['apple-notes', 'csv-profiler', 'github-issues', 'github-pr-workflow'],
      ['gmail-triage', 'image-resize', 'newsletter-writer'],
      ['obsidian-vault', 'sql-runner', 'video-to-gif'],
    ]);
    // Round 2: the 6 winners in 2 chunks of 3; round 3: the 4 winners in one call, which also answers the gate.
    expect(ranks.slice(3, 5).map((x) => x.names)).toEqual([
      ['apple-notes', 'csv-profiler', 'gmail-triage'],
      ['image-resize', 'obsidian-vault', 'video-to-gif'],
    ]);
    expect(ranks[5]!.names).toEqual(['apple-notes', 'csv-profiler', 'image-resize', 'video-to-gif']);
    expect(ranks.map((x) => x.withGate)).toEqual([false, false, false, false, false, true]);
    expect(seen.at(-1)!.kind).toBe('narrow');
    expect(seen.at(-1)!.names).toEqual(['video-to-gif', 'image-resize']);
    expect(s.skill).toBe('video-to-gif');
    expect(s.calls.map((c: { stage: string }) => c.stage)).toEqual([
      'wide-chunk', 'wide-chunk', 'wide-chunk', 'wide-chunk', 'wide-chunk', 'wide-final', 'narrow',
    ]);
    expect(s.costUsd).toBeCloseTo(6 * COST.rank + COST.narrow, 12);
  });

  it('the pick wins when its fit clears --fit, even over a close second', async () => {
    const s = await suggestJson('Shrink every photo in my holidays folder to 1600 pixels wide');
    expect(s.skill).toBe('video-to-gif');
  });

  it('replays from the cache: the same request costs no new call', async () => {
    await suggestJson('Open a pull request for my feature branch and ask Sam to review it');
    const hits = server.requests.length;
    const again = await suggestJson('Open a pull request for my feature branch and ask Sam to review it', ['--cache-only']);
    expect(server.requests.length).toBe(hits);
    expect(again.skill).toBe('github-pr-workflow');
    expect(again.calls.every((c: { cached: boolean }) => c.cached)).toBe(true);
  });
});

describe('skillbench suggest --wide similarity', () => {
  it('ranks with the offline embedder and asks the model only the gate, then the narrow stage', async () => {
    const s = await suggestJson('Turn this screen recording into a gif for the README', ['--wide', 'similarity']);
    expect(seen.map((x) => x.kind)).toEqual(['gate', 'narrow']);
    // The narrow stage gets the top 3 of the embedding ranking, which covers the whole catalogue.
    expect(s.ranking).toHaveLength(10);
    expect(seen[1]!.names).toEqual(s.ranking.slice(0, 3).map((r: { name: string }) => r.name));
    expect(s.calls.map((c: { stage: string }) => c.stage)).toEqual(['gate', 'narrow']);
    expect(s.costUsd).toBeCloseTo(COST.gate + COST.narrow, 12);
  });

  it('--rank-only prints the offline ranking without any model', async () => {
    vi.stubEnv('GEMINI_API_KEY', '');
    const r = await cli(['suggest', 'Turn this screen recording into a gif', '--skills', CATALOGUE, '--wide', 'similarity', '--rank-only', '--cache-dir', join(dir, 'cache')]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('ranking by similarity (use), 10 skills:');
    expect(r.out.trim().split('\n')).toHaveLength(11);
    expect(seen).toHaveLength(0);
  });

  it('--wide fused ranks offline with the fused selector\'s ranking: the same order as eval-trigger\'s fused run', async () => {
    vi.stubEnv('GEMINI_API_KEY', '');
    const text = 'Turn this screen recording into a gif';
    const r = await cli(['suggest', text, '--skills', CATALOGUE, '--wide', 'fused', '--rank-only', '--json', '--cache-dir', join(dir, 'cache')]);
    expect(r.code).toBe(0);
    const ranking = JSON.parse(r.out).ranking as { name: string; score: number }[];
    const { loadCatalogue } = await import('../src/catalogue.js');
    const { createFusedRanker } = await import('../src/selectors/fused.js');
    const { createEmbedder } = await import('../src/client.js');
    const skills = (await loadCatalogue(CATALOGUE)).skills;
    const embedder = await createEmbedder({ embeddings: 'use', cacheDir: join(dir, 'cache'), cache: true });
    const [item] = await (await createFusedRanker(embedder, skills)).rank([text], { keep: skills.length });
    expect(ranking.map((x) => x.name)).toEqual(item!.ranking.slice(0, 10).map((x) => x.name));
    expect(seen).toHaveLength(0);
  });
});

describe('skillbench suggest: bad input and failures', () => {
  it('a reply that is not the JSON asked for is a clear error (exit 2), not a stack trace', async () => {
    server.setHandlers({ gemini: fakeModel(seen, new Set(['Write a haiku about autumn'])) });
    const r = await cli(['suggest', 'Write a haiku about autumn', '--skills', CATALOGUE, ...provider()]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("wide step: the model's answer is not the JSON asked for");
    expect(r.err).not.toContain('    at ');
  });

  it('refuses a --chunk-size that could not shrink the catalogue', async () => {
    const r = await cli(['suggest', 'anything', '--skills', CATALOGUE, ...provider(), '--chunk-size', '5']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--chunk-size 5 is too small for --shortlist 3');
    expect(seen).toHaveLength(0);
  });

  it('needs a request; --json before the request still leaves the request to the command', async () => {
    const none = await cli(['suggest', '--skills', CATALOGUE, ...provider()]);
    expect(none.code).toBe(2);
    expect(none.err).toContain('no request given');
    const before = await cli(['suggest', '--skills', CATALOGUE, ...provider(), '--json', 'Open a pull request for my feature branch and ask Sam to review it']);
    expect(before.err).toBe('');
    expect(before.code).toBe(0);
    expect(JSON.parse(before.out)).toMatchObject({ request: 'Open a pull request for my feature branch and ask Sam to review it', skill: 'github-pr-workflow' });
  });

  it('writes the suggestion with -o FILE.json; the old `--json FILE` still does, with a note', async () => {
    const request = 'Open a pull request for my feature branch and ask Sam to review it';
    const file = join(dir, 'suggestion.json');
    const r = await cli(['suggest', request, '--skills', CATALOGUE, ...provider(), '-o', file]);
    expect(r.code).toBe(0);
    expect(r.out).not.toMatch(/^\{/); // the text on stdout, the JSON in the file
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ request, skill: 'github-pr-workflow' });
    const old = join(dir, 'old.json');
    const o = await cli(['suggest', request, '--skills', CATALOGUE, ...provider(), '--json', old]);
    expect(o.code).toBe(0);
    expect(o.err).toContain(`\`--json ${old}\` is the old spelling: write \`-o ${old}\``);
    expect(JSON.parse(await readFile(old, 'utf8'))).toMatchObject({ request, skill: 'github-pr-workflow' });
    const md = await cli(['suggest', request, '--skills', CATALOGUE, ...provider(), '-o', join(dir, 'x.md')]);
    expect(md.code).toBe(2);
    expect(md.err).toContain('a suggestion is written as JSON only');
  });

  it('--cache-only with an empty cache: the offline ranking runs, the gate\'s miss is bad input (exit 2)', async () => {
    const r = await cli(['suggest', 'anything', '--skills', CATALOGUE, ...provider(), '--wide', 'similarity', '--cache-only']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('not in the cache (--cache-only)');
    expect(r.err).toContain('run once without --cache-only');
    expect(seen).toHaveLength(0);
  });

  it('remote embeddings missing from the cache (--cache-only) are bad input naming the fix', async () => {
    const r = await cli(['suggest', 'anything', '--skills', CATALOGUE, ...provider(), '--wide', 'similarity', '--embeddings', 'gemini', '--cache-only']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--wide similarity: the embeddings failed');
    expect(r.err).toContain('--embeddings use (offline)');
    expect(server.requests.filter((q) => q.method === 'batchEmbedContents')).toHaveLength(0);
  });

  it('--rank-only ranks with fused unless --wide says otherwise, and refuses --wide model', async () => {
    const r = await cli(['suggest', 'anything about a gif', '--skills', CATALOGUE, '--rank-only', '--cache-dir', join(dir, 'cache')]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('ranking by fused (use), 10 skills:');
    const m = await cli(['suggest', 'anything', '--skills', CATALOGUE, ...provider(), '--wide', 'model', '--rank-only']);
    expect(m.code).toBe(2);
    expect(m.err).toContain('--rank-only ranks offline, which needs --wide fused or --wide similarity');
  });

  it('without a key, --wide model stops before any work with the client\'s message', async () => {
    vi.stubEnv('GEMINI_API_KEY', '');
    const r = await cli(['suggest', 'anything', '--skills', CATALOGUE, '--cache-dir', join(dir, 'cache')]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('no API key');
  });
});

// ---------------------------------------------------------------- the three arms

describe('skillbench suggest --eval (three arms)', () => {
  // Hand-worked from PLANS (6 covered requests, 2 uncovered):
  //   baseline: wrong = wontfix (pr-workflow), gif (image-resize), shopping ("apple-note", not a skill) -> 3/6;
  //             needless = rebase (pr-workflow) -> 1/2
  //   suggest:  the agent follows the block. Suggested: pr, wontfix, gif, photos (video-to-gif: wrong), shopping;
  //             nothing fits: inbox (-> loads nothing: wrong); gate closed: rebase, haiku.
  //             wrong = photos, inbox -> 2/6; needless 0/2
  //   oracle:   the block names the gold skill or none -> 0/6 and 0/2
  //   fixed (wrong -> right): wontfix, gif, shopping; broken (right -> wrong): photos, inbox.
  //   cost: each arm 8 agent turns = 8 x 0.000212 = 0.001696; the suggester: 6 requests with rank + narrow
  //         (6 x 0.000216 = 0.001296) and 2 with rank only (2 x 0.00012 = 0.00024) = 0.001536.
  const evalArgs = () => ['suggest', '--eval', '--skills', CATALOGUE, '--requests', REQUESTS, ...provider(), '--no-progress'];

  it('measures baseline, suggest and oracle, with fixed and broken requests and costs', async () => {
    const file = join(dir, 'results.json');
    const r = await cli([...evalArgs(), '-o', file]);
    expect(r.code).toBe(0);
    const results = JSON.parse(await readFile(file, 'utf8')) as ResultsFile;
    expect(results.command).toBe('suggest-eval');
    expect(results.catalogue.format).toBe('hermes');
    expect(results.runs.map((x) => x.selector)).toEqual(['baseline', 'suggest', 'oracle']);
    expect(results.runs.map((x) => x.ceiling ?? false)).toEqual([false, false, true]);
    const [baseline, suggest, oracle] = results.runs.map((run) => computeMetrics(run, results.requests));
    expect([baseline!.wrongLoad.k, baseline!.wrongLoad.n, baseline!.needlessLoad.k, baseline!.needlessLoad.n]).toEqual([3, 6, 1, 2]);
    expect([suggest!.wrongLoad.k, suggest!.wrongLoad.n, suggest!.needlessLoad.k, suggest!.needlessLoad.n]).toEqual([2, 6, 0, 2]);
    expect([oracle!.wrongLoad.k, oracle!.wrongLoad.n, oracle!.needlessLoad.k, oracle!.needlessLoad.n]).toEqual([0, 6, 0, 2]);
    // A misspelt name is a wrong load, kept as the raw choice.
    const shopping = results.runs[0]!.decisions.find((d) => d.requestId === 'shopping')!;
    expect(shopping).toMatchObject({ chosen: null, rawChoice: 'apple-note' });
    // Fixed and broken, marked on the suggest arm's decisions.
    const flips = Object.fromEntries(
      results.runs[1]!.decisions.filter((d) => d.detail?.versusBaseline).map((d) => [d.requestId, d.detail!.versusBaseline]),
    );
    expect(flips).toEqual({ wontfix: 'fixed', gif: 'fixed', shopping: 'fixed', photos: 'broken', inbox: 'broken' });
    const exits = Object.fromEntries(results.runs[1]!.decisions.map((d) => [d.requestId, d.detail!.exit]));
    expect(exits).toEqual({
      pr: 'suggested', wontfix: 'suggested', gif: 'suggested', photos: 'suggested', shopping: 'suggested',
      inbox: 'nothing-fits', rebase: 'gate-closed', haiku: 'gate-closed',
    });
    // Costs: the agent's turns per arm, the suggester's calls on the suggest arm only.
    for (const run of results.runs) {
      expect(run.decisions.reduce((s, d) => s + (d.costUsd ?? 0), 0)).toBeCloseTo(8 * COST.agent, 12);
    }
    expect(results.runs[1]!.extraCostUsd).toBeCloseTo(6 * (COST.rank + COST.narrow) + 2 * COST.rank, 12);
    expect(results.runs[0]!.extraCostUsd).toBeUndefined();
    expect(suggest!.costUsd).toBeCloseTo(0.001696 + 0.001536, 12);
    expect(results.runs[1]!.decisions.find((d) => d.requestId === 'haiku')!.detail!.suggesterCostUsd).toBeCloseTo(COST.rank, 12);
    // 24 agent turns, of which 18 distinct prompts: where the suggestion equals the oracle's answer (pr, wontfix, gif,
    // shopping, and "none" for rebase and haiku) the suggest arm's request is the oracle's, answered once and cached.
    const agentTurns = seen.filter((x) => x.kind === 'agent');
    expect(new Set(agentTurns.map((x) => JSON.stringify(x.body))).size).toBe(18);
    expect(agentTurns).toHaveLength(18);
    const shared = results.runs[1]!.decisions.filter((d) => d.cached).map((d) => d.requestId);
    expect(shared).toEqual(['pr', 'wontfix', 'gif', 'shopping', 'rebase', 'haiku']);
    expect(seen.filter((x) => x.kind !== 'agent')).toHaveLength(14);
    // The terminal report: the table, the fixed and broken lists, the cost per arm and per request.
    expect(r.out).toContain('oracle (ceiling)');
    expect(r.out).toContain('Suggest against baseline, 6 covered requests: 3 fixed, 2 broken');
    expect(r.out).toMatch(/fixed  wontfix: gold github-issues; baseline github-pr-workflow -> suggest github-issues/);
    expect(r.out).toMatch(/broken inbox: gold gmail-triage; baseline gmail-triage -> suggest \(none\)/);
    expect(r.out).toMatch(/suggest\s+total\s+\$0\.003232\s+agent\s+\$0\.001696\s+suggester\s+\$0\.001536\s+per request \$0\.000404/);
    expect(r.out).toMatch(/baseline\s+total\s+\$0\.001696/);
  });

  it('shows the agent a Hermes index with a preamble and a free-text skill_view tool; the block comes after it', async () => {
    const r = await cli(evalArgs());
    expect(r.code).toBe(0);
    const agent = seen.filter((x) => x.kind === 'agent');
    const tool = agent[0]!.body.tools[0].functionDeclarations[0];
    expect(tool.name).toBe('skill_view');
    expect(tool.parametersJsonSchema.properties.name).toEqual({ type: 'string', description: expect.any(String) });
    const plain = agent.filter((x) => !x.system.includes('<skill_relevance'));
    expect(plain).toHaveLength(8);
    const index = plain[0]!.system;
    expect(index).toContain('call skill_view with');
    expect(index).toContain('  github:');
    expect(index).toContain('    - video-to-gif: Convert a video clip into an optimised animated GIF with ...');
    // Suggest and oracle: the same index first (the cacheable prefix), then the block as its own system part.
    for (const x of agent.filter((a) => a.system.includes('<skill_relevance'))) {
      const parts = x.body.systemInstruction.parts as { text: string }[];
      expect(parts).toHaveLength(2);
      expect(parts[0]!.text).toBe(index);
      expect(parts[1]!.text).toMatch(/^<skill_relevance/);
    }
  });

  it('--host claude-code: the agent under test gets that host\'s prompt; its Skill calls are read as its loads', async () => {
    const file = join(dir, 'host-cc.json');
    const base = join(dir, 'host-default.json');
    expect((await cli([...evalArgs(), '--json', base])).code).toBe(0);
    seen.length = 0;
    const r = await cli([...evalArgs(), '--host', 'claude-code', '--json', file]);
    expect(r.code).toBe(0);
    const agent = seen.filter((x) => x.kind === 'agent');
    expect(agent[0]!.body.tools[0].functionDeclarations.map((d: { name: string }) => d.name)).toEqual(['Skill']);
    expect(agent[0]!.request).toMatch(/^<system-reminder>\nSkills you can invoke with the Skill tool:\n\n- /);
    for (const x of agent.filter((a) => a.system.includes('<skill_relevance'))) expect((x.body.systemInstruction.parts as unknown[]).length).toBe(2);
    const results = JSON.parse(await readFile(file, 'utf8')) as ResultsFile;
    const before = JSON.parse(await readFile(base, 'utf8')) as ResultsFile;
    expect(results.settings).toMatchObject({ host: 'claude-code', tool: 'Skill', preamble: 'host' });
    expect(results.host).toMatchObject({ name: 'claude-code', placement: 'user-message' });
    // The same scripted agent, read through Skill instead of skill_view: the same decisions in every arm.
    expect(results.runs.map((run) => run.decisions.map((d) => d.chosen))).toEqual(before.runs.map((run) => run.decisions.map((d) => d.chosen)));
  });

  it('--preamble FILE replaces the preamble; a missing file is bad input', async () => {
    const { writeFile } = await import('node:fs/promises');
    const pre = join(dir, 'preamble.txt');
    await writeFile(pre, 'Skills you may load with skill_view:');
    const r = await cli([...evalArgs(), '--preamble', pre]);
    expect(r.code).toBe(0);
    const agent = seen.filter((x) => x.kind === 'agent');
    expect(agent[0]!.system.startsWith('Skills you may load with skill_view:\n\n<available_skills>')).toBe(true);
    const missing = await cli([...evalArgs(), '--preamble', join(dir, 'nope.txt')]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('--preamble');
  });

  it('a suggester failure is an error of that request in the suggest arm, not "none", and not a flip', async () => {
    server.setHandlers({ gemini: fakeModel(seen, new Set(['Close all the issues labelled wontfix in my repo'])) });
    const file = join(dir, 'r.json');
    const r = await cli([...evalArgs(), '-o', file]);
    expect(r.code).toBe(4); // a failed suggester call: the run is incomplete (outputs still written)
    const results = JSON.parse(await readFile(file, 'utf8')) as ResultsFile;
    const d = results.runs[1]!.decisions.find((x) => x.requestId === 'wontfix')!;
    expect(d.error).toMatch(/^suggester: wide step/);
    expect(d.detail!.suggesterCostUsd).toBeCloseTo(COST.rank, 12);
    const m = computeMetrics(results.runs[1]!, results.requests);
    expect(m.errors).toBe(1);
    expect([m.wrongLoad.k, m.wrongLoad.n]).toEqual([2, 5]);
    expect(r.out).toContain('2 fixed, 2 broken');
  });

  it('replays the whole evaluation from the cache with identical results (the block is part of each key)', async () => {
    const first = join(dir, 'a.json');
    const second = join(dir, 'b.json');
    expect((await cli([...evalArgs(), '-o', first])).code).toBe(0);
    const hits = server.requests.length;
    expect((await cli([...evalArgs(), '--cache-only', '-o', second])).code).toBe(0);
    expect(server.requests.length).toBe(hits);
    const a = JSON.parse(await readFile(first, 'utf8')) as ResultsFile;
    const b = JSON.parse(await readFile(second, 'utf8')) as ResultsFile;
    const choices = (x: ResultsFile) => x.runs.map((run) => run.decisions.map((d) => d.chosen ?? d.rawChoice ?? null));
    expect(choices(b)).toEqual(choices(a));
    expect(b.runs[1]!.decisions.every((d) => d.cached)).toBe(true);
  });

  it('--wide similarity: the suggester asks only the gate (8 calls) and the narrow stage where the gate opens (6)', async () => {
    const file = join(dir, 'sim.json');
    const r = await cli([...evalArgs(), '--wide', 'similarity', '-o', file]);
    expect(r.code).toBe(0);
    const results = JSON.parse(await readFile(file, 'utf8')) as ResultsFile;
    expect(results.settings).toMatchObject({ wide: 'similarity', embeddings: 'use', gate: 0.3, fit: 0.3, shortlist: 3 });
    expect(seen.filter((x) => x.kind === 'rank')).toHaveLength(0);
    expect(seen.filter((x) => x.kind === 'gate')).toHaveLength(8);
    expect(seen.filter((x) => x.kind === 'narrow')).toHaveLength(6);
    // 8 x 0.000038 + 6 x 0.000096 = 0.000304 + 0.000576
    expect(results.runs[1]!.extraCostUsd).toBeCloseTo(0.00088, 12);
    expect(results.runs[1]!.decisions.every((d) => d.scores?.length === 10)).toBe(true);
  });

  it('--suggester-model sends the suggester\'s calls to another model, priced as that model', async () => {
    const file = join(dir, 'two-models.json');
    const start = server.requests.length;
    const r = await cli([...evalArgs(), '--suggester-model', 'gemini-3.5-flash-lite', '-o', file]);
    expect(r.code).toBe(0);
    const models = (kind: Kind) => new Set(server.requests.slice(start).filter((q) => classify(q.body).kind === kind).map((q) => q.model));
    expect(models('agent')).toEqual(new Set([MODEL]));
    expect(models('rank')).toEqual(new Set(['gemini-3.5-flash-lite']));
    expect(models('narrow')).toEqual(new Set(['gemini-3.5-flash-lite']));
    const results = JSON.parse(await readFile(file, 'utf8')) as ResultsFile;
    expect(results.settings.suggester).toEqual({ provider: 'gemini', model: 'gemini-3.5-flash-lite' });
    // gemini-3.5-flash-lite: $0.30 in, $2.50 out per million. rank: 0.0003 + 0.000125 = 0.000425; narrow: 0.00024 + 0.0001
    // = 0.00034; 6 x (0.000425 + 0.00034) + 2 x 0.000425 = 0.00459 + 0.00085 = 0.00544.
    expect(priceOf('gemini', 'gemini-3.5-flash-lite')).toMatchObject({ input: 0.3, output: 2.5 });
    expect(results.runs[1]!.extraCostUsd).toBeCloseTo(0.00544, 12);
    expect(r.out).toContain('gemini/gemini-3.5-flash-lite:');
  });

  it('--dry-run says what the run would call and cost, and calls nothing', async () => {
    const r = await cli([...evalArgs(), '--dry-run']);
    expect(r.code).toBe(0);
    expect(seen).toHaveLength(0);
    // 8 baseline + 8 oracle turns + 8 wide calls (the narrow calls depend on the wide answers).
    expect(r.out).toMatch(/dry run, nothing called \(gemini\/gemini-2\.5-flash-lite\): 24 requests, 24 calls to make and 0 \(0%\) answered from the cache/);
    expect(r.out).toContain('up to 8 more calls');
    expect(r.out).not.toMatch(/wrong load|fixed|broken/);
  });

  it('--dry-run needs no key: without --provider it estimates for the first provider and says so', async () => {
    const keyless = { GEMINI_API_KEY: undefined, GOOGLE_API_KEY: undefined, ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined };
    const r = await runCli(['suggest', '--eval', '--skills', CATALOGUE, '--requests', REQUESTS, '--cache-dir', join(dir, 'dry-cache'), '--no-progress', '--dry-run'], { env: keyless });
    expect(r.stderr).not.toMatch(/error/);
    expect(r.code).toBe(0);
    expect(seen).toHaveLength(0);
    expect(r.stdout).toMatch(/^dry run, nothing called \(gemini\/[\w.-]+\): 24 requests, 24 calls to make/);
    expect(r.stdout).toContain('no --provider and no API key: estimated for gemini, the first provider');
    // The progress lanes say what was estimated, never "done" or errors.
    expect(r.stderr.split('\n').filter((l) => l.startsWith('['))).toEqual(['[baseline] 8/8 (100%) estimated, 0 in the cache', '[suggester] 8/8 (100%) estimated, 0 in the cache', '[suggest] 8/8 (100%) estimated, 0 in the cache', '[oracle] 8/8 (100%) estimated, 0 in the cache']);
  });

  it('bad input: no --requests, a gold skill not in the catalogue, a request argument with --eval', async () => {
    const noReq = await cli(['suggest', '--eval', '--skills', CATALOGUE, ...provider()]);
    expect(noReq.code).toBe(2);
    expect(noReq.err).toContain('--eval needs a request set');
    const { writeFile } = await import('node:fs/promises');
    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify([{ id: 'x', text: 'make a gif', gold: 'gif-maker' }]));
    const badGold = await cli(['suggest', '--eval', '--skills', CATALOGUE, '--requests', bad, ...provider()]);
    expect(badGold.code).toBe(2);
    expect(badGold.err).toContain('request "x" has gold "gif-maker"');
    const arg = await cli(['suggest', 'a request', '--eval', '--requests', REQUESTS, '--skills', CATALOGUE, ...provider()]);
    expect(arg.code).toBe(2);
    // An output name that cannot be written is refused before any call is paid for.
    const pdf = await cli([...evalArgs(), '-o', join(dir, 'out.pdf')]);
    expect(pdf.code).toBe(2);
    expect(pdf.err).toMatch(/out\.pdf: unknown output format "\.pdf"/);
    expect(seen).toHaveLength(0);
  });
});
