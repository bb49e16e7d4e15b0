// The config file (skillbench.config.json / .yaml): found upward from the working folder (up to a project's root) or
// named with -c; every key a flag without its dashes; flags on the command line win; paths relative to the file;
// validated against schemas/config.schema.json with errors that name the file, the line, the field and the fix.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from './support/cli.js';
import { readResults } from '../src/results.js';
import { Command } from 'commander';
import { applyConfig, closest, CONFIG_KEYS } from '../src/config.js';
import { buildProgram } from '../src/cli.js';

const root = path.resolve(import.meta.dirname, '..');
let tmp: string;
let project: string;

beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'skillbench-config-'));
  project = path.join(tmp, 'project');
  mkdirSync(path.join(project, '.git'), { recursive: true }); // a project root: the upward search stops here
  cpSync(path.join(root, 'skills'), path.join(project, 'catalogue'), { recursive: true });
  cpSync(path.join(root, 'requests.json'), path.join(project, 'evals', 'requests.json'));
  mkdirSync(path.join(project, 'deep', 'inside'), { recursive: true });
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const write = (file: string, text: string) => writeFileSync(path.join(project, file), text);
const clear = () => {
  for (const f of ['skillbench.config.json', 'skillbench.config.yaml', 'skillbench.config.yml']) rmSync(path.join(project, f), { force: true });
};
const run = (args: string[], cwd = project) => runCli(args, { cwd });

const CONFIG = `# the CI job's settings
skills: catalogue
requests: evals/requests.json
selectors: [keyword, explicit]
gates:
  max-wrong-load: 0.99
outputs: [out/results.json, out/summary.md]
`;

