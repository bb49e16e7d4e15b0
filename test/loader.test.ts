// The skill tools' execution: activation, the read whitelist, script runs, tool profiles. Every refusal is a tool
// result with isError (never an exception) and never carries the content it refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCatalogue } from '../src/catalogue.js';
import { SkillLoader } from '../src/loader.js';
import { renderLoadAll, renderSkillContent } from '../src/prompt.js';
import { bwrapWorks, unshareWorks } from '../src/sandbox.js';
import type { Catalogue, FunctionCall } from '../src/types.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'harness', 'catalogue');
const SECRET = 'TOP-SECRET-HIDDEN-SKILL-CONTENT';
const canSandbox = (await bwrapWorks()) || (await unshareWorks());

let root: string;
let outside: string;
let catalogue: Catalogue;
let n = 0;
const call = (name: string, args: Record<string, unknown>): FunctionCall => ({ id: `c${++n}`, name, args });

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'skillbench-loader-test-'));
  cpSync(FIXTURE, root, { recursive: true });
  outside = mkdtempSync(join(tmpdir(), 'skillbench-outside-'));
  cpSync(join(root, 'hidden', 'references', 'secret.md'), join(outside, 'secret.md'));
  // Links git would not keep reliably: one to another skill's file, one to a system file, one outside the tree,
  // and one that stays inside the folder (allowed).
  symlinkSync('../../hidden/references/secret.md', join(root, 'notes', 'references', 'escape.md'));
  symlinkSync('/etc/passwd', join(root, 'notes', 'references', 'passwd'));
  symlinkSync(join(outside, 'secret.md'), join(root, 'notes', 'references', 'far.md'));
  symlinkSync('/etc', join(root, 'notes', 'references', 'etc'));
  symlinkSync('guide.md', join(root, 'notes', 'references', 'inside.md'));
  catalogue = await loadCatalogue(root);
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('loader: activate_skill', () => {
  it('returns the body in <skill_content> with the resource list, not the resources', async () => {
    const loader = new SkillLoader(catalogue);
    const notes = catalogue.skills.find((s) => s.name === 'notes')!;
    const r = await loader.execute(call('activate_skill', { name: 'notes' }));
    expect(r.level).toBe('body');
    expect(r.result.isError).toBeFalsy();
    expect(r.result.content).toBe(renderSkillContent(notes));
    expect(r.result.content).toContain(`<skill_content name="notes" version="${notes.hash}">`);
    expect(r.result.content).toContain('references/guide.md');
    expect(r.result.content).not.toContain('Decisions first'); // guide.md's text stays on disk
    expect(loader.activated).toEqual(['notes']);
  });

  it('answers a second activation with a short "already loaded"', async () => {
    const loader = new SkillLoader(catalogue);
    const first = await loader.execute(call('activate_skill', { name: 'notes' }));
    const again = await loader.execute(call('activate_skill', { name: 'notes' }));
    expect(again.result.content).toMatch(/already loaded/);
    expect(again.result.content.length).toBeLessThan(first.result.content.length / 2);
    expect(loader.activated).toEqual(['notes']);
  });

  it('refuses unknown and never-state skills as tool errors', async () => {
    const loader = new SkillLoader(catalogue);
    for (const name of ['nope', 'hidden', '', 42]) {
      const r = await loader.execute(call('activate_skill', { name }));
      expect(r.result.isError).toBe(true);
      expect(r.level).toBe('error');
      expect(r.result.content).not.toContain('Secret instructions');
    }
    expect(loader.activated).toEqual([]);
  });

  it('says an always-state skill is already in the system prompt', async () => {
    const r = await new SkillLoader(catalogue).execute(call('activate_skill', { name: 'always-on' }));
    expect(r.result.content).toMatch(/always loaded/);
  });
});

