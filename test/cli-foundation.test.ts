// The foundation commands end to end: validate, init, tokens, through main() and through the built launcher.
import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { o200k } from './support/o200k.js';
import { loadCatalogue } from '../src/catalogue.js';
import { renderCatalogue, renderLoadAll, renderSkillContent } from '../src/prompt.js';
import { startWireServer, anthropic, gemini, type WireServer } from './support/wire-server.js';
import { runCli } from './support/cli.js';
import type { Skill } from '../src/types.js';

const root = path.resolve(__dirname, '..');
const HERMES = path.resolve(root, '../shared/data/hermes');
const DIST_CLI = path.join(root, 'dist/cli.js');
const BROKEN_FOLDERS = ['Bad_Name', 'bad-yaml', 'binary-skill', 'empty-description', 'js-frontmatter', 'long-description', 'name-mismatch', 'no-frontmatter', 'two/duplicate-name'];

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'skillbench-cli-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
/** Runs the CLI in-process from the repository root; out/err are its lines joined with '\n' (no final newline). */
async function runWith(env: Record<string, string | undefined>, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const r = await runCli(args, { cwd: root, env });
  return { code: r.code, out: r.stdout.replace(/\n$/, ''), err: r.stderr.replace(/\n$/, '') };
}
const run = (...args: string[]) => runWith({}, ...args);

const noStackTrace = (s: string) => expect(s).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);

describe('skillbench validate', () => {
  it('prints one error line per broken skill, a summary, and exits 1', async () => {
    const r = await run('validate', 'fixtures/broken');
    expect(r.code).toBe(1);
    const errors = r.out.split('\n').filter((l) => / error SB\d{3} /.test(l));
    const folders = errors.map((l) => l.match(/^fixtures\/broken\/(.+)\/SKILL\.md:\d+: error SB\d{3} [a-z-]+: /)?.[1]);
    expect(folders.sort()).toEqual(BROKEN_FOLDERS);
    for (const l of errors) expect(l).toMatch(/^\S+:\d+: error SB\d{3} [a-z0-9-]+: .+ \(.+\)$/); // file:line: error SB000 rule: message (fix)
    // Every line names its rule, warnings too.
    expect(r.out.split('\n').filter((l) => l.includes(': warning')).every((l) => /: warning SB\d{3} [a-z0-9-]+: /.test(l))).toBe(true);
    expect(r.out.split('\n').at(-1)).toBe('fixtures/broken: 11 skills checked (6 could not be loaded): 9 errors, 1 warning');
    noStackTrace(r.out + r.err);
  });

  it('exits 0 on a valid catalogue, 2 on unreadable input with one clear line', async () => {
    const ok = await run('validate', 'fixtures/valid/categorised');
    expect(ok.code).toBe(0);
    expect(ok.out).not.toMatch(/: error SB\d{3} /);
    const missing = await run('validate', 'fixtures/no-such-folder');
    expect(missing.code).toBe(2);
    expect(missing.err).toBe(
      'skillbench: error: fixtures/no-such-folder: cannot read the catalogue (ENOENT)\n  fix: give a folder of skills (each in its own folder with a SKILL.md) or a JSON file [{"name": ..., "description": ...}]',
    );
    noStackTrace(missing.err);
  });

  it('--no-warnings hides warnings; --json gives the problems and counts', async () => {
    const quiet = await run('validate', 'fixtures/broken', '--no-warnings');
    expect(quiet.out).not.toContain(': warning');
    const json = await run('validate', 'fixtures/broken', '--json');
    const data = JSON.parse(json.out);
    expect(data).toMatchObject({ source: 'fixtures/broken', skills: 11, unusable: 6, errors: 9, warnings: 1, strict: false });
    expect(data.problems[0]).toMatchObject({ file: 'fixtures/broken/Bad_Name/SKILL.md', line: 2, severity: 'error', rule: 'SB006', ruleName: 'name-invalid' });
    expect(json.code).toBe(1);
  });

  it('--github-annotations: each problem as an annotation at its file and line, titled with its rule', async () => {
    const r = await run('validate', 'fixtures/broken', '--github-annotations');
    const lines = r.out.split('\n').filter((l) => l.startsWith('::'));
    expect(lines).toHaveLength(10); // 9 errors, 1 warning
    expect(lines).toContain(
      '::error file=fixtures/broken/name-mismatch/SKILL.md,line=2,title=SB007 name-folder-mismatch::name "another-name" differs from its folder "name-mismatch" (rename the folder to "another-name" or set `name: name-mismatch`)',
    );
    expect(lines.filter((l) => l.startsWith('::warning '))).toHaveLength(1);
    const { githubAnnotation } = await import('../src/annotations.js');
    // Values are escaped as the runner reads them: a colon or comma in a property, a newline or % in the message.
    expect(githubAnnotation({ severity: 'error', file: 'a,b:c.md', line: 3, title: 'x', message: '50% done\nnext' })).toBe('::error file=a%2Cb%3Ac.md,line=3,title=x::50%25 done%0Anext');
  });

  it('validates a JSON catalogue', async () => {
    const r = await run('validate', 'fixtures/valid/catalogue.json');
    expect(r.code).toBe(0);
    expect(r.out.split('\n').at(-1)).toBe('fixtures/valid/catalogue.json: 3 skills checked: 0 errors, 1 warning');
  });

  it.skipIf(!existsSync(HERMES))('runs on the 177 Hermes skills', async () => {
    const r = await run('validate', HERMES, '--no-warnings');
    expect(r.out.split('\n').at(-1)).toMatch(/^\S*hermes: 177 skills checked: \d+ errors, \d+ warnings$/);
    expect([0, 1]).toContain(r.code);
    noStackTrace(r.err);
  });
});

