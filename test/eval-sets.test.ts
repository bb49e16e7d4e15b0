// Eval sets as users bring them, end to end through the CLI's main() (offline: the keyword selector, plus the model
// selector through the wire server): skill-creator files in every shape scored against their target skill, a folder
// of per-skill eval files, per-request candidates, --skill errors, calibration and degenerate sets, --threshold ranges,
// the explicit selector's default. Every figure is checked against a count made here from the decisions in the
// results file, not with skillbench's metrics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readResults } from '../src/results.js';
import { parseRequestSet } from '../src/requests.js';
import { UserError } from '../src/errors.js';
import { computeMetrics } from '../src/metrics.js';
import { renderHtml } from '../src/report/html.js';
import { openai, startWireServer } from './support/wire-server.js';
import { runCli } from './support/cli.js';
import type { Decision, EvalRequest, ResultsFile } from '../src/types.js';
import { clearProviderEnv } from './support/fixtures.js';

clearProviderEnv();

const root = path.resolve(__dirname, '..');
let dir: string;
const file = (name: string) => path.join(dir, name);

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'skillbench-eval-sets-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const r = await runCli(['eval-trigger', '--no-progress', '--cache-dir', file('cache'), ...args], { cwd: root });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

async function userError(f: () => unknown): Promise<UserError> {
  try {
    await f();
  } catch (err) {
    expect(err).toBeInstanceOf(UserError);
    return err as UserError;
  }
  throw new Error('expected a UserError');
}

/** What a decision loaded, counted by hand: the catalogue skill, else the unknown name asked for, else nothing. */
const got = (d: Decision) => d.chosen ?? d.rawChoice ?? null;

/** Target figures counted by hand from a results file: per target, hits on positives and negatives, other skills apart. */
function countTargets(results: ResultsFile, selector: string) {
  const run = results.runs.find((r) => r.selector === selector)!;
  const byId = new Map(results.requests.map((r) => [r.id, r]));
  const out: Record<string, { pos: number; posHit: number; neg: number; negHit: number; otherPos: number; otherNeg: number }> = {};
  for (const d of run.decisions) {
    const r = byId.get(d.requestId)!;
    const t = (out[r.target!] ??= { pos: 0, posHit: 0, neg: 0, negHit: 0, otherPos: 0, otherNeg: 0 });
    const g = got(d);
    if (r.gold !== null) {
      t.pos++;
      if (g === r.target) t.posHit++;
      else if (g !== null) t.otherPos++;
    } else {
      t.neg++;
      if (g === r.target) t.negHit++;
      else if (g !== null) t.otherNeg++;
    }
  }
  return out;
}

// An eval set for expense-report-checker whose negatives are other skills' requests (leave balances, meeting notes):
// near misses "where another tool is more appropriate", as skill-creator asks for.
const expensePositives = [
  'I spent 38 euros on dinner in Lille on Tuesday night, I kept the receipt. Will the company pay all of it?',
  'Attached is my October travel claim (claims_oct.csv). Can you go through it before I send it to finance and tell me what I will actually get back?',
  'Is a 22 euro taxi on a Saturday to a trade fair refunded under the expense policy?',
];
const expenseNegatives = [
  'I joined on 11 March 2019 and used 14.5 days this year. How many days of paid leave can I still take before December?',
  'Turn the notes from this morning\'s project meeting into a list of action items with owners and due dates.',
  'Our customer export has gaps: which columns have missing values and are the customer IDs unique?',
];
const expenseSet = [
  ...expensePositives.map((query) => ({ query, should_trigger: true })),
  ...expenseNegatives.map((query) => ({ query, should_trigger: false })),
];

