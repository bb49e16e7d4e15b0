// Every built-in host through every provider's REAL SDK against the local wire server: `eval-trigger --selectors
// model --host H` sends that host's prompt (the catalogue where the host puts it, its loading tool with its schema),
// and the scripted "model" answers the way a model would in that prompt: it finds the loading tool and the listing in
// what the SDK sent and loads through them (a name, category/name, or a shell command reading the SKILL.md path it
// read in the listing). The decisions must come back through the host's own loading mechanism. Then the listing
// budget end to end, and `skillbench prompt --host H --json` against the forms docs/hosts.md documents.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readResults } from '../src/results.js';
import { computeMetrics } from '../src/metrics.js';
import { renderMarkdown } from '../src/report/markdown.js';
import { renderHtml } from '../src/report/html.js';
import { builtinHostNames, loadBuiltin } from '../src/hosts/profile.js';
import { charCount } from '../src/hosts/listing.js';
import { anthropic, gemini, openai, startWireServer, type Api, type Recorded, type Reply, type WireServer } from './support/wire-server.js';
import { runCli } from './support/cli.js';
import { clearProviderEnv } from './support/fixtures.js';

clearProviderEnv();

const root = path.resolve(__dirname, '..');
const FIXTURE = path.join(root, 'fixtures/hosts/catalogue');
// Wide columns: the assertions read whole report lines (a narrow $COLUMNS would wrap them).
const ENV = { GEMINI_API_KEY: 'test-key', ANTHROPIC_API_KEY: 'test-key', OPENAI_API_KEY: 'test-key', COLUMNS: '240' };

/** What a provider's SDK sent, read back in one shape. */
interface Sent {
  system: string;
  tools: { name: string; description: string; parameters: Record<string, any> }[];
  user: string;
}

function sentOf(api: Api, body: any): Sent {
  if (api === 'gemini') {
    return {
      system: (body.systemInstruction?.parts ?? []).map((p: { text: string }) => p.text).join('\n\n'),
      tools: (body.tools ?? []).flatMap((t: any) => t.functionDeclarations).map((d: any) => ({ name: d.name, description: d.description, parameters: d.parametersJsonSchema })),
      user: body.contents.at(-1).parts.map((p: { text?: string }) => p.text ?? '').join(''),
    };
  }
  if (api === 'anthropic') {
    const last = body.messages.at(-1).content;
    return {
      system: (body.system ?? []).map((b: { text: string }) => b.text).join('\n\n'),
      tools: (body.tools ?? []).map((t: any) => ({ name: t.name, description: t.description, parameters: t.input_schema })),
      user: typeof last === 'string' ? last : last.map((b: { text?: string }) => b.text ?? '').join(''),
    };
  }
  return {
    system: body.messages.filter((m: { role: string }) => m.role === 'system').map((m: { content: string }) => m.content).join('\n\n'),
    tools: (body.tools ?? []).map((t: any) => t.function),
    user: body.messages.filter((m: { role: string }) => m.role === 'user').at(-1).content,
  };
}

const call = (api: Api, name: string, args: Record<string, unknown>): Reply =>
  api === 'gemini' ? gemini.functionCall(name, args) : api === 'anthropic' ? anthropic.toolUse(name, args) : openai.toolCall(name, args);
const text = (api: Api, t: string): Reply => (api === 'gemini' ? gemini.text(t) : api === 'anthropic' ? anthropic.text(t) : openai.text(t));

/** The requests of the fixture, and what the scripted model does with each. */
const REQUESTS = [
  { id: 'pdf', text: 'Split this PDF into pages', gold: 'pdf-tools' },
  { id: 'notes', text: 'Who does what after this meeting? Here are my notes.', gold: 'meeting-notes' },
  { id: 'git', text: 'git says my branch has diverged, what does it mean?', gold: 'git-helper' },
  { id: 'neg', text: 'What is the capital of Peru?', gold: null },
  { id: 'wrong', text: 'Compress these photos for the web', gold: null },
  { id: 'look', text: 'Which skills do you have?', gold: null },
];

/**
 * The scripted model: it reads the request in the user's message, finds the loading tool (the first tool) and loads
 * the gold skill through it: by its argument, or for a file tool with a command naming the path the listing shows.
 */
