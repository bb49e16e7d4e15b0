import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { assertUsable, loadCatalogue, parseFrontmatter, readResourceText } from '../src/catalogue.js';
import { UserError } from '../src/errors.js';
import { describeFolders } from '../src/skill-folders.js';

const root = path.resolve(__dirname, '..');
const fixture = (...p: string[]) => path.join(root, 'fixtures', ...p);
const HERMES = path.resolve(root, '../shared/data/hermes');
const METATOOL = path.resolve(root, '../shared/data/metatool/tools.json');

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'skillbench-catalogue-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function writeSkill(dir: string, frontmatter: string, body = '# Body\n\nDo the thing.\n'): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'SKILL.md'), `---\n${frontmatter}\n---\n\n${body}`);
  return dir;
}

describe('folder catalogue', () => {
  it('loads every SKILL.md at any depth, with categories, locations, states and profiles', async () => {
    const cat = await loadCatalogue(fixture('valid/categorised'));
    expect(cat.kind).toBe('folder');
    expect(cat.problems).toEqual([]);
    expect(cat.skills.map((s) => s.name)).toEqual(['general-helper', 'invoice-matcher', 'legacy-fax', 'mail-drafter', 'meeting-scheduler', 'nested-helper']);
    const by = Object.fromEntries(cat.skills.map((s) => [s.name, s]));
    expect(by['general-helper'].category).toBe('');
    expect(by['invoice-matcher'].category).toBe('finance');
    expect(by['nested-helper'].category).toBe('finance/invoice-matcher/examples');
    expect(by['meeting-scheduler'].location).toBe('office/meeting-scheduler/SKILL.md');
    expect(by['meeting-scheduler'].state).toBe('always');
    expect(by['legacy-fax'].state).toBe('never');
    expect(by['general-helper'].state).toBe('available');
    expect(by['meeting-scheduler'].toolProfiles).toEqual(['calendar']);
    expect(by['mail-drafter'].toolProfiles).toEqual(['mail']); // a plain string is split into names
    expect(Object.keys(cat.toolProfiles).sort()).toEqual(['calendar', 'mail']);
    expect(cat.toolProfiles.calendar.map((t) => t.name)).toEqual(['find_free_slots', 'create_event']);
    expect(by['invoice-matcher'].body).toContain('Run `scripts/match.mjs');
    expect(by['invoice-matcher'].frontmatter.compatibility).toBe('Needs Node 20 to run scripts/match.mjs.');
  });

  it('lists resources as sorted POSIX paths, leaving out SKILL.md, .gitkeep and nested skills', async () => {
    const cat = await loadCatalogue(fixture('valid/categorised'));
    const inv = cat.skills.find((s) => s.name === 'invoice-matcher')!;
    expect(inv.resources).toEqual(['references/rules.md', 'scripts/match.mjs']);
    const dir = writeSkill(path.join(tmp, 'res', 'with-files'), 'name: with-files\ndescription: Use when testing resources.');
    mkdirSync(path.join(dir, 'scripts', 'deep'), { recursive: true });
    writeFileSync(path.join(dir, 'scripts', 'deep', 'b.mjs'), 'b');
    writeFileSync(path.join(dir, 'scripts', '.gitkeep'), '');
    writeFileSync(path.join(dir, 'A.md'), 'a');
    const s = (await loadCatalogue(path.join(tmp, 'res'))).skills[0];
    expect(s.resources).toEqual(['A.md', 'scripts/deep/b.mjs']);
  });

  it('hashes SKILL.md bytes plus each resource path and bytes, as documented', async () => {
    const cat = await loadCatalogue(fixture('valid/categorised'));
    const inv = cat.skills.find((s) => s.name === 'invoice-matcher')!;
    const h = createHash('sha256').update(readFileSync(inv.file));
    for (const r of inv.resources) h.update(`\0${r}\0`).update(readFileSync(path.join(inv.dir!, r)));
    expect(inv.hash).toBe(h.digest('hex').slice(0, 16));
    expect(inv.hash).toMatch(/^[0-9a-f]{16}$/);
  });

  it('changes the hash when a resource changes, and only then', async () => {
    const copy = path.join(tmp, 'hash-copy');
    cpSync(fixture('valid/categorised'), copy, { recursive: true });
    const before = (await loadCatalogue(copy)).skills.find((s) => s.name === 'invoice-matcher')!.hash;
    expect((await loadCatalogue(copy)).skills.find((s) => s.name === 'invoice-matcher')!.hash).toBe(before);
    writeFileSync(path.join(copy, 'finance/invoice-matcher/references/rules.md'), 'changed');
    expect((await loadCatalogue(copy)).skills.find((s) => s.name === 'invoice-matcher')!.hash).not.toBe(before);
  });

  it('lists a symbolic link without reading its target, even outside the folder', async () => {
    const outside = path.join(tmp, 'outside-secret.txt');
    writeFileSync(outside, 'SECRET-1');
    const dir = writeSkill(path.join(tmp, 'links', 'linker'), 'name: linker\ndescription: Use when testing links.');
    symlinkSync(outside, path.join(dir, 'secret.txt'));
    symlinkSync(path.join(tmp, 'links'), path.join(dir, 'loop')); // a directory link back up: not followed
    const s1 = (await loadCatalogue(path.join(tmp, 'links'))).skills[0];
    expect(s1.resources).toEqual(['loop', 'secret.txt']);
    expect(readResourceText(s1, 'secret.txt')).toBe(`[symbolic link to ${outside}]`);
    writeFileSync(outside, 'SECRET-2');
    const s2 = (await loadCatalogue(path.join(tmp, 'links'))).skills[0];
    expect(s2.hash).toBe(s1.hash); // the target's bytes are not part of the hash: they were never read
  });

  it('describes a binary resource instead of reading it into a prompt', async () => {
    const dir = writeSkill(path.join(tmp, 'bin', 'with-image'), 'name: with-image\ndescription: Use when testing binary files.');
    writeFileSync(path.join(dir, 'logo.png'), Buffer.from([0x89, 0x50, 0, 1, 2, 3]));
    const s = (await loadCatalogue(path.join(tmp, 'bin'))).skills[0];
    expect(readResourceText(s, 'logo.png')).toBe('[binary file, 6 bytes]');
    expect(readResourceText(s, '../../outside-secret.txt')).toBe(''); // only listed resources are read
  });

  it('follows links to skill folders, inside and outside the catalogue, anchoring each skill at its real folder', async () => {
    const elsewhere = writeSkill(path.join(tmp, 'elsewhere', 'shared-skill'), 'name: shared-skill\ndescription: Use when testing linked skills.');
    writeFileSync(path.join(elsewhere, 'notes.md'), 'shared notes');
    const cat = path.join(tmp, 'linked-cat');
    writeSkill(path.join(cat, 'real-skill'), 'name: real-skill\ndescription: Use when testing real skills.');
    symlinkSync(elsewhere, path.join(cat, 'shared-skill')); // outside the catalogue
    symlinkSync('real-skill', path.join(cat, 'alias-skill')); // inside it: the same skill, found once at its real path
    symlinkSync(path.join(tmp, 'no-such-target'), path.join(cat, 'dangling')); // leads nowhere: not a skill, not reported
    const loaded = await loadCatalogue(cat);
    expect(loaded.skills.map((s) => s.name)).toEqual(['real-skill', 'shared-skill']);
    expect(loaded.problems).toEqual([]);
    const shared = loaded.skills.find((s) => s.name === 'shared-skill')!;
    expect(shared.file).toBe(path.join(cat, 'shared-skill', 'SKILL.md')); // as found, through the link
    expect(shared.dir).toBe(realpathSync(elsewhere)); // reads and script runs are anchored at the real folder
    expect(shared.location).toBe('shared-skill/SKILL.md');
    expect(shared.resources).toEqual(['notes.md']);
    expect(readResourceText(shared, 'notes.md')).toBe('shared notes');
    expect(loaded.skills.find((s) => s.name === 'real-skill')!.file).toBe(path.join(cat, 'real-skill', 'SKILL.md'));
  });

  it('follows a linked SKILL.md, and a linked folder of skills', async () => {
    const elsewhere = writeSkill(path.join(tmp, 'elsewhere2', 'group', 'file-linked'), 'name: file-linked\ndescription: Use when testing linked files.');
    writeSkill(path.join(tmp, 'elsewhere2', 'group', 'in-group'), 'name: in-group\ndescription: Use when testing linked groups.');
    const cat = path.join(tmp, 'linked-cat2');
    mkdirSync(path.join(cat, 'file-linked'), { recursive: true });
    symlinkSync(path.join(elsewhere, 'SKILL.md'), path.join(cat, 'file-linked', 'SKILL.md'));
    symlinkSync(path.join(tmp, 'elsewhere2', 'group'), path.join(cat, 'group'));
    const loaded = await loadCatalogue(cat);
    // file-linked is reached twice (its folder's SKILL.md is a link, and the linked group holds it): two folders,
    // one name, so the second is a duplicate like any other.
    expect(loaded.skills.map((s) => [s.name, s.location])).toEqual([
      ['file-linked', 'file-linked/SKILL.md'],
      ['in-group', 'group/in-group/SKILL.md'],
    ]);
    expect(loaded.problems.map((p) => [p.rule, path.relative(cat, p.file)])).toEqual([['SB009', 'group/file-linked/SKILL.md']]);
  });

  it('ends a link loop with a warning naming the link, and reads every real folder once', async () => {
    const cat = path.join(tmp, 'loop-cat');
    writeSkill(path.join(cat, 'team', 'looped-skill'), 'name: looped-skill\ndescription: Use when testing loops.');
    symlinkSync(cat, path.join(cat, 'team', 'back-to-root')); // a loop through an ancestor
    symlinkSync('.', path.join(cat, 'here')); // a loop onto the folder itself
    mkdirSync(path.join(cat, 'a'));
    mkdirSync(path.join(cat, 'b'));
    symlinkSync(path.join(cat, 'b'), path.join(cat, 'a', 'to-b')); // a cycle between siblings: each read once
    symlinkSync(path.join(cat, 'a'), path.join(cat, 'b', 'to-a'));
    const loaded = await loadCatalogue(cat);
    expect(loaded.skills.map((s) => s.name)).toEqual(['looped-skill']);
    expect(loaded.problems.map((p) => [p.rule, p.severity, path.relative(cat, p.file), p.message.split(':')[0]])).toEqual([
      ['SB021', 'warning', 'here', 'symbolic link loop'],
      ['SB021', 'warning', 'team/back-to-root', 'symbolic link loop'],
    ]);
  });

  it('never follows links inside a skill folder: they are its resources', async () => {
    const cat = path.join(tmp, 'resource-links');
    const dir = writeSkill(path.join(cat, 'holder'), 'name: holder\ndescription: Use when testing resource links.');
    writeSkill(path.join(tmp, 'resource-links-target', 'hidden-skill'), 'name: hidden-skill\ndescription: Use when testing.');
    symlinkSync(path.join(tmp, 'resource-links-target'), path.join(dir, 'refs'));
    const loaded = await loadCatalogue(cat);
    expect(loaded.skills.map((s) => s.name)).toEqual(['holder']);
    expect(loaded.skills[0].resources).toEqual(['refs']);
  });

  it('reads a lowercase skill.md as skills-ref does, with a warning', async () => {
    const cat = path.join(tmp, 'lower-cat');
    mkdirSync(path.join(cat, 'lower'), { recursive: true });
    writeFileSync(path.join(cat, 'lower', 'skill.md'), '---\nname: lower\ndescription: Use when testing lowercase files.\n---\nBody.\n');
    writeFileSync(path.join(cat, 'lower', 'notes.md'), 'n');
    const loaded = await loadCatalogue(cat);
    expect(loaded.skills.map((s) => [s.name, s.location, s.resources])).toEqual([['lower', 'lower/skill.md', ['notes.md']]]);
    expect(loaded.problems.map((p) => [p.rule, p.severity])).toEqual([['SB022', 'warning']]);
  });

  it('trims the name and the description as skills-ref does', async () => {
    const cat = path.join(tmp, 'trim-cat');
    writeSkill(path.join(cat, 'trimmed'), 'name: " trimmed "\ndescription: |\n  Use when testing trimmed values.\n');
    const s = (await loadCatalogue(cat)).skills[0];
    expect([s.name, s.description]).toEqual(['trimmed', 'Use when testing trimmed values.']);
  });
});