describe('options: each command lists the ones that act for it, spelled the same everywhere', () => {
  it.each([
    ['e2e', ['--concurrency', '--embeddings', '--embedding-model']],
    ['eval-quality', ['--embeddings', '--embedding-model']],
    ['tokens', ['--thinking', '--max-cost', '--dry-run', '--embeddings']],
    ['report', ['--provider', '--cache-dir', '--no-progress']],
    ['validate', ['--provider', '--cache-dir']],
  ])('%s lists none of %j', async (command, absent) => {
    const { buildProgram } = await import('../src/cli.js');
    const cmd = buildProgram().commands.find((c) => c.name() === command)!;
    const flags = cmd.options.map((o) => o.long);
    for (const flag of absent) expect(flags, flag).not.toContain(flag);
  });

  it('has -o take one value, repeatable, and --json as a plain switch in every help', async () => {
    const { buildProgram } = await import('../src/cli.js');
    for (const cmd of buildProgram().commands) {
      const help = cmd.helpInformation();
      if (cmd.options.some((o) => o.long === '--output')) expect(help, cmd.name()).toMatch(/-o, --output <file>\s/);
      expect(help, cmd.name()).not.toContain('<file...>');
      if (cmd.options.some((o) => o.long === '--json')) expect(help, cmd.name()).toMatch(/\n\s+--json\s{2,}/);
    }
  });
});

