// `skillbench improve` end to end, in process through the CLI's main(), through the real OpenAI and Anthropic SDKs
// against the local wire server, with a scripted model whose skill choice depends on the descriptions it is shown
// (words shared between request and description) and a scripted rewriter (test/support/scripted-skill-model.ts).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readResults } from '../src/results.js';
import { parseFrontmatter } from '../src/catalogue.js';
import { candidateFigures } from '../src/improve/figures.js';
import { fault, openai, startWireServer, type WireServer } from './support/wire-server.js';
import { scriptedSkillModel, testRewriter, words, type Rewriter } from './support/scripted-skill-model.js';
import { runCli } from './support/cli.js';
import { clearProviderEnv } from './support/fixtures.js';

clearProviderEnv();

const SKILLS: Record<string, { description: string; extra?: string }> = {
  // Folded, with a comment and fields around it: --write must keep every byte but the description's lines.
  'expense-checker': {
    description: 'Checks expense reports against the travel policy and computes the reimbursable total.',
    extra: 'license: MIT # kept\nmetadata:\n  state: available\n',
  },
  'meeting-notes': { description: 'Turns meeting notes into action items with owners and due dates.' },
  'travel-booker': { description: 'Books flights, trains and hotels for business trips.' },
};

const positives = [
  'Will my dinner receipt get a refund?',
  'Is the taxi receipt refund allowed?',
  'Check my expense reports total please',
  'Dinner refund question for the team lunch',
  'Taxi receipt from the airport, refund possible?',
  'Compute the reimbursable total of my expense',
  'Lost my parking receipt, can I still get a refund?',
  'Parking refund and taxi receipt',
];
const requests = [
  ...positives.map((text, i) => ({ id: `exp-${i + 1}`, text, gold: 'expense-checker', kind: 'positive' })),
  { id: 'meet-1', text: 'Turn these meeting notes into action items', gold: 'meeting-notes', kind: 'positive' },
  { id: 'meet-2', text: 'Who owns which action item from the meeting?', gold: 'meeting-notes', kind: 'positive' },
  { id: 'meet-3', text: 'Extract the due dates and owners from my notes', gold: 'meeting-notes', kind: 'positive' },
  { id: 'trip-1', text: 'Book flights to Paris for the business trip', gold: 'travel-booker', kind: 'positive' },
  { id: 'trip-2', text: 'Find hotels and trains for my trip', gold: 'travel-booker', kind: 'positive' },
  { id: 'trip-3', text: 'Book a flight and a hotel for the conference', gold: 'travel-booker', kind: 'positive' },
  { id: 'nm-1', text: 'What is the capital of Peru?', gold: null, kind: 'near-miss' },
  { id: 'nm-2', text: 'Tell me a joke about penguins', gold: null, kind: 'near-miss' },
  { id: 'nm-3', text: 'Write a poem about autumn leaves', gold: null, kind: 'off-topic' },
];

const skillFile = (name: string) => {
  const s = SKILLS[name]!;
  const folded = name === 'expense-checker' ? `description: >-\n  ${s.description.replace(' against', '\n  against')}\n` : `description: ${s.description}\n`;
  return `---\nname: ${name}\n# the description is what improve rewrites\n${folded}${s.extra ?? ''}---\n\n# ${name}\n\nInstructions for ${name}: keep me byte for byte.\n`;
};

let dir: string;
let server: WireServer;
let model: ReturnType<typeof scriptedSkillModel>;
let rewriter: Rewriter = testRewriter;
const file = (name: string) => path.join(dir, name);
const target = () => file('skills/expense-checker/SKILL.md');

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'skillbench-improve-'));
  for (const name of Object.keys(SKILLS)) {
    await mkdir(file(`skills/${name}`), { recursive: true });
    await writeFile(file(`skills/${name}/SKILL.md`), skillFile(name));
  }
  await writeFile(file('requests.json'), JSON.stringify(requests));
  await writeFile(file('catalogue.json'), JSON.stringify(Object.entries(SKILLS).map(([name, sk]) => ({ name, description: sk.description }))));
  model = scriptedSkillModel({ rewriter: (p) => rewriter(p) });
  server = await startWireServer({ openai: model.openai, anthropic: model.anthropic });
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  rewriter = testRewriter;
});