describe('a project root', () => {
  const project = () => path.join(tmp, 'project');
  beforeAll(() => {
    // The layout the common installers make: the skills in .agents/skills, linked one by one from .claude/skills.
    writeSkill(path.join(project(), '.agents', 'skills', 'pdf-filler'), 'name: pdf-filler\ndescription: Use when filling PDF forms.');
    writeSkill(path.join(project(), '.agents', 'skills', 'csv-cleaner'), 'name: csv-cleaner\ndescription: Use when cleaning CSV files.');
    mkdirSync(path.join(project(), '.claude', 'skills'), { recursive: true });
    symlinkSync('../../.agents/skills/pdf-filler', path.join(project(), '.claude', 'skills', 'pdf-filler'));
    symlinkSync('../../.agents/skills/csv-cleaner', path.join(project(), '.claude', 'skills', 'csv-cleaner'));
    writeSkill(path.join(project(), '.claude', 'skills', 'claude-only'), 'name: claude-only\ndescription: Use when testing one folder.');
    writeSkill(path.join(project(), 'skills', 'plain-skill'), 'name: plain-skill\ndescription: Use when testing skills/.');
    writeSkill(path.join(project(), 'test', 'fixtures', 'fixture-skill'), 'name: fixture-skill\ndescription: Use when never.'); // not a skill folder
  });

  it('reads the standard skill folders only, each skill once, and says which folders held what', async () => {
    const loaded = await loadCatalogue(project());
    expect(loaded.skills.map((s) => [s.name, s.location, s.category])).toEqual([
      ['claude-only', '.claude/skills/claude-only/SKILL.md', ''],
      ['csv-cleaner', '.agents/skills/csv-cleaner/SKILL.md', ''],
      ['pdf-filler', '.agents/skills/pdf-filler/SKILL.md', ''],
      ['plain-skill', 'skills/plain-skill/SKILL.md', ''],
    ]);
    expect(loaded.problems).toEqual([]);
    expect(loaded.folders!.map((f) => [path.relative(project(), f.path), f.skills, f.alreadyFound])).toEqual([
      ['.agents/skills', 2, 0],
      ['.claude/skills', 1, 2],
      ['skills', 1, 0],
    ]);
    expect(describeFolders(loaded.folders!, (p) => path.relative(project(), p))).toBe(
      'skills from the standard skill folders: .agents/skills (2 skills), .claude/skills (1 skill, plus 2 linked to skills found in another folder), skills (1 skill)',
    );
  });

  it('reads a project whose skills are in skills/ alone as that folder, as before', async () => {
    const plain = path.join(tmp, 'plain-project');
    writeSkill(path.join(plain, 'skills', 'only-skill'), 'name: only-skill\ndescription: Use when testing.');
    writeSkill(path.join(plain, 'fixtures', 'other'), 'name: other\ndescription: Use when testing.');
    writeFileSync(path.join(plain, 'package.json'), '{}');
    const loaded = await loadCatalogue(plain);
    expect(loaded.source).toBe(path.join(plain, 'skills'));
    expect(loaded.skills.map((s) => [s.name, s.location])).toEqual([['only-skill', 'only-skill/SKILL.md']]);
    expect(loaded.folders).toBeUndefined();
    // Without a project marker, a folder with a `skills` category is a catalogue, searched whole.
    rmSync(path.join(plain, 'package.json'));
    expect((await loadCatalogue(plain)).skills.map((s) => s.name)).toEqual(['only-skill', 'other']);
  });

  it('names a skipped dot-folder that holds skills when nothing else does', async () => {
    const hidden = path.join(tmp, 'hidden-skills');
    writeSkill(path.join(hidden, '.cursor', 'skills', 'cursor-skill'), 'name: cursor-skill\ndescription: Use when testing.');
    await expect(loadCatalogue(hidden)).rejects.toThrow(/no SKILL\.md found in this folder or below it; folders starting with a dot are not searched, and \.cursor holds skills/);
  });

  it('says which folders it looked in when none holds a skill', async () => {
    const empty = path.join(tmp, 'empty-project');
    mkdirSync(path.join(empty, '.claude', 'skills'), { recursive: true });
    await expect(loadCatalogue(empty)).rejects.toThrow(/no SKILL\.md found in its skill folders \(\.claude\/skills\)/);
  });
});