describe('loader: read_skill_file whitelist', () => {
  it.each([
    ['references/guide.md'],
    ['./references/guide.md'],
    ['references//guide.md'],
    ['references/../references/guide.md'],
    ['references\\guide.md'],
    ['references/inside.md'],
  ])('serves %j', async (path) => {
    const r = await new SkillLoader(catalogue).execute(call('read_skill_file', { name: 'notes', path }));
    expect(r.result.isError).toBeFalsy();
    expect(r.level).toBe('resource');
    expect(r.result.content).toContain('Decisions first');
  });

  it.each([
    ['notes', '../hidden/SKILL.md'],
    ['notes', '../hidden/references/secret.md'],
    ['notes', '../../etc/passwd'],
    ['notes', '/etc/passwd'],
    ['notes', `${FIXTURE}/hidden/references/secret.md`],
    ['notes', 'C:\\Windows\\win.ini'],
    ['notes', 'SKILL.md'],
    ['notes', './SKILL.md'],
    ['notes', 'references/../SKILL.md'],
    ['notes', '..%2Fhidden%2FSKILL.md'],
    ['notes', 'references%2F..%2F..%2Fhidden%2Freferences%2Fsecret.md'],
    ['notes', '%2e%2e/hidden/references/secret.md'],
    ['notes', 'references\\..\\..\\hidden\\references\\secret.md'],
    ['notes', '%252e%252e%252fhidden%252fSKILL.md'], // double-encoded
    ['notes', '..%252f..%252fhidden/references/secret.md'],
    ['notes', '%2e%2e%5chidden%5cSKILL.md'], // encoded backslashes
    ['notes', '\u2024\u2024/hidden/SKILL.md'], // one-dot leaders that look like dots
    ['notes', '\uff0e\uff0e/hidden/SKILL.md'], // fullwidth full stops
    ['notes', '..\u2215hidden\u2215SKILL.md'], // division slashes
    ['notes', 'references/guide.md/'], // trailing slash
    ['notes', 'references/'],
    ['notes', '.'],
    ['notes', './'],
    ['notes', 'skill.md'], // a case variant (a case-insensitive file system would open SKILL.md)
    ['notes', 'Skill.MD'],
    ['notes', 'references/escape.md'],
    ['notes', 'references/passwd'],
    ['notes', 'references/far.md'],
    ['notes', 'references/etc'],
    ['notes', 'references/etc/passwd'],
    ['notes', 'references/guide.md\0'],
    ['notes', 'references/guide.md\0../../hidden/references/secret.md'],
    ['notes', 'references/missing.md'],
    ['notes', ''],
    ['notes', 17],
    ['hidden', 'references/secret.md'],
    ['nope', 'references/guide.md'],
    [undefined, 'references/guide.md'],
  ])('refuses %j %j as a tool error', async (name, path) => {
    const r = await new SkillLoader(catalogue).execute(call('read_skill_file', { name, path }));
    expect(r.result.isError).toBe(true);
    expect(r.level).toBe('error');
    expect(r.result.content).toMatch(/^Error: /);
    expect(r.result.content).not.toContain(SECRET);
    expect(r.result.content).not.toContain('root:x:0');
  });

  it('explains why: absolute, traversal, encoded, link, SKILL.md, NUL, unknown', async () => {
    const why = async (name: string, path: string) => (await new SkillLoader(catalogue).execute(call('read_skill_file', { name, path }))).result.content;
    expect(await why('notes', '/etc/passwd')).toMatch(/absolute/);
    expect(await why('notes', '../hidden/SKILL.md')).toMatch(/leaves the skill folder/);
    expect(await why('notes', '..%2Fhidden%2FSKILL.md')).toMatch(/URL-encoded/);
    expect(await why('notes', 'references/escape.md')).toMatch(/link that leaves/);
    expect(await why('notes', 'SKILL.md')).toMatch(/activate_skill/);
    expect(await why('notes', 'a\0b')).toMatch(/NUL/);
    expect(await why('hidden', 'references/secret.md')).toMatch(/unknown skill "hidden"/);
  });
});

describe('loader: tool profiles and the tool registry', () => {
  it('starts with the three skill tools and adds a profile once a skill that declares it is loaded', async () => {
    const loader = new SkillLoader(catalogue);
    expect(loader.tools().map((t) => t.name)).toEqual(['activate_skill', 'read_skill_file', 'run_skill_script']);
    const early = await loader.execute(call('lookup_customer', { email: 'a@b.c' }));
    expect(early.result.content).toMatch(/unknown tool/);
    await loader.execute(call('activate_skill', { name: 'hostile' }));
    expect(loader.tools().map((t) => t.name)).toHaveLength(3);
    await loader.execute(call('activate_skill', { name: 'notes' }));
    expect(loader.tools().map((t) => t.name)).toEqual(['activate_skill', 'read_skill_file', 'run_skill_script', 'lookup_customer']);
    const sim = await loader.execute(call('lookup_customer', { email: 'a@b.c' }));
    expect(sim.level).toBe('profile');
    expect(sim.result.isError).toBe(true);
    expect(sim.result.content).toMatch(/^simulated tool "lookup_customer": not connected/);
    expect(sim.result.content).toContain('a@b.c');
  });

  it('never offers a never-state skill to activate_skill', () => {
    const decl = new SkillLoader(catalogue).tools().find((t) => t.name === 'activate_skill')!;
    const names = (decl.parameters as { properties: { name: { enum: string[] } } }).properties.name.enum;
    expect(names).toContain('notes');
    expect(names).not.toContain('hidden');
  });

  it('keeps a normalised loaded-skills block: empty at first, name order, one line per skill', async () => {
    const loader = new SkillLoader(catalogue);
    expect(loader.loadedBlock()).toBe('');
    await loader.execute(call('activate_skill', { name: 'notes' }));
    await loader.execute(call('activate_skill', { name: 'hostile' }));
    const block = loader.loadedBlock();
    expect(block.indexOf('- hostile')).toBeLessThan(block.indexOf('- notes'));
    expect(block).toContain('tools unlocked: lookup_customer');
    await loader.execute(call('activate_skill', { name: 'notes' }));
    expect(loader.loadedBlock()).toBe(block);
  });

  it('load-all mode: no activate/read tools, every profile, and inlined files under the same whitelist', async () => {
    const loader = new SkillLoader(catalogue, { mode: 'load-all' });
    expect(loader.tools().map((t) => t.name)).toEqual(['run_skill_script', 'lookup_customer']);
    expect((await loader.execute(call('activate_skill', { name: 'notes' }))).result.isError).toBe(true);
    expect((await loader.execute(call('read_skill_file', { name: 'notes', path: 'references/guide.md' }))).result.isError).toBe(true);
    const all = renderLoadAll(catalogue.skills, loader.readResource);
    expect(all).toContain('Decisions first');
    expect(all).toContain('[not included: path refused: "references/escape.md" is a link that leaves the skill folder]');
    expect(all).not.toContain(SECRET);
    expect(all).not.toContain('root:x:0');
  });
});