async function improve(args: string[], opts: { cache?: string; provider?: 'openai' | 'anthropic'; skills?: string } = {}) {
  const provider = opts.provider ?? 'openai';
  const r = await runCli(
    ['improve', '--no-progress', '--skill', 'expense-checker', '--skills', opts.skills ?? file('skills'), '--requests', file('requests.json'), '--provider', provider, '--base-url', server.baseUrl(provider), '--cache-dir', file(opts.cache ?? 'cache'), ...args],
    { env: { ANTHROPIC_API_KEY: provider === 'anthropic' ? 'test-key' : undefined } },
  );
  return { code: r.code, out: r.stdout, err: r.stderr };
}

describe('improve through the real OpenAI SDK against the wire server', () => {
  it('finds the description that adds the missed requests\' words, keeps it on test, and prints the diff', async () => {
    server.reset();
    const before = await readFile(target(), 'utf8');
    const r = await improve(['--iterations', '2', '--candidates', '5', '--json', file('improve.json'), '-o', file('improve.md'), '-o', file('improve.html'), '-o', file('improve.csv'), '-o', file('improve.xml')]);
    expect(r.err).not.toMatch(/internal error/);
    expect(r.code).toBe(0);
    const results = await readResults(file('improve.json'));
    const s = results.improve!;
    expect(results.command).toBe('improve');
    expect(s.split.seed).toBe(42);
    expect(s.split.train.length + s.split.test.length).toBe(requests.length);
    // Stratified: each kind of request is on both sides.
    for (const prefix of ['exp-', 'meet-', 'trip-', 'nm-']) {
      expect(s.split.train.some((id) => id.startsWith(prefix)), prefix).toBe(true);
      expect(s.split.test.some((id) => id.startsWith(prefix)), prefix).toBe(true);
    }
    const byId = Object.fromEntries(candidateFigures(results).map((f) => [f.candidate.id, f]));
    const original = byId.original!;
    const good = byId['1.1']!;
    const thief = byId['1.2']!;
    expect(s.chosen).toBe('1.1');
    expect(good.test!.accuracy.k).toBeGreaterThan(original.test!.accuracy.k);
    expect(good.test!.hits.k).toBe(good.test!.hits.n);
    expect(good.test!.falseLoads.k).toBe(0);
    // The thief fixes the same positives but takes the other skills' requests: it loses, and the report says from whom.
    expect(thief.test!.accuracy.k).toBeLessThan(good.test!.accuracy.k);
    expect(thief.test!.tookFrom.map((x) => x.skill).sort()).toEqual(['meeting-notes', 'travel-booker']);
    expect(byId['1.4']!.candidate).toMatchObject({ status: 'rejected', reason: "1,499 characters, over the spec's 1,024" });
    expect(byId['1.5']!.candidate).toMatchObject({ status: 'duplicate', duplicateOf: 'original' });
    expect(s.stopped).toMatch(/no train request fails because of expense-checker with 1\.1: nothing left to learn from/);
    expect(s.comparison.better).toBeGreaterThan(0);
    expect(s.comparison.worse).toBe(0);

    // The rewriter saw train failures only: no test request text reached its prompt.
    expect(model.prompts).toHaveLength(1);
    const testTexts = requests.filter((q) => s.split.test.includes(q.id)).map((q) => q.text);
    for (const t of testTexts) expect(model.prompts[0]!.text).not.toContain(t);
    const trainMissed = requests.filter((q) => s.split.train.includes(q.id) && q.gold === 'expense-checker' && !['exp-3', 'exp-6'].includes(q.id));
    expect(model.prompts[0]!.missed.sort()).toEqual(trainMissed.map((q) => q.text).sort());
    // Scored in the whole catalogue: every selection call listed all three skills.
    const selections = server.requests.filter((q) => q.body.tools);
    expect(selections).toHaveLength(4 * requests.length); // the original, 1.1, 1.2 and 1.3 (1.4 rejected, 1.5 a repeat)
    for (const q of selections) expect(q.body.tools[0].function.parameters.properties.name.enum).toEqual(['expense-checker', 'meeting-notes', 'travel-booker'].sort());

    // The terminal report: trajectory, the kept line with its noise verdict, the confusion, and the diff.
    const flat = r.out.replace(/\s+/g, ' '); // prose wraps at the terminal's width
    expect(flat).toMatch(/improve expense-checker: 3 skills .*17 requests: \d+ train, \d+ test \(stratified, seed 42, holdout 0\.4\)/);
    expect(flat).toMatch(/Kept: 1\.1 \(iteration 1\): test .* against the original's .*: the gain is within noise \(exact McNemar p = /);
    const unwrapped = r.out.replace(/\n {6}/g, ' '); // notes wrap at the terminal's width
    expect(unwrapped).toMatch(/1\.2 \(iteration 1, from original\).*\n(.*\n)*? {4}test: .*took 1 from meeting-notes, 1 from travel-booker/);
    expect(r.out).toMatch(/changed: \+"Also for /);
    expect(r.out).toContain('--- ' + path.relative(process.cwd(), target()));
    // The folded description keeps its lines: the diff adds the new words and removes nothing.
    expect(r.out).toMatch(/^ {3}against the travel policy and computes the reimbursable total\.$/m);
    expect(r.out).toMatch(/^\+ {2}Also for /m);
    expect(r.out).not.toMatch(/^-(?!--)/m);
    expect(r.out).toMatch(/rerun with --write/);
    expect(r.err).toMatch(/openai\/gpt-6-luna: \d+ calls/);
    // Without --write the file is untouched.
    expect(await readFile(target(), 'utf8')).toBe(before);

    // Every format renders the trajectory from the results file.
    const md = await readFile(file('improve.md'), 'utf8');
    expect(md).toMatch(/### skillbench improve `expense-checker`/);
    expect(md).toMatch(/\| 1 \| 1\.1 \| original \|/);
    const html = await readFile(file('improve.html'), 'utf8');
    expect(html).toContain('<section id="trajectory">');
    expect(html).toMatch(/<ins>Also for/);
    expect(html).toContain('<svg');
    const csv = (await readFile(file('improve.csv'), 'utf8')).split('\r\n');
    expect(csv[0]).toMatch(/^iteration,candidate,parent,status/);
    expect(csv.find((l) => l.startsWith('1,1.2,'))).toMatch(/meeting-notes:1 travel-booker:1/);
    const xml = await readFile(file('improve.xml'), 'utf8');
    expect(xml).toMatch(/<testsuite name="1\.1"/);

    // `skillbench report` renders the same from the file, with no call.
    const hits = server.requests.length;
    const rep = await runCli(['report', file('improve.json')]);
    expect(rep.code).toBe(0);
    expect(rep.stdout).toMatch(/Kept: 1\.1/);
    expect(server.requests.length).toBe(hits);
  });

  it('replays a rerun from the cache (free), and --dry-run then says no call would be made', async () => {
    server.reset();
    const r = await improve(['--iterations', '2', '--candidates', '5', '--json', file('again.json')]);
    expect(r.code).toBe(0);
    expect(server.requests).toHaveLength(0);
    expect(r.err).toMatch(/0 calls, \d+ cached/);
    expect((await readResults(file('again.json'))).improve!.chosen).toBe('1.1');
    const dry = await improve(['--iterations', '2', '--candidates', '5', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.out).toMatch(/every call of the loop is in the cache/);
    expect(server.requests).toHaveLength(0);
  });

  it('estimates calls and cost with --dry-run on an empty cache, calling nothing', async () => {
    server.reset();
    const dry = await improve(['--iterations', '3', '--candidates', '2', '--dry-run'], { cache: 'dry-cache' });
    expect(dry.code).toBe(0);
    expect(server.requests).toHaveLength(0);
    expect(dry.out).toMatch(/dry run, nothing called \(openai\/gpt-6-luna\): improve expense-checker on 17 requests, up to 3 iterations of 2 candidates/);
    // 17 for the original, then 3 × (1 rewriter call + 2 × 17).
    expect(dry.out).toMatch(/17 scoring calls now, then 3 iterations × \(1 rewriter call \+ 2 candidates × 17 requests\) = 122 calls/);
    expect(dry.out).toMatch(/~[\d,]+ input \+ ~[\d,]+ output tokens, ~\$0\.0000 at list price/); // a loopback server is free
    // No key and no provider: estimated for the first provider, and said so.
    const keyless = await runCli(['improve', '--skill', 'expense-checker', '--skills', file('skills'), '--requests', file('requests.json'), '--cache-dir', file('dry-cache'), '--dry-run', '--iterations', '1']);
    expect(keyless.code).toBe(0);
    expect(keyless.stdout).toMatch(/dry run, nothing called \(gemini\/[\w.-]+\)/);
    expect(keyless.stdout).toMatch(/~\$\d+\.\d{4} at list price/);
    expect(keyless.stdout).toMatch(/no --provider and no API key: estimated for gemini/);
    expect(server.requests).toHaveLength(0);
  });

  it('writes the kept description with --write, every other byte of SKILL.md unchanged', async () => {
    await cp(file('skills'), file('writable'), { recursive: true });
    const skill = file('writable/expense-checker/SKILL.md');
    const before = await readFile(skill, 'utf8');
    const r = await improve(['--iterations', '2', '--candidates', '5', '--write', '--json', file('written.json')], { skills: file('writable') });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/wrote .*SKILL\.md: description replaced by 1\.1, every other line unchanged \(the gain is within noise/);
    const after = await readFile(skill, 'utf8');
    const results = await readResults(file('written.json'));
    expect(results.improve!.written).toBe(true);
    const kept = results.improve!.candidates.find((c) => c.id === '1.1')!.description;
    const parsed = parseFrontmatter(after);
    if ('error' in parsed) throw new Error(parsed.error);
    expect(parsed.data.description).toBe(kept);
    // Lines before the description and from `license:` on are the same bytes.
    const head = before.slice(0, before.indexOf('description:'));
    const tail = before.slice(before.indexOf('license: MIT # kept'));
    expect(after.startsWith(head)).toBe(true);
    expect(after.endsWith(tail)).toBe(true);
    expect(after.slice(head.length, after.length - tail.length)).toMatch(/^description: >-\n( {2}\S.*\n)+$/);
    // The other skills are untouched.
    for (const name of ['meeting-notes', 'travel-booker']) expect(await readFile(file(`writable/${name}/SKILL.md`), 'utf8')).toBe(skillFile(name));
  });

  it('iterates from the best description on train, and resumes an interrupted run from the cache', async () => {
    // A rewriter that fixes one missed request at a time: several iterations, each from the best on train so far.
    rewriter = (p) => {
      const missed = [...words(p.missed[0] ?? '')].filter((w) => !words(p.current).has(w));
      return [
        { description: `${p.current} ${missed.join(' ')}`.trim(), rationale: 'one more request' },
        { description: `${p.current.split(' ').slice(0, 3).join(' ')}`, rationale: 'shorter' },
      ];
    };
    server.reset();
    const first = await improve(['--iterations', '1', '--candidates', '2', '--json', file('step1.json')], { cache: 'resume-cache' });
    expect(first.code).toBe(0);
    const firstCalls = server.requests.length;
    server.reset();
    const r = await improve(['--iterations', '4', '--candidates', '2', '--json', file('step4.json')], { cache: 'resume-cache' });
    expect(r.code).toBe(0);
    const s = (await readResults(file('step4.json'))).improve!;
    const iterations = new Set(s.candidates.map((c) => c.iteration));
    expect(iterations.size).toBeGreaterThanOrEqual(3);
    // Iteration 1 was answered from the cache: the second run paid only for the iterations after it.
    expect(server.requests.filter((q) => q.body.response_format)).toHaveLength(iterations.size - 2);
    expect(server.requests.length + firstCalls).toBe(17 * s.candidates.filter((c) => c.status === 'scored').length + (iterations.size - 1));
    // Each iteration rewrites the best on train of the ones before it.
    for (const c of s.candidates.filter((x) => x.iteration >= 2)) expect(c.parent).toMatch(/^\d\.1$/);
  });

  it('pre-screens the candidates offline and pays for the best one only', async () => {
    server.reset();
    const r = await improve(['--iterations', '1', '--candidates', '3', '--prescreen', 'keyword', '--prescreen-keep', '1', '--json', file('pre.json')], { cache: 'pre-cache' });
    expect(r.code).toBe(0);
    const s = (await readResults(file('pre.json'))).improve!;
    const statuses = s.candidates.map((c) => c.status);
    expect(statuses.filter((x) => x === 'scored')).toHaveLength(2); // the original and one candidate
    expect(statuses.filter((x) => x === 'prescreened-out')).toHaveLength(2);
    for (const c of s.candidates) expect(c.prescreen).toBeDefined();
    expect(server.requests.filter((q) => q.body.tools)).toHaveLength(2 * 17);
    expect(r.out).toMatch(/prescreened-out: keyword pre-screen: \d+\/\d+ on train/);
  });

  it('reads a skill-creator eval set about the skill: its negatives count as right unless the skill loads', async () => {
    const set = requests.map((q) => ({ query: q.text, should_trigger: q.gold === 'expense-checker' }));
    await writeFile(file('skill-creator.json'), JSON.stringify(set));
    const r = await runCli(['improve', '--no-progress', '--skill', 'expense-checker', '--skills', file('skills'), '--requests', file('skill-creator.json'), '--provider', 'openai', '--base-url', server.baseUrl('openai'), '--cache-dir', file('cache'), '--candidates', '5', '--json', file('sc.json')]);
    expect(r.code).toBe(0);
    const results = await readResults(file('sc.json'));
    expect(results.requests.filter((q) => q.gold === null).every((q) => q.target === 'expense-checker')).toBe(true);
    const byId = Object.fromEntries(candidateFigures(results).map((f) => [f.candidate.id, f]));
    // Loading meeting-notes for a "should not trigger" request is right here: only the thief's loads count against it.
    expect(byId.original!.test!.accuracy.k).toBe(byId.original!.test!.accuracy.n - byId.original!.test!.lostTo.reduce((n, x) => n + x.count, 0));
    expect(results.improve!.chosen).toBe('1.1');
    expect(byId['1.2']!.test!.falseLoads.k).toBeGreaterThan(0);
  });

  it('pre-screens with the similarity selector too (the offline model, no call)', async () => {
    server.reset();
    const r = await improve(['--iterations', '1', '--candidates', '3', '--prescreen', 'similarity', '--prescreen-keep', '1', '--json', file('pre-sim.json')], { cache: 'pre-sim-cache' });
    expect(r.code).toBe(0);
    const s = (await readResults(file('pre-sim.json'))).improve!;
    expect(s.candidates.filter((c) => c.status === 'prescreened-out')).toHaveLength(2);
    expect(server.requests.filter((q) => q.method === 'embeddings')).toHaveLength(0); // `use` runs here
    expect(server.requests.filter((q) => q.body.tools)).toHaveLength(2 * 17);
  });

  it('prints the kept description to copy by hand for a JSON catalogue', async () => {
    const r = await improve(['--iterations', '1', '--candidates', '5'], { skills: file('catalogue.json'), cache: 'json-cache' });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/The description kept \(1\.1\), to copy by hand:\nChecks expense reports against the travel policy and computes the reimbursable total\. Also for /);
    expect(r.out).not.toMatch(/^--- /m);
  });

  it('says the hermes listing cut and measures what it shows', async () => {
    const r = await improve(['--iterations', '1', '--format', 'hermes', '--json', file('hermes.json')], { cache: 'hermes-cache' });
    expect(r.code).toBe(0);
    expect(r.out.replace(/\s+/g, " ")).toMatch(/The hermes listing shows only the first 60 characters of a description/);
    expect(model.prompts.at(-1)!.text).toBeDefined();
    expect((await readResults(file('hermes.json'))).improve!.listingCut).toBe(60);
  });

  it('--host: scores in that agent\'s prompt, takes its listing cut, and records the host', async () => {
    await writeFile(file('cut-agent.json'), JSON.stringify({ extends: 'generic', name: 'cut-agent', title: 'An agent that cuts descriptions', catalogue: { listing: { format: 'hermes' } } }));
    server.reset();
    const r = await improve(['--iterations', '1', '--host', file('cut-agent.json'), '-o', file('host.json')], { cache: 'host-cache' });
    expect(r.err).not.toMatch(/internal error/);
    expect(r.code).toBe(0);
    expect(r.out.replace(/\s+/g, ' ')).toMatch(/host cut-agent, catalogue format hermes/);
    expect(r.out.replace(/\s+/g, ' ')).toMatch(/The cut-agent listing shows only the first 60 characters of a description/);
    const results = await readResults(file('host.json'));
    expect(results.improve!.listingCut).toBe(60);
    expect(results.host!.name).toBe('cut-agent');
    expect(results.settings.host).toBe('cut-agent');
    // The scoring calls carried the host's listing: Hermes' indented `- name: description` lines, cut at 60.
    const system = JSON.stringify(server.requests.find((q) => q.body.tools)!.body);
    expect(system).toMatch(/ {4}- expense-checker: /);
    // --format only sets the generic host's listing.
    const both = await improve(['--host', 'claude-code', '--format', 'xml']);
    expect(both.code).toBe(2);
    expect(both.err).toMatch(/--format xml: the claude-code host lists skills its own way/);
  });
});

describe('improve: failures are never silent', () => {
  afterAll(() => server.setHandlers({ openai: model.openai, anthropic: model.anthropic }));

  it('ends a run whose calls failed as incomplete (exit 4), and a rerun makes only the missing calls', async () => {
    let refused = 0;
    server.setHandlers({
      anthropic: model.anthropic,
      // Two selection calls of the good candidate are refused (a 400 is not retried; fewer than the breaker's 3).
      openai: (req) => {
        if (req.body.tools && refused < 2 && JSON.stringify(req.body.messages).includes('Also for taxi') && !JSON.stringify(req.body.messages).includes('meeting, note')) {
          refused++;
          return fault.status(400, { body: { error: { message: 'scripted refusal', type: 'invalid_request_error' } } });
        }
        return model.openai(req);
      },
    });
    server.reset();
    const r = await improve(['--iterations', '1', '--candidates', '2', '--json', file('broken.json')], { cache: 'broken-cache' });
    expect(r.code).toBe(4);
    expect(r.err).toMatch(/incomplete: 2 of \d+ calls failed/);
    const broken = (await readResults(file('broken.json'))).improve!;
    expect(broken.chosen).not.toBe('1.1'); // scored on part of the requests: it cannot be compared
    expect(r.out).toMatch(/1\.1 .*2 errors/);
    server.setHandlers({ openai: model.openai, anthropic: model.anthropic });
    server.reset();
    const again = await improve(['--iterations', '1', '--candidates', '2', '--json', file('mended.json')], { cache: 'broken-cache' });
    expect(again.code).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect((await readResults(file('mended.json'))).improve!.chosen).toBe('1.1');
  });

  it('says when the rewriter does not answer with JSON (exit 2, the results so far written)', async () => {
    server.setHandlers({ anthropic: model.anthropic, openai: (req) => (req.body.response_format ? openai.text('Here are some ideas: ...') : model.openai(req)) });
    const r = await improve(['--iterations', '2', '--json', file('malformed.json')], { cache: 'malformed-cache' });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/the rewriter \(openai\/gpt-6-luna\) did not answer with the JSON asked for at iteration 1/);
    expect(r.err).toMatch(/--rewriter-model/);
    const s = (await readResults(file('malformed.json'))).improve!;
    expect(s.stopped).toMatch(/iteration 1: rewrite step: the model's answer is not the JSON asked for/);
    expect(s.chosen).toBe('original');
    expect(r.out.replace(/\s+/g, " ")).toMatch(/No candidate beat the original on test/);
  });
});

describe('improve through the real Anthropic SDK: --max-cost', () => {
  it('stops cleanly with the best so far, then a rerun without the limit resumes from the cache', async () => {
    server.reset();
    // The original's scoring fits; the candidates of the first iteration do not all fit.
    const r = await improve(['--iterations', '2', '--candidates', '3', '--max-cost', '0.0015', '--json', file('capped.json')], { provider: 'anthropic', cache: 'capped-cache' });
    expect(r.err).not.toMatch(/internal error/);
    expect(r.code).toBe(0);
    const s = (await readResults(file('capped.json'))).improve!;
    expect(s.stopped).toMatch(/--max-cost reached/);
    expect(s.candidates.some((c) => c.status === 'unscored' && /--max-cost reached with \d+ of 17 requests scored/.test(c.reason ?? ''))).toBe(true);
    expect(r.out.replace(/\s+/g, " ")).toMatch(/Stopped early: --max-cost reached/);
    expect(r.err).toMatch(/stopped calling: --max-cost reached/);
    const paid = server.requests.length;
    server.reset();
    const again = await improve(['--iterations', '2', '--candidates', '3', '--json', file('uncapped.json')], { provider: 'anthropic', cache: 'capped-cache' });
    expect(again.code).toBe(0);
    const all = (await readResults(file('uncapped.json'))).improve!;
    expect(all.chosen).toBe('1.1');
    // Only what the capped run did not get was called.
    const scored = all.candidates.filter((c) => c.status === 'scored').length;
    expect(server.requests.length + paid).toBeLessThanOrEqual(scored * 17 + 2 + 17);
    expect(server.requests.length).toBeLessThan(scored * 17 + 1);
  });
});

describe('improve: bad input is refused before any call', () => {
  it('names the missing or unknown skill, too few positives, and --write on a JSON catalogue', async () => {
    server.reset();
    const none = await runCli(['improve', '--skills', file('skills'), '--requests', file('requests.json'), '--provider', 'openai', '--base-url', server.baseUrl('openai')]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--skill: which skill's description to improve\?/);
    const unknown = await improve(['--skill', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/--skill nope: no skill of that name in the catalogue .*name one of its 3 skills: expense-checker, meeting-notes, travel-booker/s);
    await writeFile(file('few.json'), JSON.stringify(requests.filter((q) => q.id !== 'exp-1' && q.gold !== 'expense-checker').concat([requests[0]!])));
    const few = await runCli(['improve', '--skill', 'expense-checker', '--skills', file('skills'), '--requests', file('few.json'), '--provider', 'openai', '--base-url', server.baseUrl('openai'), '--cache-dir', file('cache')]);
    expect(few.code).toBe(2);
    expect(few.stderr).toMatch(/1 request with gold "expense-checker"; improve needs at least 2/);
    const json = await improve(['--write'], { skills: file('catalogue.json') });
    expect(json.code).toBe(2);
    expect(json.err).toMatch(/--write edits a SKILL\.md, and .*catalogue\.json is a JSON catalogue/);
    const holdout = await improve(['--holdout', '1']);
    expect(holdout.code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });
});
