// The JSON Schemas published in schemas/ (for editors and other tools) say what skillbench itself accepts: every
// file skillbench writes or ships passes them, and the bad files its readers refuse are refused by them too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import matter from 'gray-matter';
import { runCli } from './support/cli.js';
import { validateResults } from '../src/results.js';
import { loadRequests } from '../src/requests.js';
import { UserError } from '../src/errors.js';
import { validateProfile } from '../src/hosts/schema.js';
import { DESCRIPTION_FIELDS, ESCAPES, LISTING_PRESETS, NAME_FORMS, OVERFLOW_STEPS, PLACEMENTS, builtinHostNames, resolveHost } from '../src/hosts/profile.js';

const root = path.resolve(import.meta.dirname, '..');
const METATOOL = path.resolve(root, '../shared/data/metatool');
const Ajv = createRequire(import.meta.url)('ajv') as new (o: object) => { compile: (s: object) => ((d: unknown) => boolean) & { errors?: unknown[] } };
const schema = (name: string) => JSON.parse(readFileSync(path.join(root, 'schemas', name), 'utf8')) as object;
const compile = (name: string) => new Ajv({ strict: true, allowUnionTypes: true, allErrors: true }).compile(schema(name));
const json = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as unknown;

describe('schemas/', () => {
  it('holds draft-07 schemas that compile in strict mode', () => {
    const files = readdirSync(path.join(root, 'schemas')).sort();
    expect(files).toEqual(['config.schema.json', 'host.schema.json', 'requests.schema.json', 'results.schema.json']);
    for (const f of files) {
      expect((schema(f) as { $schema: string }).$schema).toBe('http://json-schema.org/draft-07/schema#');
      expect(() => compile(f), f).not.toThrow();
    }
  });
});