describe('more folder catalogue cases', () => {
  it('loads a single skill folder given directly', async () => {
    const cat = await loadCatalogue(fixture('valid/categorised/general-helper'));
    expect(cat.skills.map((s) => [s.name, s.category, s.location])).toEqual([['general-helper', '', 'general-helper/SKILL.md']]);
    const byFile = await loadCatalogue(fixture('valid/categorised/general-helper/SKILL.md'));
    expect(byFile.skills.map((s) => s.name)).toEqual(['general-helper']);
  });
});

describe('broken skills', () => {
  it('reports each broken skill and keeps the usable ones', async () => {
    const cat = await loadCatalogue(fixture('broken'));
    expect(cat.skills.map((s) => s.name)).toEqual(['Bad_Name', 'another-name', 'duplicate-name', 'long-description', 'valid-neighbour']);
    const fatal = cat.problems.filter((p) => p.fatal).map((p) => path.relative(fixture('broken'), p.file).split(path.sep)[0] + ': ' + p.message);
    expect(fatal).toHaveLength(6);
    expect(fatal.join('\n')).toMatch(/^bad-yaml: frontmatter is not valid YAML/m);
    expect(fatal.join('\n')).toMatch(/^binary-skill: SKILL.md is not UTF-8 text/m);
    expect(fatal.join('\n')).toMatch(/^empty-description: frontmatter has no `description`/m);
    expect(fatal.join('\n')).toMatch(/^js-frontmatter: frontmatter language "js" is not allowed/m);
    expect(fatal.join('\n')).toMatch(/^no-frontmatter: no frontmatter/m);
    expect(fatal.join('\n')).toMatch(/^two: duplicate name "duplicate-name"/m);
    const dup = cat.problems.find((p) => p.message.startsWith('duplicate'))!;
    expect(dup.message).toContain('one/duplicate-name/SKILL.md');
    expect(dup.line).toBe(2);
    expect(cat.problems.find((p) => p.file.includes('bad-yaml'))!.line).toBe(5);
  });

  it('never runs ---js frontmatter (and the fixture would run under gray-matter defaults)', async () => {
    const marker = path.join(tmp, 'js-ran.marker');
    const saved = process.env.SKILLBENCH_JS_MARKER;
    process.env.SKILLBENCH_JS_MARKER = marker;
    try {
      await loadCatalogue(fixture('broken'));
      await loadCatalogue(fixture('broken/js-frontmatter'));
      expect(existsSync(marker)).toBe(false);
      // Control: gray-matter's own default engines do evaluate this block, so the check above is meaningful.
      const matter = createRequire(import.meta.url)('gray-matter');
      matter(readFileSync(fixture('broken/js-frontmatter/SKILL.md'), 'utf8'), {});
      expect(readFileSync(marker, 'utf8')).toBe('this code ran');
    } finally {
      if (saved === undefined) delete process.env.SKILLBENCH_JS_MARKER;
      else process.env.SKILLBENCH_JS_MARKER = saved;
    }
  });

  it('refuses every non-YAML frontmatter language', () => {
    for (const lang of ['js', 'javascript', 'JS', 'json', 'coffee', 'toml', 'ruby']) {
      const r = parseFrontmatter(`---${lang}\n{"name": "x", "description": "y"}\n---\nbody`);
      expect('error' in r && r.error, lang).toMatch(/is not allowed/);
    }
    const ok = parseFrontmatter('---yaml\nname: x\ndescription: y\n---\nbody');
    expect(ok).toEqual({ data: { name: 'x', description: 'y' }, body: 'body' });
  });

  it('points YAML errors at their line and refuses unclosed or non-mapping frontmatter', () => {
    const bad = parseFrontmatter('---\nname: x\n  description: bad indent\n---\n');
    expect(bad).toMatchObject({ line: 3, error: expect.stringContaining('bad indentation') });
    expect(parseFrontmatter('---\nname: x\n')).toMatchObject({ error: expect.stringContaining('not closed') });
    expect(parseFrontmatter('---\n- a\n- b\n---\n')).toMatchObject({ error: expect.stringContaining('not a mapping') });
    // YAML is parsed safely: a JS-function tag is an error, not code.
    const tagged = parseFrontmatter('---\nname: !!js/function "function () { return 1 }"\n---\n');
    expect('error' in tagged).toBe(true);
  });

  it('assertUsable lists the fatal problems with file and line, and passes a clean catalogue', async () => {
    const broken = await loadCatalogue(fixture('broken'));
    let err: unknown;
    try {
      assertUsable(broken);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UserError);
    expect((err as UserError).message).toMatch(/6 skills cannot be loaded/);
    expect((err as UserError).message).toMatch(/js-frontmatter\/SKILL\.md:1: error SB003 frontmatter-invalid: frontmatter language "js"/);
    expect(() => assertUsable(broken)).toThrow(UserError);
    assertUsable(await loadCatalogue(fixture('valid/categorised')));
  });

  it('reports a bad metadata.state and tool-profiles without dropping the skill', async () => {
    writeSkill(path.join(tmp, 'meta', 'odd-meta'), 'name: odd-meta\ndescription: Use when testing metadata.\nmetadata:\n  owner: me\n  state: sometimes\n  tool-profiles: 3');
    const cat = await loadCatalogue(path.join(tmp, 'meta'));
    expect(cat.skills[0].state).toBe('available');
    expect(cat.problems.map((p) => [p.line, p.severity, p.message.slice(0, 30)])).toEqual([
      [6, 'error', 'metadata.state "sometimes" is '],
      [7, 'error', 'metadata.tool-profiles is not '],
    ]);
  });
});