describe('skill-creator eval sets: every shape', () => {
  const shapes: [string, unknown, string | undefined][] = [
    ['a plain list with --skill', expenseSet, 'expense-report-checker'],
    ['{skill_name, evals}', { skill_name: 'expense-report-checker', evals: expenseSet }, undefined],
    ['{skill_name, queries}', { skill_name: 'expense-report-checker', queries: expenseSet }, undefined],
    ['prompt instead of query', { skill_name: 'expense-report-checker', evals: expenseSet.map(({ query, ...e }) => ({ prompt: query, ...e })) }, undefined],
    ['a wrapper and a --skill that agrees', { skill_name: 'expense-report-checker', evals: expenseSet }, 'expense-report-checker'],
  ];
  it.each(shapes)('reads %s as the same 6 requests about one target', (_label, data, skill) => {
    const set = parseRequestSet('evals.json', data, { skill });
    expect(set.format).toBe('skill-creator');
    expect(set.skill).toBe('expense-report-checker');
    expect(set.requests.map((r) => [r.text, r.gold, r.target])).toEqual([
      ...expensePositives.map((t) => [t, 'expense-report-checker', 'expense-report-checker']),
      ...expenseNegatives.map((t) => [t, null, 'expense-report-checker']),
    ]);
  });

  it('names the accepted shapes for an unknown one, and refuses what is not a trigger eval set', async () => {
    for (const data of [{ skill: 'x', tests: [] }, [{ input: 'q', expected: true }], 42]) {
      const err = await userError(() => parseRequestSet('odd.json', data));
      expect(err.message).toMatch(/^odd\.json: (unknown request|expected a JSON list)/);
      expect(err.fix).toMatch(/accepted shapes: .*\{"skill_name", "evals": \[\.\.\.\]\} or \{"skill_name", "queries": \[\.\.\.\]\}/);
      expect(err.fix).toMatch(/"query" or "prompt", "should_trigger"/);
    }
    // skill-creator's evals/evals.json holds output-quality cases, not trigger queries.
    const quality = await userError(() => parseRequestSet('evals.json', { skill_name: 's', evals: [{ id: 1, prompt: 'do it', expected_output: 'done' }] }));
    expect(quality.message).toMatch(/entry 0 has "expected_output" and no "should_trigger": this is an output-quality eval set/);
    const both = await userError(() => parseRequestSet('e.json', [{ query: 'a', prompt: 'b', should_trigger: true }], { skill: 's' }));
    expect(both.message).toMatch(/field "prompt" is given with "query"/);
    const disagree = await userError(() => parseRequestSet('e.json', { skill_name: 'a', evals: expenseSet }, { skill: 'b' }));
    expect(disagree.message).toMatch(/field "skill_name" says the set is about "a", but --skill says "b"/);
    const unnamed = await userError(() => parseRequestSet('e.json', expenseSet));
    expect(unnamed.fix).toMatch(/--skill NAME/);
  });

  it('scores the target: another skill loading on a negative is no needless load, and the gates bound the target', async () => {
    await writeFile(file('expense.json'), JSON.stringify({ skill_name: 'expense-report-checker', evals: expenseSet }));
    const r = await cli('--requests', file('expense.json'), '--selectors', 'keyword', '--threshold', '0.05', '--max-needless-load', '0', '-o', file('expense-results.json'), '-o', file('expense.md'));
    expect(r.err).not.toMatch(/Error|at /);
    const results = await readResults(file('expense-results.json'));
    const hand = countTargets(results, 'keyword')['expense-report-checker']!;
    // The point of the set: its negatives went to the other skills (leave, meeting notes, CSV), not to the target.
    expect(hand.otherNeg).toBeGreaterThanOrEqual(2);
    expect(hand.negHit).toBe(0);
    expect(r.code).toBe(0); // --max-needless-load 0 passes: no false trigger, whatever the other skills did
    expect(r.out).toMatch(/6 requests \(3 positives, 3 negatives, scored against their target skill\)/);
    const row = r.out.split('\n').find((l) => l.includes('│ keyword') && l.includes('expense-report-checker'))!;
    expect(row).toContain(`${((100 * hand.posHit) / hand.pos).toFixed(1)}% `);
    expect(row).toContain(`${hand.posHit}/${hand.pos}`);
    expect(row).toContain(`0.0% [0.0-56.1] 0/3`); // false triggers on negatives
    expect(row).toMatch(new RegExp(`│\\s+${hand.otherPos}, ${hand.otherNeg} │`));
    // The summary table is the target's: missed triggers and false triggers.
    expect(r.out).toMatch(/missed trigger k\/n \[95%\s+CI\]/);
    const summary = r.out.split('\n').find((l) => /^│ keyword\s+│\s+6 │/.test(l))!;
    expect(summary).toContain(`${hand.pos - hand.posHit}/${hand.pos}`);
    expect(summary).toContain(`${hand.negHit}/${hand.neg}`);

    const md = await readFile(file('expense.md'), 'utf8');
    expect(md).toContain('#### Scored against the target skill');
    expect(md).toMatch(new RegExp(`\\| keyword \\| expense-report-checker \\| .*\\(${hand.posHit}/${hand.pos}\\).* \\| ${hand.otherPos}, ${hand.otherNeg} \\| 0 \\|`));
    // The HTML report has the same table.
    const html = await renderHtml({ results, metrics: results.runs.map((run) => computeMetrics(run, results.requests)) });
    const targets = /<section id="targets">[\s\S]*?<\/section>/.exec(html)?.[0] ?? '';
    expect(targets).toMatch(new RegExp(`<th scope="row">keyword</th><td>expense-report-checker</td>.*<span class="kn">${hand.posHit}/${hand.pos}</span>.*<td class="num">${hand.otherPos}, ${hand.otherNeg}</td><td class="num">0</td>`));

    // A results file's requests keep their target: fed back as a request file, they are scored the same way.
    await writeFile(file('round-trip.json'), JSON.stringify(results.requests));
    const again = await cli('--requests', file('round-trip.json'), '--selectors', 'keyword', '--threshold', '0.05', '-o', file('round-trip-results.json'));
    expect(again.code).toBe(0);
    expect(countTargets(await readResults(file('round-trip-results.json')), 'keyword')).toEqual(countTargets(results, 'keyword'));
    const inconsistent = await userError(() => parseRequestSet('t.json', [{ text: 'x', gold: 'a', target: 'b' }]));
    expect(inconsistent.message).toMatch(/field "target" is "b" but gold is "a"/);

    // --max-wrong-load bounds the missed triggers: an impossible bound fails naming the target.
    const strict = await cli('--requests', file('expense.json'), '--selectors', 'keyword', '--threshold', '50', '--max-wrong-load', '0.1');
    expect(strict.code).toBe(1);
    expect(strict.err.replace(/\s+/g, ' ')).toMatch(/keyword: missed triggers of expense-report-checker 100\.0% \(3\/3 positives\) is above --max-wrong-load 0\.1/);
  });

  it('with a model: the target\'s false trigger counts, another skill on a negative does not (wire server)', async () => {
    const server = await startWireServer({
      openai: (req) => {
        const text = req.body.messages.at(-1).content as string;
        if (text === expenseNegatives[0]) return openai.toolCall('activate_skill', { name: 'leave-balance-calculator' });
        if (text === expenseNegatives[1]) return openai.toolCall('activate_skill', { name: 'expense-report-checker' }); // a false trigger
        if (expensePositives.includes(text)) return openai.toolCall('activate_skill', { name: text.startsWith('Is a 22') ? 'hr-policy-qa' : 'expense-report-checker' });
        return openai.text('No skill needed.');
      },
    });
    try {
      const r = await cli('--requests', file('expense.json'), '--selectors', 'model', '--provider', 'openai', '--base-url', server.baseUrl('openai'), '--model', 'wire-target', '-o', file('expense-model.json'));
      expect(r.code).toBe(0);
      const results = await readResults(file('expense-model.json'));
      expect(countTargets(results, 'model')['expense-report-checker']).toEqual({ pos: 3, posHit: 2, neg: 3, negHit: 1, otherPos: 1, otherNeg: 1 });
      const row = r.out.split('\n').find((l) => l.includes('│ model') && l.includes('expense-report-checker'))!;
      expect(row).toMatch(/66\.7% \[20\.8-93\.9\] 2\/3\s+│ 33\.3% \[6\.1-79\.2\] 1\/3\s+│\s+1, 1 │/);
      const csv = await cli('--requests', file('expense.json'), '--selectors', 'model', '--provider', 'openai', '--base-url', server.baseUrl('openai'), '--model', 'wire-target', '-o', file('expense.csv'));
      expect(csv.code).toBe(0);
      const lines = (await readFile(file('expense.csv'), 'utf8')).split('\r\n');
      const outcome = (text: string) => lines.find((l) => l.includes(text.slice(0, 30)))!.split(',').at(CSV_OUTCOME);
      expect(outcome(expenseNegatives[0]!)).toBe('correct'); // went to another skill
      expect(outcome(expenseNegatives[1]!)).toBe('needless-load'); // the target triggered
    } finally {
      await server.close();
    }
  });

  it('says what is wrong with --skill: a name not in the catalogue, or a file in the own format', async () => {
    await writeFile(file('plain.json'), JSON.stringify(expenseSet));
    const unknown = await cli('--requests', file('plain.json'), '--skill', 'expense-checker', '--selectors', 'keyword');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/--skill expense-checker: no skill of that name in the catalogue skills/);
    expect(unknown.err).toMatch(/expense-report-checker/); // the fix lists the names
    expect(unknown.err).not.toMatch(/gold/);
    const own = await cli('--requests', 'requests.json', '--skill', 'expense-report-checker', '--selectors', 'keyword');
    expect(own.code).toBe(2);
    expect(own.err).toMatch(/requests\.json: --skill expense-report-checker is for skill-creator eval sets .* this file is in skillbench's own format/);
    await writeFile(file('wrong-name.json'), JSON.stringify({ skill_name: 'expense-checker', evals: expenseSet }));
    const wrapped = await cli('--requests', file('wrong-name.json'), '--selectors', 'keyword');
    expect(wrapped.code).toBe(2);
    expect(wrapped.err).toMatch(/field "skill_name" names "expense-checker", which is not a selectable skill/);
  });
});