function model(api: Api, req: Recorded): Reply {
  const s = sentOf(api, req.body);
  const r = REQUESTS.find((q) => s.user.endsWith(q.text))!;
  const tool = s.tools[0]!;
  const isFileTool = tool.name === 'shell';
  if (r.id === 'look') {
    // A first turn that loads nothing: a shell command, or another of the host's tools.
    if (isFileTool) return call(api, 'shell', { command: ['ls', '-la'] });
    const other = s.tools.find((t) => t.name === 'list_skills');
    return other ? call(api, 'list_skills', {}) : text(api, 'I can help with PDFs, notes and git.');
  }
  if (r.id === 'wrong') return isFileTool ? call(api, 'shell', { command: ['cat', '~/.codex/skills/image-squeezer/SKILL.md'] }) : call(api, tool.name, { [tool.parameters.required[0]]: 'image-squeezer' });
  if (r.gold === null) return text(api, 'Lima.');
  if (isFileTool) {
    const listing = `${s.system}\n${s.user}`;
    const file = new RegExp(`- ${r.gold}: .*\\(file: (\\S+)\\)`).exec(listing)![1]!;
    return call(api, 'shell', { command: ['bash', '-lc', r.id === 'notes' ? `sed -n '1,200p' ${file}` : `cat ${file}`] });
  }
  // Hermes accepts category/name: ask for the categorised skill that way.
  const name = tool.name === 'skill_view' && r.gold === 'meeting-notes' ? 'notes/meeting-notes' : r.gold;
  return call(api, tool.name, { [tool.parameters.required[0]]: name });
}

let dir: string;
let server: WireServer;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'skillbench-hosts-wire-'));
  await writeFile(path.join(dir, 'requests.json'), JSON.stringify(REQUESTS));
  server = await startWireServer({ gemini: (r) => model('gemini', r), anthropic: (r) => model('anthropic', r), openai: (r) => model('openai', r) });
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const cli = (args: string[]) => runCli(['eval-trigger', '--no-progress', '--cache-dir', path.join(dir, 'cache'), ...args], { env: ENV });

describe.each(builtinHostNames())('eval-trigger --selectors model --host %s', (hostName) => {
  const profile = loadBuiltin(hostName);
  it.each(['gemini', 'anthropic', 'openai'] as const)('through the %s SDK: the host\'s prompt goes out, its loading mechanism reads the decision', async (api) => {
    const out = path.join(dir, `${hostName}-${api}.json`);
    const before = server.requests.length;
    const r = await cli(['--skills', FIXTURE, '--requests', path.join(dir, 'requests.json'), '--selectors', 'model', '--host', hostName,
      '--provider', api, '--base-url', server.baseUrl(api), '--model', `wire-${hostName}`, '--json', out]);
    expect(r.stderr).not.toMatch(/internal error/);
    // A first turn that loads nothing is a failure to measure: the run is incomplete (exit 4), its outputs written.
    const multiTool = profile.loading.kind === 'file-read' || profile.tools.some((t) => t.name === 'list_skills');
    expect(r.code).toBe(multiTool ? 4 : 0);
    const results = await readResults(out);
    if (multiTool) expect(results.completeness).toMatchObject({ complete: false, failed: 1, byKind: { 'stopped: no-load': 1 } });
    const by = Object.fromEntries(results.runs[0]!.decisions.map((d) => [d.requestId, d]));
    expect(by.pdf).toMatchObject({ chosen: 'pdf-tools' });
    expect(by.notes).toMatchObject({ chosen: 'meeting-notes' });
    expect(by.git).toMatchObject({ chosen: 'git-helper' });
    expect(by.neg).toMatchObject({ chosen: null });
    expect(by.neg!.error).toBeUndefined();
    expect(by.wrong!.chosen).toBeNull();
    expect(by.wrong!.rawChoice).toBe(profile.loading.kind === 'file-read' ? '~/.codex/skills/image-squeezer/SKILL.md' : 'image-squeezer');
    if (multiTool) expect(by.look!.error).toMatch(/^no decision: the first turn called (shell|list_skills)/);
    else expect(by.look).toMatchObject({ chosen: null });
    expect(results.host).toMatchObject({ name: hostName, placement: profile.catalogue.placement });
    const m = computeMetrics(results.runs[0]!, results.requests);
    expect([m.wrongLoad.k, m.wrongLoad.n]).toEqual([0, 3]);
    expect(m.needlessLoad.k).toBe(1); // the wrong-name load on an uncovered request
    expect(m.errors).toBe(multiTool ? 1 : 0);

    // What the SDK sent: the catalogue exactly where the host puts it, the loading tool first with its schema.
    const sent = server.requests.slice(before).filter((q) => q.api === api).map((q) => sentOf(api, q.body));
    expect(sent).toHaveLength(REQUESTS.length);
    const first = sent[0]!;
    const where = { system: first.system, 'tool-description': first.tools[0]!.description, 'user-message': first.user }[profile.catalogue.placement];
    expect(where).toContain('meeting-notes');
    for (const [place, t] of Object.entries({ system: first.system, 'tool-description': first.tools[0]!.description, 'user-message': first.user })) {
      if (place !== profile.catalogue.placement && !(hostName === 'gemini-cli' && place === 'tool-description')) expect(t).not.toContain('Turn meeting notes');
    }
    expect(first.tools[0]!.name).toBe(profile.loading.tool.name);
    expect(first.tools.map((t) => t.name)).toEqual([profile.loading.tool.name, ...profile.tools.map((t) => t.name)]);
    if (profile.loading.kind === 'tool') {
      const arg = first.tools[0]!.parameters.properties[profile.loading.tool.argument];
      if (profile.loading.tool.enum) expect(arg.enum).toEqual(['git-helper', 'meeting-notes', 'pdf-tools']);
      else expect(arg.enum).toBeUndefined();
    }
    // The prefix is the same for every request (one frame per run).
    expect(new Set(sent.map((s) => s.system)).size).toBe(1);
  });
});