describe('skillbench init', () => {
  it('creates a spec-valid skeleton that validates with no error', async () => {
    const dir = path.join(tmp, 'init-cat');
    const r = await run('init', 'invoice-matcher', '--dir', dir);
    expect(r.code).toBe(0);
    const skillDir = path.join(dir, 'invoice-matcher');
    const md = readFileSync(path.join(skillDir, 'SKILL.md'), 'utf8');
    expect(md).toMatch(/^---\nname: invoice-matcher\ndescription: \|-\n/);
    expect(md).toMatch(/^ {2}Use when /m);
    expect(md).toMatch(/^ {2}Not for: /m);
    for (const sub of ['scripts', 'references', 'assets']) {
      expect(statSync(path.join(skillDir, sub)).isDirectory()).toBe(true);
      expect(readdirSync(path.join(skillDir, sub))).toEqual(['.gitkeep']);
    }
    const cat = await loadCatalogue(dir);
    expect(cat.skills[0].resources).toEqual([]);
    const v = await run('validate', dir);
    expect(v.code).toBe(0);
    expect(v.out).not.toMatch(/: error SB\d{3} /);
    expect(v.out).toContain('description still holds TODO placeholders'); // a reminder, not an error
  });

  it('refuses to overwrite and refuses bad names, exit 2', async () => {
    const dir = path.join(tmp, 'init-twice');
    expect((await run('init', 'my-skill', '--dir', dir)).code).toBe(0);
    writeFileSync(path.join(dir, 'my-skill', 'SKILL.md'), 'mine');
    const again = await run('init', 'my-skill', '--dir', dir);
    expect(again.code).toBe(2);
    expect(again.err).toMatch(/my-skill already exists; refusing to overwrite it/);
    expect(readFileSync(path.join(dir, 'my-skill', 'SKILL.md'), 'utf8')).toBe('mine');
    for (const bad of ['Bad_Name', 'trail-', 'a--b', 'x'.repeat(65)]) {
      const r = await run('init', bad, '--dir', dir);
      expect(r.code, bad).toBe(2);
      expect(r.err).toMatch(/^skillbench: error: skill name ".+" /);
      expect(existsSync(path.join(dir, bad))).toBe(false);
    }
  });

  it('creates missing parent folders; a --dir that is a file or cannot be made is one line, exit 2', async () => {
    const nested = path.join(tmp, 'init-new', 'a', 'b');
    expect((await run('init', 'deep-skill', '--dir', nested)).code).toBe(0);
    expect(existsSync(path.join(nested, 'deep-skill', 'SKILL.md'))).toBe(true);
    const file = path.join(tmp, 'init-a-file');
    writeFileSync(file, 'not a folder');
    const onFile = await run('init', 'x-skill', '--dir', file);
    expect(onFile.code).toBe(2);
    expect(onFile.err).toMatch(/init-a-file is a file, not a folder\n\s+fix: choose another --dir/);
    // Node's recursive mkdir never returns under /proc: init must answer, not hang.
    if (existsSync('/proc/self')) {
      const proc = await run('init', 'x-skill', '--dir', '/proc/skillbench-no-such/dir');
      expect(proc.code).toBe(2);
      expect(proc.err).toMatch(/cannot create the catalogue folder \(ENOENT\)/);
      noStackTrace(proc.err);
    }
  });
});