/** Position of the `outcome` column in the CSV (see src/report/csv.ts). */
const CSV_OUTCOME = 11;

describe('a folder of skills, each with its own eval set', () => {
  let skills: string;
  beforeAll(async () => {
    skills = file('catalogue');
    await cp(path.join(root, 'skills'), skills, { recursive: true });
    const put = async (skill: string, name: string, data: unknown) => {
      await mkdir(path.join(skills, skill, 'evals'), { recursive: true });
      await writeFile(path.join(skills, skill, 'evals', name), JSON.stringify(data));
    };
    await put('expense-report-checker', 'trigger-evals.json', expenseSet);
    await put('leave-balance-calculator', 'trigger_evals.json', { skill_name: 'leave-balance-calculator', queries: [
      { prompt: expenseNegatives[0], should_trigger: true },
      { prompt: 'J\'avais 4 jours reportés de l\'an dernier : est-ce que je les ai perdus, et combien de jours de congés me reste-t-il ?', should_trigger: true },
      { prompt: expensePositives[0], should_trigger: false },
      { prompt: 'Book three days off from 4 to 6 November in the HR tool for me.', should_trigger: false },
    ] });
    await put('meeting-notes-to-actions', 'trigger-eval.json', [
      { query: expenseNegatives[1], should_trigger: true, id: 'notes' },
      { query: 'Send a calendar invite to the whole team for the kickoff next Thursday at 10.', should_trigger: false, id: 'invite' },
    ]);
  });

  it('scores every set against its own skill in one command, and pools them', async () => {
    const r = await cli('--skills', skills, '--requests', skills, '--selectors', 'keyword', '--threshold', '0.05', '-o', file('folder.json'));
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/3 per-skill eval sets \(positives\+negatives\): expense-report-checker 3\+3, leave-balance-calculator 2\+2, meeting-notes-to-actions 1\+1/);
    expect(r.err).toMatch(/no eval set for 3 skills .*: csv-data-profiler, hr-policy-qa, ticket-triage/);
    const results = await readResults(file('folder.json'));
    expect(results.requests).toHaveLength(12);
    expect(results.requests.map((q) => q.id)).toContain('meeting-notes-to-actions/notes');
    expect((results.settings.evalSets as { skill: string }[]).map((s) => s.skill)).toEqual(['expense-report-checker', 'leave-balance-calculator', 'meeting-notes-to-actions']);
    const hand = countTargets(results, 'keyword');
    const rows = r.out.split('\n').filter((l) => l.startsWith('│ keyword') && l.split('│').length === 8);
    for (const [skill, t] of Object.entries(hand)) {
      const row = rows.find((l) => l.includes(` ${skill} `))!;
      expect(row, skill).toContain(`${t.posHit}/${t.pos}`);
      expect(row, skill).toContain(`${t.negHit}/${t.neg}`);
      expect(row, skill).toMatch(new RegExp(`│\\s+${t.otherPos}, ${t.otherNeg} │`));
    }
    const pooled = rows.find((l) => l.includes('(pooled: every set)'))!;
    const sum = (f: (t: (typeof hand)[string]) => number) => Object.values(hand).reduce((a, t) => a + f(t), 0);
    expect(pooled).toContain(`${sum((t) => t.posHit)}/${sum((t) => t.pos)}`);
    expect(pooled).toContain(`${sum((t) => t.negHit)}/${sum((t) => t.neg)}`);
  });

  it('finds the sets by itself when there is no requests.json, and --skill keeps one of them', async () => {
    const r = await runCli(['eval-trigger', '--no-progress', '--cache-dir', file('cache'), '--skills', 'catalogue', '--selectors', 'keyword', '--skill', 'meeting-notes-to-actions', '-o', 'one.json'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/no requests\.json here: scoring the per-skill eval sets of catalogue/);
    const results = await readResults(file('one.json'));
    expect(results.requests.map((q) => q.id)).toEqual(['meeting-notes-to-actions/notes', 'meeting-notes-to-actions/invite']);
  });

  it('finds the eval set of a skill reached through a symbolic link, in its real folder', async () => {
    const { symlink } = await import('node:fs/promises');
    const linked = file('linked-catalogue');
    await mkdir(linked, { recursive: true });
    for (const s of ['expense-report-checker', 'hr-policy-qa', 'ticket-triage']) await symlink(path.join(skills, s), path.join(linked, s));
    const r = await cli('--skills', linked, '--requests', linked, '--selectors', 'keyword', '--threshold', '0.05');
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/1 per-skill eval set \(positives\+negatives\): expense-report-checker 3\+3/);
  });

  it('refuses two eval files for one skill, and a folder that is no skill', async () => {
    await writeFile(path.join(skills, 'expense-report-checker', 'evals', 'trigger_evals.json'), JSON.stringify(expenseSet));
    const two = await cli('--skills', skills, '--requests', skills, '--selectors', 'keyword');
    expect(two.code).toBe(2);
    expect(two.err).toMatch(/skill "expense-report-checker" has a second eval set/);
    await rm(path.join(skills, 'expense-report-checker', 'evals', 'trigger_evals.json'));
    await mkdir(path.join(skills, 'notes', 'stray', 'evals'), { recursive: true });
    await writeFile(path.join(skills, 'notes', 'stray', 'evals', 'trigger-evals.json'), JSON.stringify(expenseSet));
    const stray = await cli('--skills', skills, '--requests', skills, '--selectors', 'keyword');
    expect(stray.code).toBe(2);
    expect(stray.err).toMatch(/stray\/evals\/trigger-evals\.json: the folder .*stray is not a selectable skill of the catalogue/);
    await rm(path.join(skills, 'notes'), { recursive: true });
  });
});