describe('JSON catalogue', () => {
  it('loads [{name, description, category?, body?}]', async () => {
    const cat = await loadCatalogue(fixture('valid/catalogue.json'));
    expect(cat.kind).toBe('json');
    expect(cat.skills.map((s) => [s.name, s.category, s.location, s.state, s.body])).toEqual([
      ['TimeZone_Tool', '', 'TimeZone_Tool', 'never', ''],
      ['unit-converter', '', 'unit-converter', 'available', 'Convert with exact factors and round to 3 significant digits.'],
      ['weather-lookup', 'outdoor', 'outdoor/weather-lookup', 'available', ''],
    ]);
    expect(cat.skills.every((s) => s.resources.length === 0 && /^[0-9a-f]{16}$/.test(s.hash) && s.dir === undefined)).toBe(true);
  });

  it('reports bad entries by index and line, and duplicates', async () => {
    const file = path.join(tmp, 'bad.json');
    writeFileSync(file, JSON.stringify([{ name: 'a', description: 'x' }, { name: 'b' }, 'oops', { name: 'a', description: 'y' }], null, 2));
    const cat = await loadCatalogue(file);
    expect(cat.skills.map((s) => s.name)).toEqual(['a']);
    expect(cat.problems.map((p) => [p.line, p.message])).toEqual([
      [1, 'entry 2: is not an object'],
      [7, 'entry 1: field "description" of "b" is missing, empty or not a string'],
      [11, 'duplicate name "a" (earlier in the same file); this copy is ignored'],
    ]);
  });

  it.skipIf(!existsSync(METATOOL))('loads MetaTool tools.json (199 tools)', async () => {
    const cat = await loadCatalogue(METATOOL);
    expect(cat.skills).toHaveLength(199);
    expect(cat.problems).toEqual([]);
  });
});