describe('skillbench tokens', () => {
    const readRaw = (s: Skill, p: string) => readFileSync(path.join(s.dir!, p), 'utf8');

  it('--json prints level 1, level 2 per skill, load-all, saving and ratio matching an independent count', async () => {
    const r = await run('tokens', '--skills', 'fixtures/valid/categorised', '--format', 'hermes', '--json');
    expect(r.code).toBe(0);
    const a = JSON.parse(r.out);
    const cat = await loadCatalogue(path.join(root, 'fixtures/valid/categorised'));
    const visible = cat.skills.filter((s) => s.state !== 'never');
    expect(a).toMatchObject({ source: 'fixtures/valid/categorised', tokenizer: 'o200k via tiktoken', exact: false, format: 'hermes' });
    expect(a.level1).toBe(o200k(renderCatalogue(cat.skills, 'hermes')));
    expect(a.level2).toEqual(visible.map((s) => ({ name: s.name, tokens: o200k(renderSkillContent(s)) })));
    expect(a.loadAll).toBe(o200k(renderLoadAll(cat.skills, readRaw)));
    expect(a.saving).toBe(a.loadAll - a.level1);
    expect(a.ratio).toBeCloseTo(a.loadAll / a.level1, 2);
    expect(a.tools.allProfiles).toBeGreaterThan(a.tools.base);
    // Each skill's own entry: its listing alone less the empty listing, the figure an author edits.
    const empty = o200k(renderCatalogue([], 'hermes'));
    expect(a.entries).toEqual(visible.map((s) => ({ name: s.name, tokens: o200k(renderCatalogue([s], 'hermes')) - empty })));
    expect(a.entries.every((l: { tokens: number }) => l.tokens > 0)).toBe(true);
  });

  it('gives a JSON roster its listing and tool schemas only: no level 2, load-all or ratio', async () => {
    const roster = path.join(tmp, 'roster.json');
    writeFileSync(roster, JSON.stringify([
      { name: 'weather', description: 'Gives the forecast for a city.' },
      { name: 'converter', description: 'Converts between metric and imperial units.' },
      { name: 'clock', description: 'Says what time it is in a time zone.' },
    ]));
    // A JSON list that carries a body is not a roster: its level 2 means something.
    expect(JSON.parse((await run('tokens', '--skills', 'fixtures/valid/catalogue.json', '--json')).out)).toHaveProperty('ratio');
    const r = await run('tokens', '--skills', roster, '--json');
    expect(r.code).toBe(0);
    const a = JSON.parse(r.out);
    expect(a.roster).toBe(true);
    for (const absent of ['level2', 'level3', 'loadAll', 'saving', 'ratio']) expect(a, absent).not.toHaveProperty(absent);
    expect(a.entries.map((l: { name: string }) => l.name)).toHaveLength(3);
    const table = await run('tokens', '--skills', roster);
    expect(table.out).toContain('nothing is disclosed after level 1');
    expect(table.out).not.toMatch(/│ (level 2|level 3|load-all|saving|ratio load-all)/); // no such rows
    expect(table.out).toMatch(/│ ratio decision \/ bare minimum\s+│\s+\d\.\d\dx │/); // the first turn still means something
    expect(table.out).toMatch(/│ entry\s+│ level 1 \(own entry\) │/);
  });

  it('prints the tables labelled as an estimate', async () => {
    const r = await run('tokens', '--skills', 'fixtures/valid/categorised');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Token audit of fixtures\/valid\/categorised, catalogue format lines: estimate \(o200k via tiktoken\)/);
    expect(r.out).toContain('tool schema reduction');
  });

  it('refuses a catalogue with unusable skills, exit 2', async () => {
    const r = await run('tokens', '--skills', 'fixtures/broken');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/fixtures\/broken: 6 skills cannot be loaded:/);
    noStackTrace(r.err);
  });

  it('offers only the providers that count tokens, and only the options that act here', async () => {
    const r = await run('tokens', '--skills', 'fixtures/valid/categorised', '--provider', 'openai');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/argument 'openai' is invalid\. Allowed choices are gemini, anthropic/);
    const help = (await run('tokens', '--help')).out;
    for (const absent of ['--thinking', '--max-cost', '--dry-run', '--embeddings', '--embedding-model']) expect(help).not.toContain(absent);
    for (const unknown of ['--thinking', '--max-cost']) expect((await run('tokens', unknown, '1')).code).toBe(2);
  });

  describe('--provider anthropic (exact counts through the real SDK and a local wire server)', () => {
    let server: WireServer;
    const OVERHEAD = 7;
    beforeAll(async () => {
      // A fake tokenizer on the server: one token per character of the user message, 10 per tool, 7 of overhead.
      server = await startWireServer({
        anthropic: (req) => {
          if (req.method !== 'count_tokens') return { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'unexpected' } } };
          const content = req.body.messages[0].content;
          const text = typeof content === 'string' ? content : content.map((c: { text: string }) => c.text).join('');
          return anthropic.countTokens(OVERHEAD + text.length + 10 * (req.body.tools?.length ?? 0));
        },
      });
    });
    afterAll(() => server.close());

    it('labels the audit exact and derives each figure from the API counts', async () => {
      const r = await runWith(
        { ANTHROPIC_API_KEY: 'test-key' },
        'tokens', '--skills', 'fixtures/valid/categorised', '--json', '--provider', 'anthropic',
        '--base-url', server.baseUrl('anthropic'), '--cache-dir', path.join(tmp, 'cache'),
      );
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      const a = JSON.parse(r.out);
      const cat = await loadCatalogue(path.join(root, 'fixtures/valid/categorised'));
      expect(a.exact).toBe(true);
      expect(a.tokenizer).toMatch(/^anthropic count-tokens API \(.+\)$/);
      expect(a.level1).toBe(renderCatalogue(cat.skills, 'lines').length);
      expect(a.loadAll).toBe(renderLoadAll(cat.skills, readRaw).length);
      expect(a.tools).toEqual({ base: 30, allProfiles: 60, reductionPercent: 50 });
      expect(server.requests.every((q) => q.method === 'count_tokens')).toBe(true);
    });
  });
});

describe('tokens --provider: a refused key is one line, exit 2', () => {
  it('anthropic answering 401 to count_tokens', async () => {
    const server = await startWireServer({
      anthropic: () => ({ status: 401, body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } }),
    });
    try {
      const r = await runWith(
        { ANTHROPIC_API_KEY: 'wrong-key' },
        'tokens', '--skills', 'fixtures/valid/categorised', '--provider', 'anthropic',
        '--base-url', server.baseUrl('anthropic'), '--cache-dir', path.join(tmp, 'cache-401'),
      );
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/^skillbench: error: count-tokens failed: anthropic: HTTP 401: .*is the API key right\? it is read from ANTHROPIC_API_KEY/);
      expect(r.err).toMatch(/\n\s+fix: check the API key, --base-url and the network/);
      noStackTrace(r.err);
      expect(server.requests).toHaveLength(1); // not retried, and nothing counted after the first refusal
    } finally {
      await server.close();
    }
  });
});