describe('per-request candidates', () => {
  const tools = [
    { name: 'weather', description: 'Current weather and forecasts for a city: temperature, rain, wind.' },
    { name: 'flights', description: 'Search and book flights between airports, with prices and times.' },
    { name: 'hotels', description: 'Find and book hotel rooms in a city for given dates.' },
    { name: 'currency', description: 'Convert amounts between currencies at today\'s exchange rate.' },
    { name: 'translate', description: 'Translate text between languages.' },
  ];
  // Hard negatives (MetaTool's reliability task): each request's own tool is left out of its candidates.
  const requests: EvalRequest[] = [
    { id: 'n1', text: 'What is the weather forecast for Lyon tomorrow, will it rain?', gold: null, candidates: ['flights', 'hotels', 'currency'] },
    { id: 'n2', text: 'Book me a flight from Paris to Rome on Friday', gold: null, candidates: ['weather', 'translate'] },
    { id: 'n3', text: 'Convert 200 euros to dollars at the exchange rate', gold: null, candidates: ['translate', 'hotels'] },
    { id: 'p1', text: 'Find a hotel room in Rome for two nights', gold: 'hotels', candidates: ['hotels', 'flights'] },
    { id: 'p2', text: 'Translate this sentence into German', gold: 'translate' },
    { id: 'x1', text: '/weather for Lyon please', gold: null, candidates: ['flights', 'hotels'] },
  ];
  beforeAll(async () => {
    await writeFile(file('tools.json'), JSON.stringify(tools));
    await writeFile(file('candidates.json'), JSON.stringify(requests));
    await writeFile(file('no-candidates.json'), JSON.stringify(requests.map(({ candidates, ...r }) => r)));
  });

  it('makes every offline selector choose among the request\'s candidates only', async () => {
    const r = await cli('--skills', file('tools.json'), '--requests', file('candidates.json'), '--selectors', 'keyword,explicit', '--threshold', '0.05', '-o', file('cand.json'));
    expect(r.code).toBe(0);
    expect(r.out.replace(/\s+/g, ' ')).toMatch(/6 requests \(2 covered, 4 uncovered\), 5 with their own candidate list/);
    const results = await readResults(file('cand.json'));
    const byId = new Map(results.requests.map((q) => [q.id, q]));
    for (const run of results.runs) {
      for (const d of run.decisions) {
        const allowed = byId.get(d.requestId)!.candidates ?? tools.map((t) => t.name);
        if (d.chosen) expect(allowed, `${run.selector} ${d.requestId}`).toContain(d.chosen);
        for (const s of d.scores ?? []) expect(allowed).toContain(s.name);
        // Every candidate with some evidence is ranked (a skill sharing no word is not a candidate at all).
        if (d.scores) expect(d.scores.length).toBeLessThanOrEqual(allowed.length);
      }
    }
    // /weather is not among x1's candidates: nothing loads, and an unresolved mention is no needless load.
    const explicit = results.runs.find((x) => x.selector === 'explicit')!;
    expect(explicit.decisions.find((d) => d.requestId === 'x1')).toMatchObject({ chosen: null, detail: { unresolved: 'weather' } });
    // Counted by hand: keyword's needless loads on the 4 hard negatives, with and without their candidate lists.
    const needless = (x: ResultsFile) => x.runs.find((y) => y.selector === 'keyword')!.decisions.filter((d) => byId.get(d.requestId)!.gold === null && got(d) !== null).length;
    const without = await cli('--skills', file('tools.json'), '--requests', file('no-candidates.json'), '--selectors', 'keyword', '--threshold', '0.05', '-o', file('nocand.json'));
    expect(without.code).toBe(0);
    const all = await readResults(file('nocand.json'));
    expect(needless(all)).toBeGreaterThan(needless(results)); // with the full catalogue, each request finds its own tool
    expect(r.out).toContain(`${needless(results)}/4`);
  });

  it('shows the model only the candidates, in its prompt and its tool', async () => {
    const server = await startWireServer({ openai: () => openai.text('No tool needed.') });
    try {
      const r = await cli('--skills', file('tools.json'), '--requests', file('candidates.json'), '--selectors', 'model', '--provider', 'openai', '--base-url', server.baseUrl('openai'), '--model', 'wire-cand', '--no-cache');
      expect(r.code).toBe(0);
      const sent = server.requests.filter((q) => q.body?.tools);
      expect(sent).toHaveLength(requests.length);
      for (const q of sent) {
        const text = q.body.messages.at(-1).content as string;
        const request = requests.find((x) => x.text === text)!;
        const allowed = request.candidates ?? tools.map((t) => t.name);
        expect(q.body.tools[0].function.parameters.properties.name.enum, request.id).toEqual([...allowed].sort());
        // The generic host's listing: one `name: description` line per skill shown.
        const system = q.body.messages.filter((m: { role: string }) => m.role === 'system').map((m: { content: string }) => m.content).join('\n');
        for (const t of tools) expect(system.split('\n').some((l: string) => l.startsWith(`${t.name}: `)), `${request.id} ${t.name}`).toBe(allowed.includes(t.name));
      }
    } finally {
      await server.close();
    }
  });

  it('refuses a candidate the catalogue does not have, and a gold outside its candidates', async () => {
    await writeFile(file('bad-cand.json'), JSON.stringify([{ id: 'q', text: 'rain?', gold: null, candidates: ['weather', 'wether'] }]));
    const r = await cli('--skills', file('tools.json'), '--requests', file('bad-cand.json'), '--selectors', 'keyword');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/bad-cand\.json: request "q" field "candidates" names "wether", which is not a selectable skill/);
    const outside = await userError(() => parseRequestSet('c.json', [{ text: 'rain?', gold: 'weather', candidates: ['flights'] }]));
    expect(outside.message).toMatch(/entry 0: field "candidates" does not include "weather", the skill this request must load/);
    // suggest --eval ranks the whole catalogue: it refuses a candidate list instead of dropping it.
    const suggest = await runCli(['suggest', '--eval', '--skills', file('tools.json'), '--requests', file('candidates.json')], { cwd: root });
    expect(suggest.code).toBe(2);
    expect(suggest.stderr).toMatch(/request "n1" has a "candidates" list, which suggest --eval does not support/);
    const empty = await userError(() => parseRequestSet('c.json', [{ text: 'rain?', gold: null, candidates: [] }]));
    expect(empty.message).toMatch(/field "candidates" must be a non-empty list of skill names/);
  });
});

