// Host profiles as data: every built-in profile validates, a user's file (JSON or YAML, `extends`) is checked field by
// field with the fix named; the listing engine (templates, escaping, the per-description cut, the budget and its
// overflow steps in order); what counts as a load under each loading mechanism; the loader serving a host's load.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadCatalogue } from '../src/catalogue.js';
import { UserError } from '../src/errors.js';
import { readCall, readDecision, skillMdIn } from '../src/hosts/decision.js';
import { charCount, cutText, renderListing } from '../src/hosts/listing.js';
import { bareMinimumTokens, decisionTokens } from '../src/hosts/minimum.js';
import { budgetProblems, listingSummary, visibility } from '../src/hosts/notes.js';
import { builtinHostNames, genericHost, loadBuiltin, resolveHost, type Host, type ListingSpec } from '../src/hosts/profile.js';
import { hostFrame } from '../src/hosts/request.js';
import { SkillLoader } from '../src/loader.js';
import { HOST_NAMES_HELP } from '../src/options.js';
import { renderCatalogue } from '../src/prompt.js';
import type { EvalRequest, FunctionCall } from '../src/types.js';
import { testSkill } from './support/fixtures.js';

const root = path.resolve(__dirname, '..');
const FIXTURE = path.join(root, 'fixtures/hosts/catalogue');

const skill = testSkill;

const call = (name: string, args: Record<string, unknown>): FunctionCall => ({ id: 'c1', name, args });

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'skillbench-hosts-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function userError(p: Promise<unknown>): Promise<UserError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof UserError) return err;
    throw err;
  }
  throw new Error('expected a UserError');
}

async function profileError(data: unknown, ext = 'json'): Promise<UserError> {
  const file = path.join(dir, `p-${Math.random().toString(36).slice(2)}.${ext}`);
  await writeFile(file, typeof data === 'string' ? data : JSON.stringify(data));
  return userError(resolveHost({ host: file }));
}