describe('tokens --provider gemini (exact counts through the REST countTokens method and a local wire server)', () => {
  let server: WireServer;
  const readRaw = (s: Skill, p: string) => readFileSync(path.join(s.dir!, p), 'utf8');
  beforeAll(async () => {
    server = await startWireServer({
      gemini: (req) => {
        if (req.method !== 'countTokens') return { status: 400, body: { error: { code: 400, message: 'unexpected', status: 'INVALID_ARGUMENT' } } };
        const g = req.body.generateContentRequest;
        const text = g.contents.flatMap((c: { parts: { text?: string }[] }) => c.parts.map((p) => p.text ?? '')).join('');
        const tools = (g.tools ?? []).reduce((n: number, t: { functionDeclarations?: unknown[] }) => n + (t.functionDeclarations?.length ?? 0), 0);
        return gemini.countTokens(3 + text.length + 10 * tools);
      },
    });
  });
  afterAll(() => server.close());

  it('labels the audit exact and derives each figure from the API counts', async () => {
    const r = await runWith(
      { GEMINI_API_KEY: 'test-key' },
      'tokens', '--skills', 'fixtures/valid/categorised', '--json', '--provider', 'gemini', '--format', 'markdown',
      '--base-url', server.baseUrl('gemini'), '--cache-dir', path.join(tmp, 'cache-gemini'),
    );
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const a = JSON.parse(r.out);
    const cat = await loadCatalogue(path.join(root, 'fixtures/valid/categorised'));
    expect(a).toMatchObject({ exact: true, format: 'markdown', tokenizer: expect.stringMatching(/^gemini count-tokens API/) });
    expect(a.level1).toBe(renderCatalogue(cat.skills, 'markdown').length);
    expect(a.loadAll).toBe(renderLoadAll(cat.skills, readRaw).length);
    expect(a.tools).toEqual({ base: 30, allProfiles: 60, reductionPercent: 50 });

    // Replay: no key, no call, the same figures; a cache that lacks the counts says so in one line.
    const noKey = { GEMINI_API_KEY: undefined };
    const calls = server.requests.length;
    const args = ['tokens', '--skills', 'fixtures/valid/categorised', '--json', '--provider', 'gemini', '--format', 'markdown', '--cache-only'];
    const replay = await runWith(noKey, ...args, '--cache-dir', path.join(tmp, 'cache-gemini'));
    expect(replay.code).toBe(0);
    expect(JSON.parse(replay.out)).toEqual(a);
    expect(server.requests.length).toBe(calls);
    const empty = await runWith(noKey, ...args, '--cache-dir', path.join(tmp, 'cache-empty'));
    expect(empty.code).toBe(2);
    expect(empty.err).toMatch(/gemini \(.+\): a token count is not in the cache \(--cache-only\)\n\s+fix: run once without --cache-only/);
    noStackTrace(empty.err);
  });
});

describe('help', () => {
  it.each(['validate', 'init', 'tokens', 'prompt'])('%s --help ends with an example', async (cmd) => {
    const r = await run(cmd, '--help');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/Example:\n\s+\$ skillbench /);
  });
});

describe.skipIf(!existsSync(DIST_CLI))('built launcher: node bin/skillbench.js', () => {
  it('validate fixtures/broken: one line per broken skill, exit 1, no stack trace', () => {
    const p = spawnSync(process.execPath, ['bin/skillbench.js', 'validate', 'fixtures/broken', '--no-warnings'], { cwd: root, encoding: 'utf8' });
    expect(p.status).toBe(1);
    const lines = p.stdout.trim().split('\n');
    expect(lines.slice(0, -1).map((l) => l.match(/^fixtures\/broken\/(.+)\/SKILL\.md:\d+: error SB\d{3} [a-z-]+: /)?.[1]).sort()).toEqual(BROKEN_FOLDERS);
    expect(p.stderr).toBe('');
    noStackTrace(p.stdout);
  });

  it('validate of a missing path: exit 2, one clear line', () => {
    const p = spawnSync(process.execPath, ['bin/skillbench.js', 'validate', 'nowhere'], { cwd: root, encoding: 'utf8' });
    expect(p.status).toBe(2);
    expect(p.stderr.split('\n')[0]).toBe('skillbench: error: nowhere: cannot read the catalogue (ENOENT)');
    noStackTrace(p.stderr);
  });
});