describe('honest thresholds and degenerate sets', () => {
  it('refuses a calibration set without positives or without negatives', async () => {
    const requests = JSON.parse(await readFile(path.join(root, 'requests.json'), 'utf8')) as EvalRequest[];
    await writeFile(file('only-pos.json'), JSON.stringify(requests.filter((r) => r.gold !== null)));
    await writeFile(file('only-neg.json'), JSON.stringify(requests.filter((r) => r.gold === null)));
    const pos = await cli('--selectors', 'keyword', '--calibrate', file('only-pos.json'));
    expect(pos.code).toBe(2);
    expect(pos.err).toMatch(/only-pos\.json: the calibration set has no negatives .*: the only threshold it can choose is "load the top skill on every request"/);
    const neg = await cli('--selectors', 'keyword', '--calibrate', file('only-neg.json'));
    expect(neg.code).toBe(2);
    expect(neg.err).toMatch(/only-neg\.json: the calibration set has no positives .*"load nothing"/);
  });

  it('shows the rates a one-sided set cannot define as undefined, with the reason, never "100% accuracy" or "separable"', async () => {
    const r = await cli('--requests', file('only-pos.json'), '--selectors', 'keyword', '-o', file('only-pos.md'));
    expect(r.code).toBe(0);
    const md = await readFile(file('only-pos.md'), 'utf8');
    expect(md).toMatch(/^\| keyword \| .* \| n\/a \(0\/0\) \| undefined \| 0 \|/m);
    expect(md).toMatch(/- needless load undefined: the set has no uncovered requests/);
    const row = r.out.split('\n').find((l) => /^│ keyword/.test(l))!;
    expect(row).toMatch(/│ undefined\s+│/); // accuracy
    expect(row).toMatch(/│ undefined 0\/0\s+│/); // needless load
    expect(r.out).toMatch(/needless load undefined: the set has no uncovered requests \(gold null\); accuracy and separability are undefined too/);
    expect(r.out).not.toMatch(/100\.0% 24\/24/);
    expect(r.out).not.toMatch(/: separable/);
    expect(r.out).toMatch(/separability undefined/);
    const neg = await cli('--requests', file('only-neg.json'), '--selectors', 'keyword');
    expect(neg.out).toMatch(/wrong load undefined: the set has no covered requests/);
  });

  it('refuses a --threshold outside the score range of the selectors it applies to', async () => {
    const cases: [string, RegExp][] = [
      ['1.5', /--threshold 1\.5: outside the score range of similarity \(cosine similarities, -1 to 1\): it would never load a skill/],
      ['keyword=-0.1', /--threshold keyword=-0\.1: outside the score range of keyword \(BM25 scores over the request's own weight \(0 and up\), 0 to Infinity\)/],
      ['similarity=-2', /--threshold similarity=-2: outside the score range of similarity/],
    ];
    for (const [value, message] of cases) {
      const r = await cli('--selectors', 'similarity,keyword', '--threshold', value);
      expect(r.code, value).toBe(2);
      expect(r.err).toMatch(message);
      expect(r.err).not.toMatch(/\[similarity\]|\[keyword\]/); // refused before running
    }
    // -0.5 is a cosine similarity can reach, but no keyword score: refused only when keyword runs.
    expect((await cli('--selectors', 'keyword', '--threshold', '-0.5')).code).toBe(2);
  });

  it('runs explicit by default only when a request names a skill', async () => {
    const none = await cli('-o', file('default.json'));
    expect(none.code).toBe(0);
    expect(none.err).toMatch(/skipped explicit \(no request names a skill with \/name or @name/);
    expect((await readResults(file('default.json'))).runs.map((x) => x.selector)).toEqual(['fused', 'similarity', 'keyword']);
    await writeFile(file('named.json'), JSON.stringify([
      { id: 'a', text: '/ticket-triage this outage report', gold: 'ticket-triage' },
      { id: 'b', text: 'Tell me a joke', gold: null },
    ]));
    const named = await cli('--requests', file('named.json'), '--selectors', 'keyword,explicit');
    expect(named.out).toMatch(/│ explicit/);
    const byDefault = await cli('--requests', file('named.json'), '-o', file('named-results.json'));
    expect(byDefault.err).not.toMatch(/skipped explicit/);
    expect((await readResults(file('named-results.json'))).runs.map((x) => x.selector)).toContain('explicit');
  });
});

describe('the per-skill gate catches a dead skill', () => {
  it('fails when leave-balance-calculator\'s description becomes "Internal helper. Use when asked.", naming the skill', async () => {
    const dead = file('dead-skills');
    await cp(path.join(root, 'skills'), dead, { recursive: true });
    const skillFile = path.join(dead, 'leave-balance-calculator', 'SKILL.md');
    const text = await readFile(skillFile, 'utf8');
    await writeFile(skillFile, text.replace(/description: >-\n(?: {2}.*\n)+/, 'description: Internal helper. Use when asked.\n'));
    expect(await readFile(skillFile, 'utf8')).toMatch(/description: Internal helper\. Use when asked\.\nlicense/);

    const base = await cli('--selectors', 'keyword', '-o', file('lb-base.json'));
    expect(base.code).toBe(0);
    const r = await cli('--skills', dead, '--selectors', 'keyword', '--baseline', file('lb-base.json'), '--threshold', 'baseline', '-o', file('lb-after.json'));
    expect(r.code).toBe(1);
    // The global test alone cannot fail it: 5 discordant pairs, all worse, exact McNemar p = 0.0625.
    expect(r.out.replace(/\s+/g, ' ')).toMatch(/keyword: against the baseline, better on \d+, worse on \d+ requests \(exact McNemar p = [\d.]+\)/);
    expect(r.err).toMatch(/gate failed: keyword: skill leave-balance-calculator lost 4 of the 4 requests it loaded correctly/);
    const results = await readResults(file('lb-after.json'));
    const [baseRun, afterRun] = [(await readResults(file('lb-base.json'))).runs[0]!, results.runs[0]!];
    // Counted by hand: leave requests right in the baseline and now.
    const right = (run: typeof baseRun) => run.decisions.filter((d) => d.requestId.startsWith('leave-') && d.chosen === 'leave-balance-calculator').length;
    expect([right(baseRun), right(afterRun)]).toEqual([4, 0]);
    expect(results.gate!.skills!.find((l) => l.failed)).toMatchObject({ skill: 'leave-balance-calculator', before: 4, after: 0, lost: 4, paired: 4 });
  });
});