describe('the listing budget end to end (bundled catalogue, requests.json)', () => {
  const SKILLS = path.join(root, 'skills');
  const REQS = path.join(root, 'requests.json');
  const requests = JSON.parse(readFileSync(REQS, 'utf8')) as { id: string; gold: string | null }[];
  // A model that loads the gold skill when the listing it was sent shows it, and nothing otherwise.
  const fair = (api: Api) => (req: Recorded): Reply => {
    const s = sentOf(api, req.body);
    const all = `${s.system}\n${s.user}\n${s.tools.map((t) => t.description).join('\n')}`;
    const r = (JSON.parse(readFileSync(REQS, 'utf8')) as { text: string; gold: string | null }[]).find((q) => s.user.endsWith(q.text))!;
    const tool = s.tools[0]!;
    const listed = r.gold !== null && new RegExp(`(^|\\n)(- |<name>\\n)${r.gold}(:|\\n|$)`).test(all);
    return listed ? call(api, tool.name, { [tool.parameters.required[0]]: r.gold }) : text(api, 'Here is my answer.');
  };
  beforeAll(() => server.setHandlers({ anthropic: fair('anthropic'), gemini: fair('gemini'), openai: fair('openai') }));

  async function run(host: string, budget: number, api: Api, name: string) {
    const out = path.join(dir, `${name}.json`);
    const before = server.requests.length;
    const r = await runCli(['eval-trigger', '--no-progress', '--cache-dir', path.join(dir, 'cache'), '--skills', SKILLS, '--requests', REQS, '--selectors', 'model',
      '--host', host, '--listing-budget', String(budget), '--provider', api, '--base-url', server.baseUrl(api), '--model', `wire-${name}`, '--json', out], { env: ENV });
    expect(r.code).toBe(0);
    const sent = server.requests.slice(before).filter((q) => q.api === api).map((q) => sentOf(api, q.body));
    return { r, results: await readResults(out), sent };
  }

  it('claude-code --listing-budget 1200: the listing sent fits, every shortened skill is named, their requests apart', async () => {
    const { r, results, sent } = await run('claude-code', 1200, 'anthropic', 'cc-1200');
    const profile = loadBuiltin('claude-code');
    const listing = sent[0]!.user.slice(profile.catalogue.preamble.length, sent[0]!.user.indexOf(profile.catalogue.footer));
    expect(charCount(listing)).toBeLessThanOrEqual(1200);
    expect(charCount(listing)).toBeGreaterThan(1000); // the longest cut that fits, not any cut
    const names = ['csv-data-profiler', 'expense-report-checker', 'hr-policy-qa', 'leave-balance-calculator', 'meeting-notes-to-actions', 'ticket-triage'];
    expect(results.host!.listing).toMatchObject({ shortened: names, dropped: [], namesOnly: [], budget: { chars: 1200, from: '--listing-budget', step: 'shorten', over: false } });
    const to = results.host!.listing.budget!.shortenedTo!;
    for (const line of listing.split('\n')) expect(charCount(line.replace(/^- [^:]+: /, ''))).toBeLessThanOrEqual(to);
    expect(r.stderr).toContain(`description shortened to ${to} characters: ${names.join(', ')}`);
    const covered = requests.filter((q) => q.gold !== null).length;
    expect(r.stdout).toContain(`gold skill's description shortened: ${covered} requests`);
  });

  it('claude-code --listing-budget 300: names only (Claude Code keeps every name), named, and within the budget', async () => {
    const { r, results, sent } = await run('claude-code', 300, 'gemini', 'cc-300');
    const profile = loadBuiltin('claude-code');
    const listing = sent[0]!.user.slice(profile.catalogue.preamble.length, sent[0]!.user.indexOf(profile.catalogue.footer));
    expect(charCount(listing)).toBeLessThanOrEqual(300);
    expect(listing.split('\n').every((l) => /^- [a-z-]+$/.test(l))).toBe(true);
    expect(results.host!.listing.namesOnly).toHaveLength(6);
    expect(r.stderr).toMatch(/listed by name only \(no description\): csv-data-profiler, /);
    expect(r.stdout).toMatch(/gold skill listed by name only: \d+ requests/);
  });

  it('claude-code-2.0 --listing-budget 1600: skills dropped from the end, named; their requests reported as invisible to the model', async () => {
    const { r, results, sent } = await run('claude-code-2.0', 1600, 'openai', 'cc2-1600');
    const description = sent[0]!.tools[0]!.description;
    const listing = description.slice(description.indexOf('<available_skills>'));
    expect(charCount(listing)).toBeLessThanOrEqual(1600);
    const dropped = results.host!.listing.dropped;
    expect(dropped.length).toBeGreaterThan(0);
    // From the end of the listing (name order), and absent from what the model was sent.
    const all = ['csv-data-profiler', 'expense-report-checker', 'hr-policy-qa', 'leave-balance-calculator', 'meeting-notes-to-actions', 'ticket-triage'];
    expect(dropped).toEqual(all.slice(all.length - dropped.length));
    for (const name of dropped) expect(listing).not.toContain(`<name>\n${name}\n</name>`);
    expect(r.stderr).toContain(`dropped (the model cannot see them): ${dropped.join(', ')}`);
    const invisible = requests.filter((q) => q.gold !== null && dropped.includes(q.gold));
    expect(invisible.length).toBeGreaterThan(0);
    expect(r.stdout).toContain(`invisible to the model: ${invisible.length} requests whose gold skill was dropped from the listing`);
    // Their misses are the budget's: the fair model loads every gold it can see, so the wrong loads are exactly them.
    const m = computeMetrics(results.runs[0]!, results.requests);
    expect(m.wrongLoad.k).toBe(invisible.length);
    expect(r.stdout).toMatch(/model: wrong load 0\.0% \(0\/\d+\) on the requests whose gold skill was listed in full/);
    // The Markdown and HTML reports carry the same host section, from the results file alone.
    const input = { results, metrics: results.runs.map((run) => computeMetrics(run, results.requests)) };
    const md = renderMarkdown(input);
    expect(md).toContain('#### Host: claude-code-2.0');
    expect(md).toContain(`- invisible to the model: ${invisible.length} requests whose gold skill was dropped from the listing`);
    expect(md).toMatch(/- model: wrong load 0\.0% \(0\/\d+\) on the requests whose gold skill was listed in full/);
    const html = await renderHtml(input);
    const section = /<section id="host"><h2>Host<\/h2>[\s\S]*?<\/section>/.exec(html)?.[0] ?? '';
    expect(section).toContain(`dropped (the model cannot see them): ${dropped.join(', ')}`);
    expect(section).toContain('on the requests whose gold skill was listed in full');
  });
});