describe('results.schema.json', () => {
  const valid = compile('results.schema.json');

  it('accepts the results files skillbench writes and ships', async () => {
    for (const f of ['demo-results.json', 'quality-results.json']) expect(valid(json(path.join(root, 'fixtures', 'results', f))), f).toBe(true);
    const dir = mkdtempSync(path.join(tmpdir(), 'skillbench-schemas-'));
    try {
      const out = path.join(dir, 'results.json');
      const r = await runCli(['eval-trigger', '--no-progress', '--selectors', 'keyword,explicit', '--cache-dir', path.join(dir, 'cache'), '-o', out]);
      expect(r.code).toBe(0);
      expect(valid(json(out)), JSON.stringify(valid.errors)).toBe(true);
      // The fused selector's fitted decision, cross-validated thresholds, a host and the language guesses.
      const fused = path.join(dir, 'fused.json');
      const f = await runCli(['eval-trigger', '--no-progress', '--selectors', 'fused,keyword', '--host', 'claude-code', '--cache-dir', path.join(dir, 'cache'), '-o', fused]);
      expect(f.code, f.stderr).toBe(0);
      const written = json(fused) as { runs: { fit?: unknown; threshold?: { source: string } }[]; host?: unknown; languages?: unknown };
      expect(written.runs.some((r) => r.fit) && written.runs.some((r) => r.threshold?.source === 'cross-validated')).toBe(true);
      expect(written.host && written.languages).toBeTruthy();
      expect(valid(written), JSON.stringify(valid.errors)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses what the results reader refuses', () => {
    const demo = () => json(path.join(root, 'fixtures', 'results', 'demo-results.json')) as Record<string, unknown> & { runs: Record<string, unknown>[] };
    const broken: [string, (d: ReturnType<typeof demo>) => void][] = [
      ['no runs', (d) => delete (d as Record<string, unknown>).runs],
      ['another schema', (d) => (d.schema = 'other')],
      ['version 3', (d) => (d.version = 3)],
      ['a selector kind', (d) => (d.runs[0]!.kind = 'vote')],
      ['a negative run index', (d) => ((d.runs[0]!.decisions as Record<string, unknown>[])[0]!.run = -1)],
      ['a chosen number', (d) => ((d.runs[0]!.decisions as Record<string, unknown>[])[0]!.chosen = 3)],
      ['a threshold source', (d) => (d.runs.find((r) => r.threshold)!.threshold = { value: 0.5, source: 'guessed' })],
    ];
    for (const [what, mutate] of broken) {
      const d = demo();
      mutate(d);
      expect(valid(d), what).toBe(false);
      expect(() => validateResults(d, 'x.json'), what).toThrow();
    }
  });
});

describe('requests.schema.json', () => {
  const valid = compile('requests.schema.json');

  it('accepts the shipped request sets, both formats and the {"requests": [...]} wrapper', () => {
    expect(valid(json(path.join(root, 'requests.json')))).toBe(true);
    expect(valid(json(path.join(root, 'fixtures', 'suggest', 'requests.json')))).toBe(true);
    expect(valid([{ query: 'fill this PDF form', should_trigger: true }, { query: 'what time is it', should_trigger: false }])).toBe(true);
    expect(valid({ requests: [{ text: 'hello', gold: null, candidates: ['pdf', 'csv'] }] })).toBe(true);
    expect(valid([{ prompt: 'fill this PDF form', should_trigger: true }])).toBe(true);
    expect(valid({ skill_name: 'pdf', evals: [{ query: 'fill this PDF form', should_trigger: true }] })).toBe(true);
    expect(valid({ skill_name: 'pdf', queries: [{ query: 'merge PDFs', should_trigger: true }] })).toBe(true);
  });

  it.skipIf(!existsSync(METATOOL))('accepts the MetaTool request sets', () => {
    for (const f of ['requests.json', 'requests_reliability.json']) expect(valid(json(path.join(METATOOL, f))), f).toBe(true);
  });

  it('refuses what the request reader refuses', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'skillbench-schemas-'));
    try {
      const bad: [string, unknown][] = [
        ['empty list', []],
        ['no gold', [{ text: 'hello' }]],
        ['empty text', [{ text: '  ', gold: null }]],
        ['a kind', [{ text: 'hello', gold: null, kind: 'maybe' }]],
        ['formats mixed', [{ query: 'a', should_trigger: true }, { text: 'b', gold: null }]],
        ['should_trigger not a boolean', [{ query: 'a', should_trigger: 'yes' }]],
        ['query and prompt both', [{ query: 'a', prompt: 'b', should_trigger: true }]],
        ['not a list', { items: [] }],
      ];
      for (const [what, data] of bad) {
        expect(valid(data), what).toBe(false);
        const file = path.join(dir, 'r.json');
        writeFileSync(file, JSON.stringify(data));
        await expect(loadRequests(file, { skill: 'pdf' }), what).rejects.toThrow();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('host.schema.json', () => {
  const valid = compile('host.schema.json');
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  type Profile = Record<string, any>; // mutated freely by the broken-profile cases
  const hostsDir = path.join(root, 'data', 'hosts');
  const builtin = (name: string) => json(path.join(hostsDir, `${name}.json`)) as Profile;
  const checked = (d: unknown): true | string => {
    try {
      validateProfile(d, 'x.json');
      return true;
    } catch (err) {
      if (err instanceof UserError) return err.message;
      throw err;
    }
  };
  // The YAML reader of user profiles (gray-matter's js-yaml safe loader), so a YAML example is checked as --host reads it.
  const yaml = (text: string) => (matter as unknown as { engines: { yaml: { parse: (s: string) => unknown } } }).engines.yaml.parse(text);
  let dir: string;
  beforeAll(() => void (dir = mkdtempSync(path.join(tmpdir(), 'skillbench-host-schema-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const hostFile = async (name: string, data: unknown): Promise<true | string> => {
    const file = path.join(dir, name);
    writeFileSync(file, JSON.stringify(data));
    try {
      await resolveHost({ host: file });
      return true;
    } catch (err) {
      if (err instanceof UserError) return err.message;
      throw err;
    }
  };

  it('accepts every built-in profile, and each points at it', () => {
    const files = readdirSync(hostsDir).filter((f) => f.endsWith('.json'));
    expect(files.map((f) => f.slice(0, -'.json'.length)).sort()).toEqual(builtinHostNames());
    for (const f of files) {
      const d = json(path.join(hostsDir, f)) as Profile;
      expect(d.$schema, f).toBe('../../schemas/host.schema.json');
      expect(path.resolve(hostsDir, d.$schema as string)).toBe(path.join(root, 'schemas', 'host.schema.json'));
      expect(valid(d), `${f}: ${JSON.stringify(valid.errors)}`).toBe(true);
    }
  });

  it('has the enums of the profile format and the built-in names', () => {
    const s = schema('host.schema.json') as Profile;
    const defs = s.definitions as Profile;
    expect(defs.catalogue.properties.placement.enum).toEqual([...PLACEMENTS]);
    expect(defs.listing.properties.format.enum).toEqual([...LISTING_PRESETS]);
    expect(defs.listing.properties.escape.enum).toEqual([...ESCAPES]);
    expect(defs.listing.properties.fields.items.enum).toEqual([...DESCRIPTION_FIELDS]);
    expect(defs.toolLoading.properties.accept.items.enum).toEqual([...NAME_FORMS]);
    const steps = (defs.overflowStep.oneOf as Profile[]).flatMap((b) => b.properties.step.const ?? b.properties.step.enum);
    expect(steps.sort()).toEqual([...OVERFLOW_STEPS].sort());
    expect(s.properties.extends.enum).toEqual(builtinHostNames());
  });

  it('accepts the profiles of docs/hosts.md, as --host reads them', async () => {
    const doc = readFileSync(path.join(root, 'docs', 'hosts.md'), 'utf8');
    const own = doc.slice(doc.indexOf('## Write a profile for your own agent'));
    const blocks = [...own.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBe(2);
    for (const [i, text] of blocks.entries()) {
      const data = yaml(text);
      expect(valid(data), `example ${i + 1}: ${JSON.stringify(valid.errors)}`).toBe(true);
      const file = path.join(dir, `example-${i + 1}.yaml`);
      writeFileSync(file, text);
      await expect(resolveHost({ host: file })).resolves.toBeTruthy();
    }
  });

  it('accepts the optional forms the checker accepts', () => {
    const variants: [string, Profile][] = [
      ['the least a profile gives', { name: 'min', catalogue: { placement: 'system', listing: { entry: '{name}' } }, loading: { kind: 'tool', tool: { name: 'load' } } }],
      ['nulls for no group, cut, budget and the default overflow', { ...builtin('generic'), catalogue: { placement: 'system', listing: { format: 'markdown', group: null, cut: null, budget: { chars: 500, overflow: null } } } }],
      ['a grouped listing with every field', { ...builtin('generic'), catalogue: { placement: 'user-message', preamble: '', footer: '', listing: { open: '<s>', close: '</s>', entry: '- {name}: {description}', nameOnlyEntry: '- {name}', group: { header: '{category}:', defaultCategory: 'misc', when: 'categorised', gap: true, sort: 'folder' }, escape: 'xml', flatten: false, fields: ['when_to_use', 'description'], fieldSeparator: ' | ', pathRoot: 'skills/', cut: { chars: 4, marker: '…' }, budget: { chars: 1, overflow: [{ step: 'shorten' }, { step: 'shorten', minChars: 1, marker: '' }, { step: 'drop' }] } } } }],
      ['a skill tool with extra arguments', { ...builtin('claude-code'), loading: { kind: 'tool', tool: { name: 'ns:load.skill-1', argument: 'id', extraProperties: { name: { type: 'string' } } }, accept: ['category/name', 'name'] } }],
      ['a file-read loading', builtin('codex')],
      ['a tool-description placement', builtin('claude-code-2.0')],
    ];
    for (const [what, d] of variants) {
      expect(checked(d), what).toBe(true);
      expect(valid(d), `${what}: ${JSON.stringify(valid.errors)}`).toBe(true);
    }
  });

  it('refuses what the profile checker refuses', () => {
    const broken: [string, string, (d: Profile) => void][] = [
      ['an unknown top key', 'claude-code', (d) => (d.listing = {})],
      ['a misspelt "extends"', 'claude-code', (d) => (d.extend = 'generic')],
      ['a name with capitals', 'claude-code', (d) => (d.name = 'Claude Code')],
      ['a name starting with "-"', 'claude-code', (d) => (d.name = '-cc')],
      ['an empty name', 'claude-code', (d) => (d.name = '')],
      ['no name', 'claude-code', (d) => delete d.name],
      ['a title that is not text', 'claude-code', (d) => (d.title = 5)],
      ['system null', 'claude-code', (d) => (d.system = null)],
      ['sources not a list', 'claude-code', (d) => (d.sources = { url: 'x' })],
      ['a source read on a date not YYYY-MM-DD', 'claude-code', (d) => (d.sources[0].read = '1 Dec 2026')],
      ['a blank source url', 'claude-code', (d) => (d.sources[0].url = '  ')],
      ['a source without "what"', 'claude-code', (d) => delete d.sources[0].what],
      ['an unknown source key', 'claude-code', (d) => (d.sources[0].title = 'x')],
      ['no catalogue', 'claude-code', (d) => delete d.catalogue],
      ['no placement', 'claude-code', (d) => delete d.catalogue.placement],
      ['a placement that does not exist', 'claude-code', (d) => (d.catalogue.placement = 'sidebar')],
      ['an unknown catalogue key', 'claude-code', (d) => (d.catalogue.budget = { chars: 10 })],
      ['no listing', 'claude-code', (d) => delete d.catalogue.listing],
      ['a listing with neither format nor entry', 'claude-code', (d) => delete d.catalogue.listing.entry],
      ['an unknown listing key', 'claude-code', (d) => (d.catalogue.listing.maxChars = 100)],
      ['a preset that does not exist', 'generic', (d) => (d.catalogue.listing.format = 'json')],
      ['an entry without {name}', 'claude-code', (d) => (d.catalogue.listing.entry = '- {description}')],
      ['a name-only entry with {description}', 'claude-code', (d) => (d.catalogue.listing.nameOnlyEntry = '- {name}: {description}')],
      ['an escape that does not exist', 'claude-code', (d) => (d.catalogue.listing.escape = 'url')],
      ['flatten as text', 'claude-code', (d) => (d.catalogue.listing.flatten = 'yes')],
      ['no description fields', 'claude-code', (d) => (d.catalogue.listing.fields = [])],
      ['a description field that does not exist', 'claude-code', (d) => (d.catalogue.listing.fields = ['summary'])],
      ['a group header without {category}', 'hermes', (d) => (d.catalogue.listing.group = { header: 'Skills:' })],
      ['a group without a header', 'hermes', (d) => (d.catalogue.listing.group = { when: 'always' })],
      ['a group "when" that does not exist', 'hermes', (d) => (d.catalogue.listing.group = { header: '{category}', when: 'never' })],
      ['a group sort that does not exist', 'hermes', (d) => (d.catalogue.listing.group = { header: '{category}', sort: 'size' })],
      ['an unknown group key', 'hermes', (d) => (d.catalogue.listing.group = { header: '{category}', indent: 2 })],
      ['a cut of 0 characters', 'claude-code', (d) => (d.catalogue.listing.cut.chars = 0)],
      ['a cut without chars', 'claude-code', (d) => delete d.catalogue.listing.cut.chars],
      ['a cut as a number', 'claude-code', (d) => (d.catalogue.listing.cut = 1536)],
      ['a budget that is not a whole number', 'claude-code', (d) => (d.catalogue.listing.budget.chars = 8000.5)],
      ['a budget as text', 'claude-code', (d) => (d.catalogue.listing.budget.chars = '8000')],
      ['a budget without chars', 'claude-code', (d) => delete d.catalogue.listing.budget.chars],
      ['an unknown budget key', 'claude-code', (d) => (d.catalogue.listing.budget.tokens = 2000)],
      ['no overflow steps', 'claude-code', (d) => (d.catalogue.listing.budget.overflow = [])],
      ['an overflow step that does not exist', 'claude-code', (d) => (d.catalogue.listing.budget.overflow = [{ step: 'truncate' }])],
      ['an overflow step without "step"', 'claude-code', (d) => (d.catalogue.listing.budget.overflow = [{ minChars: 100 }])],
      ['minChars on a names-only step', 'claude-code', (d) => (d.catalogue.listing.budget.overflow[1].minChars = 10)],
      ['a shorten step with minChars 0', 'claude-code', (d) => (d.catalogue.listing.budget.overflow[0].minChars = 0)],
      ['an unknown shorten key', 'claude-code', (d) => (d.catalogue.listing.budget.overflow[0].maxChars = 300)],
      ['no loading', 'claude-code', (d) => delete d.loading],
      ['no loading kind', 'claude-code', (d) => delete d.loading.kind],
      ['a loading kind that does not exist', 'claude-code', (d) => (d.loading.kind = 'mcp')],
      ['a file-read key on a tool loading', 'claude-code', (d) => (d.loading.argument = 'skill')],
      ['a tool key on a file-read loading', 'codex', (d) => (d.loading.accept = ['name'])],
      ['a skill tool without a name', 'claude-code', (d) => delete d.loading.tool.name],
      ['a tool name with a space', 'claude-code', (d) => (d.loading.tool.name = 'load skill')],
      ['a tool name of 65 characters', 'claude-code', (d) => (d.loading.tool.name = 'a'.repeat(65))],
      ['a tool name starting with a digit', 'claude-code', (d) => (d.loading.tool.name = '1skill')],
      ['an unknown skill tool key', 'claude-code', (d) => (d.loading.tool.parameters = { type: 'object' })],
      ['enum as text', 'claude-code', (d) => (d.loading.tool.enum = 'true')],
      ['an extra property that is not a schema', 'claude-code', (d) => (d.loading.tool.extraProperties = { args: 'string' })],
      ['an extra property repeating the default argument', 'generic', (d) => (delete d.loading.tool.argument, (d.loading.tool.extraProperties = { name: { type: 'string' } }))],
      ['a name form that does not exist', 'hermes', (d) => (d.loading.accept = ['path'])],
      ['no name forms', 'hermes', (d) => (d.loading.accept = [])],
      ['a file-read loading without its argument', 'codex', (d) => delete d.loading.argument],
      ['a blank file-read argument', 'codex', (d) => (d.loading.argument = ' ')],
      ['a file-read tool without parameters', 'codex', (d) => delete d.loading.tool.parameters],
      ['a file-read tool whose parameters are not an object schema', 'codex', (d) => (d.loading.tool.parameters.type = 'array')],
      ['parameters without a type', 'codex', (d) => delete d.loading.tool.parameters.type],
      ['parameter properties as a list', 'codex', (d) => (d.loading.tool.parameters.properties = ['command'])],
      ['a skill tool key on a file-read tool', 'codex', (d) => (d.loading.tool.enum = false)],
      ['tool-description placement with a file-read loading', 'codex', (d) => (d.catalogue.placement = 'tool-description')],
      ['tools not a list', 'adk', (d) => (d.tools = d.tools[0])],
      ['a tool without parameters', 'adk', (d) => delete d.tools[0].parameters],
      ['a tool whose parameters are a string schema', 'adk', (d) => (d.tools[0].parameters = { type: 'string' })],
      ['an unknown tool key', 'adk', (d) => (d.tools[0].strict = true)],
      ['a tool with a bad name', 'adk', (d) => (d.tools[0].name = 'list skills')],
    ];
    for (const [what, host, mutate] of broken) {
      const d = builtin(host);
      mutate(d);
      expect(checked(d), what).not.toBe(true);
      expect(valid(d), what).toBe(false);
    }
  });

  it('checks a file with "extends" field by field, the fields of the built-in one filling in', async () => {
    const ok: [string, Profile][] = [
      ['the docs\' variant', { extends: 'claude-code', name: 'claude-code-1m', catalogue: { listing: { budget: { chars: 40000 } } } }],
      ['only a loading tool\'s description', { extends: 'codex', loading: { tool: { description: 'Runs a command.' } } }],
      ['a new listing over a preset', { extends: 'generic', catalogue: { listing: { entry: '* {name}' } } }],
    ];
    for (const [what, d] of ok) {
      expect(await hostFile('ok.json', d), what).toBe(true);
      expect(valid(d), `${what}: ${JSON.stringify(valid.errors)}`).toBe(true);
    }
    const broken: [string, Profile][] = [
      ['a host that is not built in', { extends: 'cursor', name: 'x' }],
      ['extends as a list', { extends: ['generic'] }],
      ['an unknown key', { extends: 'generic', listing: { format: 'xml' } }],
      ['a bad name', { extends: 'generic', name: 'My Agent' }],
      ['a budget that is not a whole number', { extends: 'claude-code', catalogue: { listing: { budget: { chars: 1.5 } } } }],
      ['a loading kind that does not exist', { extends: 'generic', loading: { kind: 'mcp' } }],
      ['an unknown loading tool key', { extends: 'generic', loading: { tool: { names: 'x' } } }],
      ['an overflow list without steps', { extends: 'claude-code', catalogue: { listing: { budget: { overflow: [] } } } }],
    ];
    for (const [what, d] of broken) {
      expect(await hostFile('bad.json', d), what).not.toBe(true);
      expect(valid(d), what).toBe(false);
    }
  });

  it('leaves to the checker the rules that compare one field with another', () => {
    // JSON Schema (draft-07) cannot compare a string's length with a number, look a value up among another field's
    // keys, or require names unique within a list of objects: these pass the schema, and skillbench refuses them.
    const cases: [string, string, (d: Profile) => void, RegExp][] = [
      ['a cut marker as long as the cut', 'claude-code', (d) => (d.catalogue.listing.cut = { chars: 3, marker: '...' }), /as long as the cut/],
      ['a file-read argument that is not a parameter', 'codex', (d) => (d.loading.argument = 'cmd'), /not a property of loading.tool.parameters/],
      ['the skill tool\'s argument repeated in extraProperties', 'claude-code', (d) => (d.loading.tool.extraProperties = { skill: { type: 'string' } }), /repeats the argument/],
      ['two tools of one name', 'adk', (d) => (d.tools[1].name = 'load_skill'), /declares "load_skill" twice/],
    ];
    for (const [what, host, mutate, message] of cases) {
      const d = builtin(host);
      mutate(d);
      expect(valid(d), what).toBe(true);
      expect(checked(d), what).toMatch(message);
    }
  });
});