describe('built-in profiles', () => {
  it('are the files of data/hosts, each valid, with dated public sources (generic excepted)', () => {
    const files = readdirSync(path.join(root, 'data/hosts')).map((f) => f.replace(/\.json$/, '')).sort();
    expect(builtinHostNames()).toEqual(files);
    expect(files).toEqual(['adk', 'claude-code', 'claude-code-2.0', 'codex', 'gemini-cli', 'generic', 'hermes']);
    // The help text lists them without reading the folder (commands load nothing heavy for --help).
    expect(HOST_NAMES_HELP.split(', ').sort()).toEqual(files);
    for (const name of files) {
      const p = loadBuiltin(name);
      expect(p.name).toBe(name);
      if (name !== 'generic') {
        expect(p.sources.length).toBeGreaterThan(0);
        for (const s of p.sources) expect(s).toMatchObject({ url: expect.stringMatching(/^https:\/\//), read: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
      }
    }
  });

  it('carry the mechanics of each host', () => {
    const m = (name: string) => {
      const p = loadBuiltin(name);
      const tool = p.loading.kind === 'tool' ? `${p.loading.tool.name}(${p.loading.tool.argument}${p.loading.tool.enum ? ' enum' : ''})` : `${p.loading.tool.name}[${p.loading.argument}] file-read`;
      return `${p.catalogue.placement} ${tool} budget=${p.catalogue.listing.budget?.chars ?? '-'} cut=${p.catalogue.listing.cut?.chars ?? '-'}`;
    };
    expect(m('generic')).toBe('system activate_skill(name enum) budget=- cut=-');
    expect(m('claude-code')).toBe('user-message Skill(skill) budget=8000 cut=1536');
    expect(m('claude-code-2.0')).toBe('tool-description Skill(command) budget=15000 cut=-');
    expect(m('gemini-cli')).toBe('system activate_skill(name enum) budget=- cut=-');
    expect(m('hermes')).toBe('system skill_view(name) budget=- cut=60');
    expect(m('codex')).toBe('user-message shell[command] file-read budget=- cut=-');
    expect(m('adk')).toBe('system load_skill(name) budget=- cut=-');
    expect(loadBuiltin('claude-code').catalogue.listing.budget!.overflow.map((s) => s.step)).toEqual(['shorten', 'names-only']);
    expect(loadBuiltin('claude-code-2.0').catalogue.listing.budget!.overflow.map((s) => s.step)).toEqual(['drop']);
    expect(loadBuiltin('claude-code').catalogue.listing.fields).toEqual(['description', 'when_to_use']);
  });
});

describe('a user profile file', () => {
  it('reads JSON and YAML, and `extends` merges over a built-in (objects by key, lists replaced)', async () => {
    const yaml = path.join(dir, 'in-house.yaml');
    await writeFile(
      yaml,
      [
        'name: in-house',
        'title: Our support agent',
        'system: You answer our customers.',
        'catalogue:',
        '  placement: system',
        '  preamble: "Tools of the trade:\\n"',
        '  listing:',
        '    entry: "* {name} -- {description}"',
        '    budget: { chars: 120, overflow: [{ step: names-only }] }',
        'loading:',
        '  kind: tool',
        '  tool: { name: open_playbook, argument: playbook, enum: true }',
      ].join('\n'),
    );
    const h = await resolveHost({ host: yaml });
    expect(h).toMatchObject({ name: 'in-house', origin: yaml, system: 'You answer our customers.' });
    const frame = hostFrame(h, [skill('b', 'Second skill described at some length here.'), skill('a', 'First.')]);
    expect(frame.system[0]!.text).toBe('You answer our customers.\n\nTools of the trade:\n* a -- First.\n* b -- Second skill described at some length here.');
    expect(frame.tools[0]!.parameters).toEqual({ type: 'object', properties: { playbook: { type: 'string', enum: ['a', 'b'] } }, required: ['playbook'] });

    const ext = path.join(dir, 'ext.json');
    await writeFile(ext, JSON.stringify({ extends: 'claude-code', name: 'claude-code-1m', catalogue: { listing: { budget: { chars: 40000, overflow: [{ step: 'drop' }] } } } }));
    const e = await resolveHost({ host: ext });
    expect(e.name).toBe('claude-code-1m');
    expect(e.loading).toEqual(loadBuiltin('claude-code').loading);
    expect(e.catalogue.listing.budget).toEqual({ chars: 40000, overflow: [{ step: 'drop' }] });
    expect(e.catalogue.listing.cut).toEqual({ chars: 1536, marker: '…' });
  });

  it('names the field and the fix for every mistake', async () => {
    const base = { name: 'x', catalogue: { placement: 'system', listing: { format: 'lines' } }, loading: { kind: 'tool', tool: { name: 'load' } } };
    const cases: [unknown, RegExp][] = [
      [[1], /must be a JSON or YAML object/],
      [{ ...base, catalog: {} }, /field "catalog" is not a host profile field/],
      [{ ...base, name: 'Bad Name' }, /field "name" must be lowercase/],
      [{ ...base, catalogue: { ...base.catalogue, placement: 'footer' } }, /field "catalogue.placement" must be one of system, tool-description, user-message/],
      [{ ...base, catalogue: { placement: 'system', listing: {} } }, /field "catalogue.listing.entry" is missing/],
      [{ ...base, catalogue: { placement: 'system', listing: { entry: '- {description}' } } }, /must contain \{name\}/],
      [{ ...base, catalogue: { placement: 'system', listing: { format: 'lines', budget: { chars: 0 } } } }, /field "catalogue.listing.budget.chars" must be a whole number >= 1/],
      [{ ...base, catalogue: { placement: 'system', listing: { format: 'lines', budget: { chars: 10, overflow: [{ step: 'squeeze' }] } } } }, /overflow\[0\]\.step" must be one of shorten, names-only, drop/],
      [{ ...base, catalogue: { placement: 'system', listing: { format: 'lines', cut: { chars: 2, marker: '...' } } } }, /cut.marker" is as long as the cut/],
      [{ ...base, loading: { kind: 'tool', tool: { name: 'has space' } } }, /field "loading.tool.name" must be a tool name/],
      [{ ...base, loading: { kind: 'read' } }, /field "loading.kind" must be one of tool, file-read/],
      [{ ...base, loading: { kind: 'file-read', tool: { name: 'read', parameters: { type: 'object', properties: { file: { type: 'string' } } } }, argument: 'path' } }, /"loading.argument" names "path", which is not a property/],
      [{ ...base, catalogue: { ...base.catalogue, placement: 'tool-description' }, loading: { kind: 'file-read', tool: { name: 'read', parameters: { type: 'object', properties: { path: {} } } }, argument: 'path' } }, /no skill tool to describe/],
      [{ ...base, tools: [{ name: 'load', parameters: { type: 'object' } }] }, /field "tools\[0\].name" declares "load" twice/],
      [{ ...base, tools: [{ name: 'x', parameters: { type: 'array' } }] }, /field "tools\[0\].parameters.type" must be "object"/],
      [{ ...base, extends: 'cursor' }, /field "extends" must be one of adk, claude-code/],
      [{ ...base, sources: [{ url: 'https://x', what: 'y', read: 'yesterday' }] }, /sources\[0\]\.read" must be a date YYYY-MM-DD/],
    ];
    for (const [data, expected] of cases) {
      const err = await profileError(data);
      expect(err.message).toMatch(expected);
      expect(err.fix).toBeTruthy();
    }
    expect((await profileError('name: [unclosed', 'yaml')).message).toMatch(/not valid YAML/);
    expect((await profileError('{"name": ', 'json')).message).toMatch(/not valid JSON/);
    const missing = await userError(resolveHost({ host: 'claude-cod' }));
    expect(missing.message).toMatch(/no built-in host of that name/);
    expect(missing.fix).toMatch(/claude-code/);
  });

  it('--format only shapes the generic host; --system-prompt replaces the system text; --listing-budget the budget', async () => {
    expect((await userError(resolveHost({ host: 'hermes', format: 'xml' }))).message).toMatch(/lists skills its own way/);
    const sys = path.join(dir, 'system.txt');
    await writeFile(sys, 'Our exact words.\n');
    const h = await resolveHost({ host: 'codex', systemPrompt: sys, listingBudget: 300 });
    expect(h).toMatchObject({ system: 'Our exact words.', systemFrom: sys, budgetFrom: 'option' });
    expect(h.catalogue.listing.budget).toEqual({ chars: 300, overflow: [{ step: 'drop' }] });
    await writeFile(path.join(dir, 'empty.txt'), ' \n');
    expect((await userError(resolveHost({ systemPrompt: path.join(dir, 'empty.txt') }))).message).toMatch(/the file is empty/);
  });
});

describe('the listing engine', () => {
  const skills = [skill('b-skill', 'Second & last <one>'), skill('a-skill', 'First "quoted" it\'s')];

  it('renders skillbench\'s presets exactly as the catalogue renderer does (one engine)', () => {
    for (const format of ['lines', 'xml', 'hermes', 'markdown'] as const) {
      expect(hostFrame(genericHost(format), skills).listing.text).toBe(renderCatalogue(skills, format));
    }
    expect(renderCatalogue(skills, 'lines')).toBe('a-skill: First "quoted" it\'s\nb-skill: Second & last <one>');
  });

  it('escapes as the host does: xml, html (Python html.escape), angle brackets only, or not at all', () => {
    const spec = (escape: ListingSpec['escape']): ListingSpec => ({ ...genericHost('lines').catalogue.listing, escape });
    const text = (escape: ListingSpec['escape']) => renderListing([skill('a', `<b> & "c" 'd'`)], spec(escape)).text;
    expect(text('none')).toBe(`a: <b> & "c" 'd'`);
    expect(text('xml')).toBe('a: &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;');
    expect(text('html')).toBe('a: &lt;b&gt; &amp; &quot;c&quot; &#x27;d&#x27;');
    expect(text('angle')).toBe(`a: &lt;b&gt; & "c" 'd'`);
  });

  it('cuts descriptions on code points and joins the fields the host reads', () => {
    expect(cutText('abcdef', 4, '…')).toBe('abc…');
    expect(cutText('abc', 4, '…')).toBe('abc');
    expect(cutText('😀😀😀😀😀', 3, '.')).toBe('😀😀.');
    expect(charCount('😀a')).toBe(2);
    const s = skill('a', 'Does A.', { frontmatter: { name: 'a', description: 'Does A.', when_to_use: 'When A\nis asked.' } });
    const listing = renderListing([s], loadBuiltin('claude-code').catalogue.listing);
    expect(listing.text).toBe('- a: Does A. When A is asked.');
  });

  const long = (name: string, n: number) => skill(name, `${name} `.repeat(n).trim());
  const cat = [long('alpha', 30), long('bravo', 30), long('charlie', 30), long('delta', 30)];
  const withBudget = (chars: number, overflow: NonNullable<ListingSpec['budget']>['overflow']): ListingSpec => ({
    ...genericHost('lines').catalogue.listing,
    budget: { chars, overflow },
  });

  it('fits without a step when under budget', () => {
    const l = renderListing(cat, withBudget(100_000, [{ step: 'drop' }]));
    expect(l.budget).toEqual({ chars: 100_000, step: 'fits', over: false });
    expect(l.entries.every((e) => e.status === 'full')).toBe(true);
  });

  it('shorten: every description cut to the longest length that fits, never below minChars', () => {
    const l = renderListing(cat, withBudget(400, [{ step: 'shorten', minChars: 20, marker: '…' }]));
    expect(l.chars).toBeLessThanOrEqual(400);
    expect(l.budget!.step).toBe('shorten');
    const to = l.budget!.shortenedTo!;
    // One character more and it would not fit.
    const oneMore = renderListing(cat, withBudget(400, [{ step: 'shorten', minChars: to + 1, marker: '…' }]));
    expect(oneMore.chars).toBeGreaterThan(400);
    expect(l.entries.map((e) => [e.status, e.shownChars])).toEqual(cat.map(() => ['shortened', to]));
    expect(l.text.split('\n')[0]).toBe(`alpha: ${cutText(cat[0]!.description, to, '…')}`);
  });

  it('steps are tried in order, each on the full listing; the first that fits wins', () => {
    // shorten cannot fit 4 skills at 100 characters each into 200: names only from the end of the listing.
    const l = renderListing(cat, withBudget(230, [{ step: 'shorten', minChars: 100 }, { step: 'names-only' }]));
    expect(l.budget!.step).toBe('names-only');
    expect(l.entries.map((e) => e.status)).toEqual(['full', 'name-only', 'name-only', 'name-only']);
    expect(l.text).toBe(`alpha: ${cat[0]!.description}\nbravo\ncharlie\ndelta`);
    expect(l.chars).toBeLessThanOrEqual(230);
    const d = renderListing(cat, withBudget(400, [{ step: 'drop' }]));
    expect(d.entries.map((e) => e.status)).toEqual(['full', 'full', 'dropped', 'dropped']);
    expect(d.text).not.toContain('charlie');
    // Nothing fits: the last step's result, marked over.
    const o = renderListing(cat, withBudget(10, [{ step: 'names-only' }]));
    expect(o.budget).toMatchObject({ step: 'names-only', over: true });
    expect(o.entries.every((e) => e.status === 'name-only')).toBe(true);
  });

  it('names what each command must say: dropped, names only, shortened, cut; and the requests that miss them', () => {
    const host: Host = { ...genericHost(), budgetFrom: 'option' };
    const l = renderListing(cat, withBudget(400, [{ step: 'drop' }]));
    const s = listingSummary(host, l);
    expect(s).toMatchObject({ dropped: ['charlie', 'delta'], namesOnly: [], shortened: [], budget: { chars: 400, from: '--listing-budget', step: 'drop', over: false } });
    const requests: EvalRequest[] = [
      { id: 'r1', text: 'x', gold: 'charlie' },
      { id: 'r2', text: 'y', gold: 'alpha' },
      { id: 'r3', text: 'z', gold: null },
    ];
    expect(visibility(requests, s).invisible.map((r) => r.id)).toEqual(['r1']);
    const hermes = listingSummary({ ...loadBuiltin('hermes'), origin: 'built-in' }, renderListing(cat, loadBuiltin('hermes').catalogue.listing));
    expect(hermes.cut).toEqual(['alpha', 'bravo', 'charlie', 'delta']);
    expect(hermes.cutChars).toBe(60);
  });

  it('validate --host: one warning naming the costliest descriptions, one per skill that loses its description', async () => {
    const catalogue = await loadCatalogue(path.join(root, 'skills'));
    const host = await resolveHost({ host: 'claude-code', listingBudget: 300 });
    const listing = hostFrame(host, catalogue.skills).listing;
    const problems = budgetProblems(host, listing, catalogue.skills, catalogue.source);
    const costliest = [...catalogue.skills].sort((a, b) => b.description.length - a.description.length)[0]!;
    expect(problems[0]!.message).toMatch(/the claude-code listing is [\d,]+ characters, [\d,]+ over its 300-character budget \(--listing-budget\)/);
    expect(problems[0]!.message).toContain(`The costliest descriptions: ${costliest.name}`);
    expect(problems.slice(1).map((p) => p.message)).toEqual(listing.entries.filter((e) => e.status === 'name-only').map((e) => `skill "${e.name}" is listed by name only by claude-code (over its budget): the model does not see its description`));
    expect(problems.slice(1)[0]!.file).toMatch(/SKILL\.md$/);
    expect(budgetProblems(await resolveHost({ host: 'claude-code' }), hostFrame(await resolveHost({ host: 'claude-code' }), catalogue.skills).listing, catalogue.skills, catalogue.source)).toEqual([]);
  });
});

describe('what counts as a load', () => {
  const skills = [skill('pdf', 'P'), skill('notes', 'N', { category: 'office', location: 'office/notes/SKILL.md' }), skill('other-pdf', 'O')];
  const host = (name: string): Host => ({ ...loadBuiltin(name), origin: 'built-in' });

  it('a skill tool: the argument names a skill (category/name where the host accepts it), else a wrong load', () => {
    expect(readCall(host('claude-code'), call('Skill', { skill: ' pdf ' }), skills)).toEqual({ kind: 'load', skill: 'pdf' });
    expect(readCall(host('claude-code'), call('Skill', { skill: 'pdf-splitter' }), skills)).toEqual({ kind: 'unknown', asked: 'pdf-splitter' });
    expect(readCall(host('claude-code'), call('Skill', { name: 'pdf' }), skills)).toEqual({ kind: 'unknown', asked: 'null' });
    expect(readCall(host('hermes'), call('skill_view', { name: 'office/notes' }), skills)).toEqual({ kind: 'load', skill: 'notes' });
    expect(readCall(host('claude-code'), call('Skill', { skill: 'office/notes' }), skills)).toEqual({ kind: 'unknown', asked: 'office/notes' });
    expect(readCall(host('adk'), call('list_skills', {}), skills)).toEqual({ kind: 'other' });
  });

  it('a file read: the path or command names a listed SKILL.md, whole path components only', () => {
    const codex = host('codex');
    const argv = (cmd: string) => call('shell', { command: ['bash', '-lc', cmd] });
    expect(readCall(codex, argv('cat ~/.codex/skills/pdf/SKILL.md'), skills)).toEqual({ kind: 'load', skill: 'pdf' });
    expect(readCall(codex, argv("sed -n '1,200p' '/home/me/.codex/skills/office/notes/SKILL.md'"), skills)).toEqual({ kind: 'load', skill: 'notes' });
    expect(readCall(codex, call('shell', { command: 'cat other-pdf/SKILL.md' }), skills)).toEqual({ kind: 'load', skill: 'other-pdf' });
    expect(readCall(codex, argv('cat ~/.codex/skills/zip/SKILL.md'), skills)).toEqual({ kind: 'unknown', asked: '~/.codex/skills/zip/SKILL.md' });
    expect(readCall(codex, argv('ls ~/.codex/skills'), skills)).toEqual({ kind: 'other' });
    expect(skillMdIn('cat xother-pdf/SKILL.md', skills, '')).toBeNull();
    expect(skillMdIn('head pdf/SKILL.md; cat other-pdf/SKILL.md', skills, '')).toBe('pdf');
  });

  it('the first load decides; calls that load nothing are undecided; no call is none', () => {
    const codex = host('codex');
    expect(readDecision(codex, [], skills)).toEqual({ kind: 'none' });
    expect(readDecision(codex, [call('shell', { command: ['ls'] })], skills)).toMatchObject({ kind: 'undecided' });
    expect(readDecision(codex, [call('shell', { command: ['ls'] }), call('shell', { command: ['cat', 'pdf/SKILL.md'] })], skills)).toEqual({ kind: 'load', skill: 'pdf' });
  });
});

describe('a host\'s first turn', () => {
  it('puts the catalogue where the host does and the loading tool first', () => {
    const skills = [skill('a', 'Does A.'), skill('b', 'Does B.')];
    const f = (name: string) => hostFrame({ ...loadBuiltin(name), origin: 'built-in' }, skills).request('do A');
    const cc = f('claude-code');
    expect(cc.messages[0]).toEqual({ role: 'user', content: '<system-reminder>\nSkills you can invoke with the Skill tool:\n\n- a: Does A.\n- b: Does B.\n</system-reminder>\n\ndo A' });
    expect(cc.tools[0]!.parameters).toEqual({
      type: 'object',
      properties: { skill: { type: 'string', description: 'The skill name, e.g. "pdf".' }, args: { type: 'string', description: 'Optional arguments for the skill.' } },
      required: ['skill'],
    });
    const old = f('claude-code-2.0');
    expect(old.messages[0]).toEqual({ role: 'user', content: 'do A' });
    expect(old.tools[0]!.description).toContain('<available_skills>\n<skill>\n<name>\na\n</name>');
    const gem = f('gemini-cli');
    expect(gem.tools[0]!.description).toContain("(Available: 'a', 'b')");
    expect(gem.system[0]!.text).toContain('  <skill>\n    <name>a</name>\n    <description>Does A.</description>\n    <location>.gemini/skills/a/SKILL.md</location>\n  </skill>');
    expect(f('adk').tools.map((t) => t.name)).toEqual(['load_skill', 'list_skills', 'load_skill_resource', 'execute_skill_script']);
  });

  it('the generic host costs at most 1.1 times the bare minimum on the bundled catalogue', async () => {
    const catalogue = await loadCatalogue(path.join(root, 'skills'));
    const request = 'Can you check my expense report for last week?';
    const tokens = decisionTokens(hostFrame(genericHost(), catalogue.skills).request(request)).total;
    const bare = bareMinimumTokens(catalogue.skills, request);
    expect(tokens / bare).toBeLessThanOrEqual(1.1);
    // The skills-ref form stays available, and costs more.
    expect(decisionTokens(hostFrame(genericHost('xml'), catalogue.skills).request(request)).total / bare).toBeGreaterThan(1.1);
  });
});

const METATOOL = path.resolve(root, '../shared/data/metatool');
describe.skipIf(!existsSync(path.join(METATOOL, 'tools.json')))('MetaTool (199 tools; skipped when ../shared/data/metatool is absent)', () => {
  it('the generic host costs at most 1.1 times the bare minimum; claude-code\'s budget keeps every name', async () => {
    const catalogue = await loadCatalogue(path.join(METATOOL, 'tools.json'));
    const requests = (JSON.parse(readFileSync(path.join(METATOOL, 'requests.json'), 'utf8')) as { text: string }[]).slice(0, 40);
    const frame = hostFrame(genericHost(), catalogue.skills);
    const tokens = requests.reduce((n, r) => n + decisionTokens(frame.request(r.text)).total, 0);
    const bare = requests.reduce((n, r) => n + bareMinimumTokens(catalogue.skills, r.text), 0);
    expect(tokens / bare).toBeLessThanOrEqual(1.1);
    const cc = hostFrame(await resolveHost({ host: 'claude-code' }), catalogue.skills);
    expect(cc.listing.chars).toBeLessThanOrEqual(8000);
    expect(cc.listing.entries.filter((e) => e.status === 'dropped')).toEqual([]);
    expect(cc.listing.entries.filter((e) => e.status === 'name-only').length).toBeGreaterThan(0);
  });
});

describe('the agent loop serves a host\'s load', () => {
  it('a file read of a listed SKILL.md activates it and returns the file; other commands are refused', async () => {
    const catalogue = await loadCatalogue(FIXTURE);
    const codex = await resolveHost({ host: 'codex' });
    const loader = new SkillLoader(catalogue, { host: hostFrame(codex, catalogue.skills) });
    expect(loader.tools().map((t) => t.name)).toEqual(['shell', 'read_skill_file', 'run_skill_script']);
    const r = await loader.execute(call('shell', { command: ['bash', '-lc', 'cat ~/.codex/skills/notes/meeting-notes/SKILL.md'] }));
    expect(r.level).toBe('body');
    expect(r.result.content).toMatch(/^---\nname: meeting-notes\n/);
    expect(loader.activated).toEqual(['meeting-notes']);
    const ls = await loader.execute(call('shell', { command: ['ls', '-la'] }));
    expect(ls).toMatchObject({ level: 'error', result: { isError: true } });
    expect(ls.result.content).toMatch(/simulates only reading a listed SKILL\.md/);
    const hermes = new SkillLoader(catalogue, { host: hostFrame(await resolveHost({ host: 'hermes' }), catalogue.skills) });
    expect((await hermes.execute(call('skill_view', { name: 'notes/meeting-notes' }))).result.content).toMatch(/^<skill_content name="meeting-notes"/);
    expect((await hermes.execute(call('skill_view', { name: 'zip' }))).result.content).toBe('Error: unknown skill "zip"');
  });
});

describe('the results file keeps the host', () => {
  it('is validated on read: a broken host summary is bad input naming the field', async () => {
    const { validateResults } = await import('../src/results.js');
    const base = {
      schema: 'skillbench.results', version: 1, command: 'eval-trigger', createdAt: 'x', skillbenchVersion: '0', settings: {},
      catalogue: { source: 's', skills: [] }, requests: [], runs: [],
    };
    const host = { name: 'claude-code', title: 'Claude Code', origin: 'built-in', placement: 'user-message', loading: 'Skill(skill: free string)',
      listing: { chars: 10, fullChars: 20, budget: { chars: 15, from: 'profile', step: 'shorten', over: false }, dropped: [], namesOnly: [], shortened: ['a'], cut: [] } };
    expect(validateResults({ ...base, host }, 'r.json').host).toEqual(host);
    expect(() => validateResults({ ...base, host: { ...host, listing: { ...host.listing, dropped: 'a' } } }, 'r.json')).toThrow(/field "host.listing.dropped" must be an array of skill names/);
    expect(() => validateResults({ ...base, host: { ...host, placement: 3 } }, 'r.json')).toThrow(/field "host.placement" must be a string/);
  });
});

describe('--host on every command that builds a prompt', () => {
  it.each(['eval-trigger', 'e2e', 'eval-quality', 'suggest', 'tokens', 'validate', 'prompt'])('%s --help offers --host and --listing-budget', async (cmd) => {
    const { runCli } = await import('./support/cli.js');
    const r = await runCli([cmd, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--host <name\|file>/);
    expect(r.stdout).toMatch(/--listing-budget <chars>/);
    if (cmd !== 'validate') expect(r.stdout).toMatch(/--system-prompt <file>/);
  });
});

describe('tokens and validate with --host', () => {
  it('tokens --host: that host\'s listing as level 1, its tools, the listing notes and one decision against the bare minimum', async () => {
    const { runCli } = await import('./support/cli.js');
    const j = await runCli(['tokens', '--skills', 'skills', '--host', 'claude-code', '--listing-budget', '500', '--json'], { cwd: root });
    expect(j.code).toBe(0);
    const a = JSON.parse(j.stdout);
    expect(a).toMatchObject({ host: 'claude-code', format: 'template', listing: { budget: { chars: 500, from: '--listing-budget', step: 'names-only' } } });
    expect(a.listing.namesOnly).toHaveLength(6);
    expect(a.decision.ratio).toBe(Math.round((a.decision.tokens / a.decision.bareMinimum) * 100) / 100);
    const t = await runCli(['tokens', '--skills', 'skills', '--host', 'claude-code', '--listing-budget', '500'], { cwd: root });
    expect(t.stdout).toMatch(/^Token audit of skills, host claude-code, catalogue format template: estimate/);
    expect(t.stdout).toContain('listed by name only (no description): csv-data-profiler, expense-report-checker');
    expect(t.stdout).toMatch(/ratio decision \/ bare minimum\s+│\s+\d\.\d\dx/);
  });

  it('validate --host: warnings, exit 0 (a budget is no spec error); no --host, no budget check', async () => {
    const { runCli } = await import('./support/cli.js');
    const r = await runCli(['validate', 'skills', '--host', 'claude-code-2.0', '--listing-budget', '1600'], { cwd: root });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^skills:1: warning SB025 listing-over-host-budget: the claude-code-2\.0 listing is [\d,]+ characters, [\d,]+ over its 1,600-character budget \(--listing-budget\): \d skills dropped\./m);
    expect(r.stdout).toMatch(/ticket-triage\/SKILL\.md:\d+: warning SB025 listing-over-host-budget: skill "ticket-triage" is left out of the claude-code-2\.0 listing/);
    const plain = await runCli(['validate', 'skills'], { cwd: root });
    expect(plain.stdout).not.toMatch(/listing is/);
    // The budget warnings follow --strict (an error, exit 1) and --rule (switched off) like every rule.
    const strict = await runCli(['validate', 'skills', '--host', 'claude-code-2.0', '--listing-budget', '1600', '--strict'], { cwd: root });
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/^skills:1: error SB025 listing-over-host-budget:/m);
    const off = await runCli(['validate', 'skills', '--host', 'claude-code-2.0', '--listing-budget', '1600', '--rule', 'SB025=off'], { cwd: root });
    expect(off.stdout).not.toMatch(/SB025/);
  });
});