describe('the config file: precedence', () => {
  it('supplies the options, from a subfolder too, with paths relative to the file', async () => {
    clear();
    write('skillbench.config.yaml', CONFIG);
    const r = await run(['eval-trigger', '--no-progress'], path.join(project, 'deep', 'inside'));
    expect(r.stderr).toContain('skillbench: settings from ../../skillbench.config.yaml: skills, requests, selectors, gates.max-wrong-load, outputs (flags on the command line win)');
    expect(r.code).toBe(1); // explicit's wrong load is 100%, above the config's 0.99
    expect(r.stderr).toContain('explicit: wrong load 100.0% (24/24) is above --max-wrong-load 0.99');
    const results = await readResults(path.join(project, 'out', 'results.json')); // relative to the config file, not to the working folder
    expect(results.runs.map((x) => x.selector)).toEqual(['keyword', 'explicit']);
    expect(await readFile(path.join(project, 'out', 'summary.md'), 'utf8')).toContain('gate failed');
  });

  it('gives way to every flag given on the command line', async () => {
    clear();
    write('skillbench.config.yaml', CONFIG);
    const r = await run(['eval-trigger', '--no-progress', '--selectors', 'keyword', '--max-wrong-load', '1', '-o', 'flag.json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('settings from skillbench.config.yaml: skills, requests (flags on the command line win)');
    expect((await readResults(path.join(project, 'flag.json'))).runs.map((x) => x.selector)).toEqual(['keyword']);
  });

  it('is read from -c FILE, and not at all with --no-config', async () => {
    clear();
    write('other.json', JSON.stringify({ skills: 'catalogue', validate: { rules: { 'no-when-to-use': 'off' } } }));
    const named = await run(['validate', '-c', 'other.json']);
    expect(named.code).toBe(0);
    expect(named.stdout).toMatch(/^catalogue: 6 skills checked/m); // `skills` is validate's argument
    write('skillbench.config.yaml', 'skills: nowhere\n');
    const none = await run(['--no-config', 'validate', 'catalogue']);
    expect(none.code).toBe(0);
    expect(none.stderr).toBe('');
    const missing = await run(['validate', '-c', 'missing.yaml']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing.yaml: cannot read the config file (ENOENT)');
  });

  it('switches validate rules off and on, and --strict, from the file', async () => {
    clear();
    const cat = path.join(project, 'lint');
    mkdirSync(path.join(cat, 'terse'), { recursive: true });
    writeFileSync(path.join(cat, 'terse', 'SKILL.md'), '---\nname: terse\ndescription: Apple Reminders via remindctl, with a description long enough to pass sixty characters.\n---\nBody.\n');
    const plain = await run(['validate', 'lint']);
    expect(plain.stdout).toMatch(/warning SB015 no-when-to-use/);
    write('skillbench.config.yaml', 'validate:\n  rules:\n    no-when-to-use: off\n    SB013: warning\n');
    const switched = await run(['validate', 'lint']);
    expect(switched.stdout).not.toContain('SB015');
    expect(switched.stdout).toMatch(/warning SB013 description-cut-in-host-index/);
    expect(switched.code).toBe(0);
    write('skillbench.config.yaml', 'validate:\n  strict: true\n');
    const strict = await run(['validate', 'lint']);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/error SB015 no-when-to-use/);
    write('skillbench.config.yaml', 'validate:\n  rules:\n    duplicate-name: off\n');
    const fatal = await run(['validate', 'lint']);
    expect(fatal.code).toBe(2);
    expect(fatal.stderr).toContain('SB009 duplicate-name cannot be switched off: a skill with this problem cannot be loaded at all');
  });

  it('stops looking at the project root and says when a key is read by no command', async () => {
    clear();
    writeFileSync(path.join(tmp, 'skillbench.config.yaml'), 'skills: outside\n'); // above the project's .git: not read
    const r = await run(['validate', 'catalogue']);
    expect(r.stderr).toBe('');
    write('skillbench.config.yaml', 'host: claude-code\n');
    const used = await run(['validate', 'catalogue']); // validate --host checks the listing budget
    expect(used.stderr).toBe('skillbench: settings from skillbench.config.yaml: host (flags on the command line win)\n');
    rmSync(path.join(tmp, 'skillbench.config.yaml'));
    // A key no command reads (a command that has gone, a flag of a later version) is named, not applied.
    const tokens = new Command('tokens').option('--skills <path>');
    const config = { file: path.join(project, 'skillbench.config.yaml'), dir: project, data: { host: 'claude-code', skills: 'catalogue' } };
    expect(applyConfig(config, tokens, [tokens])).toEqual({ used: ['skills'], unused: ['host'] });
    expect(tokens.opts().skills).toBe(path.join(project, 'catalogue'));
  });

  it('maps every key of the published schema to an option some command has, and back', async () => {
    const schema = JSON.parse(await readFile(path.join(root, 'schemas', 'config.schema.json'), 'utf8')) as { properties: Record<string, { properties?: Record<string, unknown> }> };
    const keys = Object.entries(schema.properties)
      .filter(([k]) => k !== '$schema')
      .flatMap(([k, v]) => (k === 'gates' || k === 'validate' ? Object.keys(v.properties!).map((c) => `${k}.${c}`) : [k]));
    expect(CONFIG_KEYS.map((m) => m.key.join('.')).sort()).toEqual(keys.sort());
    const program = buildProgram();
    const all = [...program.commands, ...program.commands.flatMap((c) => c.commands)];
    for (const m of CONFIG_KEYS) {
      const takers = all.filter((c) => (m.commands ? m.commands.includes(c.name()) : true) && c.options.some((o) => o.attributeName() === m.option));
      expect(takers.length + (m.option === 'skills' ? 1 : 0), m.key.join('.')).toBeGreaterThan(0);
    }
  });
});

describe('the config file: errors name the file, the line, the field and the fix', () => {
  const cases: [string, string, RegExp, RegExp][] = [
    ['skillbench.config.yaml', 'skills: catalogue\nselector: keyword\n', /skillbench\.config\.yaml:2: `selector` is not a field of the config/, /did you mean `selectors`\?/],
    ['skillbench.config.yaml', 'gates:\n  max-wrong-load: high\n', /skillbench\.config\.yaml:2: field `gates\.max-wrong-load` must be a number \(got "high"\)/, /write it like `max-wrong-load: 0\.2`/],
    ['skillbench.config.yaml', 'gates:\n  max-needless-load: 1.5\n', /:2: field `gates\.max-needless-load` must be <= 1 \(got 1\.5\)/, /max-needless-load: 0\.2/],
    ['skillbench.config.yaml', 'gates:\n  max-wrong-lod: 0.2\n', /`gates\.max-wrong-lod` is not a field of `gates` of the config/, /did you mean `max-wrong-load`\?/],
    ['skillbench.config.json', '{"runs": 1.5}', /skillbench\.config\.json:1: field `runs` must be a whole number \(got 1\.5\)/, /"runs": 3/],
    ['skillbench.config.json', '{"provider": "mistral"}', /field `provider` must be one of gemini, anthropic, openai \(got "mistral"\)/, /"provider": "anthropic"/],
    ['skillbench.config.json', '{"outputs": ["report.pdf"]}', /field `outputs\[0\]` must be a file name ending in \.json, \.html, \.md, \.xml or \.csv/, /"outputs": \[/],
    ['skillbench.config.json', '{"thinking": "maximum"}', /field `thinking` must be off, minimal, low, medium, high, xhigh, max, or a token budget, checked against the model table/, /"thinking": "low"/],
    ['skillbench.config.json', '{"validate": {"rules": {"SB015": "silent"}}}', /field `validate\.rules\.SB015` must be one of off, warning, error/, /SB013/],
    ['skillbench.config.json', '{"skills": "catalogue",}', /skillbench\.config\.json: not valid JSON/, /fix the JSON syntax/],
    ['skillbench.config.yaml', 'skills: catalogue\n  requests: x\n', /skillbench\.config\.yaml:2: not valid YAML/, /indent with spaces/],
    ['skillbench.config.yaml', '- skills\n', /the config must be a mapping of fields/, /skills: skills/],
  ];
  it.each(cases)('%s: %j', async (file, text, message, fix) => {
    clear();
    write(file, text);
    const r = await run(['eval-trigger', '--no-progress', '--selectors', 'keyword']);
    expect(r.code).toBe(2);
    const [first, second] = r.stderr.split('\n');
    expect(first).toMatch(/^skillbench: error: /);
    expect(first).toMatch(message);
    expect(second).toMatch(/^ {2}fix: /);
    expect(second).toMatch(fix);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('refuses two config files in one folder', async () => {
    clear();
    write('skillbench.config.yaml', 'skills: catalogue\n');
    write('skillbench.config.json', '{}');
    const r = await run(['validate', 'catalogue']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('skillbench.config.json and skillbench.config.yaml are both in');
  });

  it('suggests the nearest field name, or none when nothing is near', () => {
    expect(closest('selector', ['skills', 'selectors'])).toBe('selectors');
    expect(closest('zzzzzzzz', ['skills', 'selectors'])).toBeUndefined();
  });
});

describe('the published JSON Schemas', () => {
  it('are in package.json files, and the config schema is the one the CLI validates with', async () => {
    const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8'));
    expect(pkg.files).toContain('schemas');
    const { CONFIG_SCHEMA_PATH } = await import('../src/config.js');
    expect(path.resolve(CONFIG_SCHEMA_PATH.pathname)).toBe(path.join(root, 'schemas', 'config.schema.json'));
  });

  it('accepts the example config of the docs', async () => {
    const { loadConfig } = await import('../src/config.js');
    const example = await loadConfig(path.join(root, 'examples', 'skillbench.config.yaml'));
    expect(example.data).toMatchObject({ skills: expect.any(String), gates: expect.any(Object), outputs: expect.any(Array) });
  });
});