describe.skipIf(!canSandbox)('loader: run_skill_script (skipped: neither bwrap nor unshare works here)', () => {
  it('runs a script of the skill and returns its status and streams', async () => {
    const r = await new SkillLoader(catalogue).execute(call('run_skill_script', { name: 'hostile', path: 'scripts/exit3.mjs', args: [] }));
    expect(r.level).toBe('script');
    expect(r.result.isError).toBe(true); // a non-zero exit is reported as such
    expect(r.result.content).toBe('exit code 3\n<stdout>\nto stdout\n</stdout>\n<stderr>\nto stderr\n</stderr>');
    expect(r.script).toMatchObject({ exitCode: 3, timedOut: false, truncated: false });
  });

  it('passes args (numbers as text) and refuses non-scripts, other skills and bad args', async () => {
    const loader = new SkillLoader(catalogue);
    const ok = await loader.execute(call('run_skill_script', { name: 'hostile', path: './scripts/echo.sh', args: ['a b', 3] }));
    expect(ok.result.content).toBe('exit code 0\n<stdout>\n[a b]\n[3]\n</stdout>\n<stderr></stderr>');
    expect(ok.result.isError).toBeFalsy();
    for (const args of [
      { name: 'hostile', path: 'references/notes.md' },
      { name: 'hostile', path: 'scripts/../SKILL.md' },
      { name: 'hostile', path: '../notes/scripts/x.mjs' },
      { name: 'hidden', path: 'scripts/x.mjs' },
      { name: 'hostile', path: 'scripts/echo.sh', args: 'not-an-array' },
      { name: 'hostile', path: 'scripts/echo.sh', args: [{}] },
    ]) {
      const r = await loader.execute(call('run_skill_script', args));
      expect(r.result.isError).toBe(true);
      expect(r.level).toBe('error');
    }
  });
});

describe('loader: skills reached through symbolic links (as installers link .claude/skills/<name>)', () => {
  let project: string;
  let linked: Catalogue;
  beforeAll(async () => {
    project = mkdtempSync(join(tmpdir(), 'skillbench-linked-project-'));
    cpSync(join(FIXTURE, 'notes'), join(project, '.agents', 'skills', 'notes'), { recursive: true });
    cpSync(join(FIXTURE, 'hostile'), join(project, '.agents', 'skills', 'hostile'), { recursive: true });
    cpSync(join(FIXTURE, 'hidden'), join(project, '.agents', 'skills', 'hidden'), { recursive: true });
    // A link that stays inside the link path's parent but leaves the real skill folder: refused.
    symlinkSync('../../hidden/references/secret.md', join(project, '.agents', 'skills', 'notes', 'references', 'sibling.md'));
    mkdirSync(join(project, '.claude', 'skills'), { recursive: true });
    for (const name of ['notes', 'hostile']) symlinkSync(`../../.agents/skills/${name}`, join(project, '.claude', 'skills', name));
    linked = await loadCatalogue(join(project, '.claude', 'skills'));
  });
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it('serves the linked skill\'s files and refuses a link that leaves its real folder', async () => {
    expect(linked.skills.map((s) => s.name)).toEqual(['hostile', 'notes']);
    const loader = new SkillLoader(linked);
    const guide = await loader.execute(call('read_skill_file', { name: 'notes', path: 'references/guide.md' }));
    expect(guide.result.isError).toBeFalsy();
    expect(guide.result.content).toContain('Decisions first');
    const sibling = await loader.execute(call('read_skill_file', { name: 'notes', path: 'references/sibling.md' }));
    expect(sibling.result.content).toMatch(/link that leaves the skill folder/);
    expect(sibling.result.content).not.toContain(SECRET);
  });

  it.skipIf(!canSandbox)('runs a linked skill\'s script from its real folder', async () => {
    const r = await new SkillLoader(linked).execute(call('run_skill_script', { name: 'hostile', path: 'scripts/echo.sh', args: ['linked'] }));
    expect(r.result.content).toBe('exit code 0\n<stdout>\n[linked]\n</stdout>\n<stderr></stderr>');
  });
});