describe('skillbench prompt --host H --json: the forms docs/hosts.md documents', () => {
  const doc = readFileSync(path.join(root, 'docs/hosts.md'), 'utf8');
  it.each(builtinHostNames())('%s', async (host) => {
    const block = new RegExp(`<!-- prompt-form:${host.replace(/\./g, '\\.')} -->\\n\`\`\`json\\n([\\s\\S]*?)\\n\`\`\`\\n<!-- /prompt-form -->`).exec(doc);
    expect(block, `docs/hosts.md documents the ${host} form`).not.toBeNull();
    const r = await runCli(['prompt', '--host', host, '--skills', 'fixtures/hosts/catalogue', '--request', 'Split this PDF into pages', '--json'], { cwd: root });
    expect(r.code).toBe(0);
    const view = JSON.parse(r.stdout);
    expect(view.prompt).toEqual(JSON.parse(block![1]!));
    expect(view.host.name).toBe(host);
    expect(view.tokens.total).toBe(view.tokens.system + view.tokens.tools + view.tokens.messages);
  });

  it('names the dropped and shortened skills in text, with the token estimate against the bare minimum', async () => {
    const r = await runCli(['prompt', '--host', 'claude-code-2.0', '--listing-budget', '500', '--skills', 'fixtures/hosts/catalogue'], { cwd: root });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('request: none given (--request TEXT); shown as <the user request>');
    expect(r.stdout).toMatch(/claude-code-2\.0: the listing \([\d,]+ characters\) is over the 500-character budget \(--listing-budget\); \d skills? dropped\./);
    expect(r.stdout).toMatch(/dropped \(the model cannot see them\): [a-z-]+/);
    expect(r.stdout).toMatch(/== tokens \(o200k via tiktoken, an estimate\) ==\nsystem \d+ \+ tools \d+ \+ messages \d+ = \d+; bare minimum \d+ \(\d+\.\d\dx\)/);
    const bad = await runCli(['prompt', '--host', 'nope.yaml'], { cwd: root });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--host nope\.yaml: cannot read the profile file/);
  });
});