describe('bad input is a UserError', () => {
  it.each([
    ['a missing path', () => loadCatalogue(path.join(tmp, 'nope')), /cannot read the catalogue \(ENOENT\)/],
    ['a folder with no SKILL.md', () => (mkdirSync(path.join(tmp, 'empty'), { recursive: true }), loadCatalogue(path.join(tmp, 'empty'))), /no SKILL.md found/],
    ['invalid JSON', () => (writeFileSync(path.join(tmp, 'x.json'), '{oops'), loadCatalogue(path.join(tmp, 'x.json'))), /not valid JSON/],
    ['an empty list', () => (writeFileSync(path.join(tmp, 'e.json'), '[]'), loadCatalogue(path.join(tmp, 'e.json'))), /list of skills is empty/],
    ['a JSON object that is not a list', () => (writeFileSync(path.join(tmp, 'o.json'), '{"a": 1}'), loadCatalogue(path.join(tmp, 'o.json'))), /expected a JSON list/],
  ])('%s', async (_label, run, message) => {
    await expect(run()).rejects.toThrow(UserError);
    await expect(run()).rejects.toThrow(message);
  });

  it('a malformed tool-profiles.json names the file and the field', async () => {
    const dir = path.join(tmp, 'profiles-bad');
    writeSkill(path.join(dir, 'some-skill'), 'name: some-skill\ndescription: Use when testing profiles.');
    writeFileSync(path.join(dir, 'tool-profiles.json'), JSON.stringify({ profiles: { calendar: [{ name: 'x' }] } }));
    await expect(loadCatalogue(dir)).rejects.toThrow(/tool-profiles\.json: profiles\.calendar\[0\]\.description is missing/);
    writeFileSync(path.join(dir, 'tool-profiles.json'), '{"profile": {}}');
    await expect(loadCatalogue(dir)).rejects.toThrow(/field "profiles" is missing/);
  });
});

describe.skipIf(!existsSync(HERMES))('Hermes catalogue (177 skills, ../shared/data/hermes)', () => {
  it('loads every skill with its category and no fatal problem', async () => {
    const cat = await loadCatalogue(HERMES);
    expect(cat.skills).toHaveLength(177);
    expect(cat.problems.filter((p) => p.fatal)).toEqual([]);
    const roster: { name: string; category: string }[] = JSON.parse(readFileSync(path.join(HERMES, 'roster.json'), 'utf8'));
    const byName = new Map(cat.skills.map((s) => [s.name, s]));
    // Our category is the whole path below the root (skills/..., optional-skills/...); Hermes drops the first part.
    // (Two skills sit directly in a root, e.g. optional-skills/yuanbao; Hermes files those under their own name.)
    const nested = roster.filter((r) => byName.get(r.name)!.category.includes('/'));
    expect(nested.length).toBeGreaterThan(170);
    for (const r of nested) expect(byName.get(r.name)!.category.replace(/^[^/]+\//, ''), r.name).toBe(r.category);
  });
});