describe('the agent loop under a host (e2e, eval-quality)', () => {
  /** First turn: load pdf-tools through the host's mechanism; after a tool result: answer. */
  const agent = (api: Api) => (req: Recorded): Reply => {
    const history = JSON.stringify(api === 'openai' ? req.body.messages : req.body.messages);
    if (history.includes('"role":"tool"') || history.includes('"tool_result"')) return text(api, 'Split into 3 pages.');
    const s = sentOf(api, req.body);
    const tool = s.tools[0]!;
    if (tool.name === 'shell') {
      const file = /- pdf-tools: .*\(file: (\S+)\)/.exec(s.user)![1]!;
      return call(api, 'shell', { command: ['bash', '-lc', `cat ${file}`] });
    }
    return call(api, tool.name, { [tool.parameters.required[0]]: 'pdf-tools' });
  };
  beforeAll(() => server.setHandlers({ anthropic: agent('anthropic'), openai: agent('openai'), gemini: agent('gemini') }));

  it('e2e --host codex: the shell read of the listed SKILL.md is the activation; the file comes back as the tool result', async () => {
    const out = path.join(dir, 'e2e-codex.json');
    const before = server.requests.length;
    const r = await runCli(['e2e', 'Split this PDF into pages', '--mode', 'progressive', '--host', 'codex', '--skills', FIXTURE, '--provider', 'openai',
      '--base-url', server.baseUrl('openai'), '--model', 'wire-e2e-codex', '--cache-dir', path.join(dir, 'cache'), '--json', out], { env: ENV });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/-> shell \{"command":\["bash","-lc","cat ~\/\.codex\/skills\/pdf-tools\/SKILL\.md"\]\}\s+\[body\]/);
    const e2e = JSON.parse(readFileSync(out, 'utf8'));
    expect(e2e.host).toMatchObject({ name: 'codex', placement: 'user-message' });
    const [run] = e2e.runs;
    expect(run.activated).toEqual(['pdf-tools']);
    expect(run.calls[0].toolCalls[0].result).toMatch(/^---\nname: pdf-tools\n/);
    expect(run.answer).toBe('Split into 3 pages.');
    const sent = server.requests.slice(before).filter((q) => q.api === 'openai');
    expect(sent).toHaveLength(2);
    expect(sent[0]!.body.messages.find((m: { role: string }) => m.role === 'user').content).toMatch(/^## Skills\n/);
    expect(sent[0]!.body.tools.map((t: any) => t.function.name)).toEqual(['shell', 'read_skill_file', 'run_skill_script']);
  });

  it('eval-quality --host claude-code: Skill(skill) activates, the case passes, the results file names the host', async () => {
    const cases = path.join(dir, 'cases.json');
    await writeFile(cases, JSON.stringify([{ id: 'split', request: 'Split this PDF into pages', skill: 'pdf-tools', checks: { contains: ['3 pages'] } }]));
    const out = path.join(dir, 'quality-cc.json');
    const before = server.requests.length;
    const r = await runCli(['eval-quality', '--cases', cases, '--skills', FIXTURE, '--mode', 'progressive', '--host', 'claude-code', '--provider', 'anthropic',
      '--base-url', server.baseUrl('anthropic'), '--model', 'wire-quality-cc', '--cache-dir', path.join(dir, 'cache'), '--no-progress', '--json', out], { env: ENV });
    expect(r.code).toBe(0);
    const results = await readResults(out);
    expect(results.quality!.modes[0]!.pass).toMatchObject({ k: 1, n: 1 });
    expect(results.host).toMatchObject({ name: 'claude-code', loading: 'Skill(skill: free string)' });
    expect(results.settings).toMatchObject({ host: 'claude-code', format: 'template' });
    const sent = server.requests.slice(before).filter((q) => q.api === 'anthropic');
    expect(sent[0]!.body.tools.map((t: any) => t.name)).toEqual(['Skill', 'read_skill_file', 'run_skill_script']);
    expect(sent[0]!.body.messages[0].content).toMatch(/^<system-reminder>\n/);
  });
});
