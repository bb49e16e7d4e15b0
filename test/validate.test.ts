import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadCatalogue } from '../src/catalogue.js';
import { checkName, cosine, hasWhenToUseCue, nearDuplicates, termVector, validateCatalogue, NEAR_DUPLICATE_THRESHOLD } from '../src/validate.js';
import type { Problem } from '../src/types.js';

const root = path.resolve(__dirname, '..');
const fixture = (...p: string[]) => path.join(root, 'fixtures', ...p);
const HERMES = path.resolve(root, '../shared/data/hermes');

let tmp: string;
let n = 0;
beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'skillbench-validate-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A fresh catalogue folder with the given skills ({folder: frontmatter}) and optional tool-profiles.json. */
async function catalogueOf(skills: Record<string, string>, profiles?: object) {
  const dir = path.join(tmp, `cat-${++n}`);
  for (const [folder, fm] of Object.entries(skills)) {
    mkdirSync(path.join(dir, folder), { recursive: true });
    writeFileSync(path.join(dir, folder, 'SKILL.md'), `---\n${fm}\n---\n\n# Instructions\n\nDo it well.\n`);
  }
  if (profiles) writeFileSync(path.join(dir, 'tool-profiles.json'), JSON.stringify({ profiles }));
  return loadCatalogue(dir);
}

const messages = (ps: Problem[], severity?: string) => ps.filter((p) => !severity || p.severity === severity).map((p) => p.message);

describe('fixtures/broken', () => {
  it('gives exactly one error per broken skill and none for the valid neighbour', async () => {
    const problems = validateCatalogue(await loadCatalogue(fixture('broken')));
    const errors = problems.filter((p) => p.severity === 'error');
    const folderOf = (p: Problem) => path.relative(fixture('broken'), path.dirname(p.file)).split(path.sep).join('/');
    expect(errors.map(folderOf).sort()).toEqual([
      'Bad_Name',
      'bad-yaml',
      'binary-skill',
      'empty-description',
      'js-frontmatter',
      'long-description',
      'name-mismatch',
      'no-frontmatter',
      'two/duplicate-name',
    ]);
    expect(errors.find((p) => folderOf(p) === 'long-description')!.message).toBe("description is 2000 characters, over the spec's 1024");
    expect(errors.find((p) => folderOf(p) === 'name-mismatch')!.message).toBe('name "another-name" differs from its folder "name-mismatch"');
    expect(errors.every((p) => p.fix.length > 0 && p.line >= 1)).toBe(true);
  });

  it('returns problems sorted by file then line', async () => {
    const problems = validateCatalogue(await loadCatalogue(fixture('broken')));
    const keys = problems.map((p) => `${p.file}\0${String(p.line).padStart(5, '0')}`);
    expect(keys).toEqual([...keys].sort());
  });
});

describe('spec checks', () => {
  it('checks names against the spec', () => {
    expect(checkName('expense-report-checker')).toBeNull();
    expect(checkName('a1')).toBeNull();
    expect(checkName('a'.repeat(64))).toBeNull();
    expect(checkName('a'.repeat(65))).toMatch(/65 characters/);
    expect(checkName('Bad')).toMatch(/uppercase/);
    expect(checkName('-lead')).toMatch(/starts or ends/);
    expect(checkName('trail-')).toMatch(/starts or ends/);
    expect(checkName('two--hyphens')).toMatch(/consecutive/);
    expect(checkName('under_score')).toMatch(/characters other than/);
    expect(checkName('')).not.toBeNull();
  });

  it('agrees with skills-ref on names: Unicode letters, lowercase, NFKC, code points', () => {
    // The cases of skills-ref's own tests (tests/test_validator.py): i18n names are valid, uppercase is not.
    expect(checkName('技能')).toBeNull();
    expect(checkName('мой-навык')).toBeNull();
    expect(checkName('навык')).toBeNull();
    expect(checkName('НАВЫК')).toMatch(/uppercase/);
    expect(checkName('café')).toBeNull();
    expect(checkName('cafe\u0301')).toBeNull(); // decomposed é: NFKC composes it
    expect(checkName('é'.repeat(64))).toBeNull(); // 64 code points (128 bytes)
    expect(checkName('é'.repeat(65))).toMatch(/65 characters/);
    expect(checkName('my skill')).toMatch(/characters other than/);
  });

  it('names a skill reached through a link after the link, as the host sees the folder', async () => {
    const dir = path.join(tmp, 'link-name');
    mkdirSync(path.join(dir, 'store', 'real-folder'), { recursive: true });
    writeFileSync(path.join(dir, 'store', 'real-folder', 'SKILL.md'), '---\nname: linked-name\ndescription: Use when testing link names.\n---\nBody.\n');
    mkdirSync(path.join(dir, 'cat'));
    symlinkSync(path.join(dir, 'store', 'real-folder'), path.join(dir, 'cat', 'linked-name'));
    expect(validateCatalogue(await loadCatalogue(path.join(dir, 'cat')))).toEqual([]);
  });

  it('names the rule of every problem, and switches rules by id or name; fatal rules stay', async () => {
    const problems = validateCatalogue(await loadCatalogue(fixture('broken')));
    expect(problems.every((p) => /^SB\d{3}$/.test(p.rule ?? ''))).toBe(true);
    const off = validateCatalogue(await loadCatalogue(fixture('broken')), { rules: { 'name-invalid': 'off', SB012: 'off', SB003: 'off' } });
    expect(off.some((p) => p.rule === 'SB006' || p.rule === 'SB012')).toBe(false);
    expect(off.filter((p) => p.rule === 'SB003')).toHaveLength(3); // a skill that cannot be loaded is always reported
    const up = validateCatalogue(await loadCatalogue(fixture('broken')), { rules: { 'description-too-long-for-host': 'error' } });
    expect(up.find((p) => p.rule === 'SB012')?.severity).toBe('error');
    const { checkRuleSetting, RULES } = await import('../src/rules.js');
    expect(checkRuleSetting('SB999', 'off')).toMatch(/not a rule id or name/);
    expect(checkRuleSetting('duplicate-name', 'off')).toMatch(/cannot be switched off/);
    expect(checkRuleSetting('no-when-to-use', 'off')).toBeNull();
    expect(new Set(RULES.map((r) => r.id)).size).toBe(RULES.length);
  });

  it('flags compatibility over 500 characters, and unknown fields as warnings at their line', async () => {
    const cat = await catalogueOf({
      'odd-fields': `name: odd-fields\ndescription: Use when testing fields.\ncompatibility: ${'x'.repeat(501)}\nversion: 2\nwhen_to_use: when the user says so`,
    });
    const ps = validateCatalogue(cat);
    expect(ps.filter((p) => p.severity === 'error').map((p) => [p.line, p.message])).toEqual([[4, "compatibility is 501 characters, over the spec's 500"]]);
    expect(ps.filter((p) => p.severity === 'warning').map((p) => [p.line, p.message])).toEqual([
      [5, 'unknown frontmatter field `version` (not in the Agent Skills spec; hosts ignore it)'],
    ]);
  });

  it('counts characters as code points, like the spec: 1,024 emoji are a valid description, 1,025 are not', async () => {
    const cat = await catalogueOf({
      'fits': `name: fits\ndescription: "Use when ${'🙂'.repeat(1024 - 'Use when '.length)}"\ncompatibility: "${'é'.repeat(250)}${'🙂'.repeat(250)}"`,
      'too-long': `name: too-long\ndescription: "Use when ${'🙂'.repeat(1025 - 'Use when '.length)}"`,
    });
    expect(messages(validateCatalogue(cat), 'error')).toEqual(["description is 1025 characters, over the spec's 1024"]);
  });

  it('requires declared tool profiles', async () => {
    const cat = await catalogueOf(
      { 'uses-profiles': 'name: uses-profiles\ndescription: Use when testing profiles.\nmetadata:\n  tool-profiles: [calendar, crm]' },
      { calendar: [{ name: 'find_free_slots', description: 'd', parameters: { type: 'object' } }] },
    );
    const errors = validateCatalogue(cat).filter((p) => p.severity === 'error');
    expect(errors.map((p) => [p.line, p.message, p.fix])).toEqual([[5, 'tool profile "crm" is not declared in tool-profiles.json', 'use one of calendar or declare it']]);
  });

  it('passes the valid fixtures with no error', async () => {
    expect(messages(validateCatalogue(await loadCatalogue(fixture('valid/categorised'))), 'error')).toEqual([]);
    const json = validateCatalogue(await loadCatalogue(fixture('valid/catalogue.json')));
    expect(messages(json, 'error')).toEqual([]);
    // In a JSON roster a non-spec name is only a warning (tool rosters such as MetaTool use any names).
    expect(messages(json, 'warning')).toContain('"TimeZone_Tool": name has uppercase letters (the Agent Skills spec would reject it)');
  });
});

describe('lint warnings', () => {
  it("says nothing of Hermes' 60-character index unless SB013 is switched on, then not at exactly 60", async () => {
    const sixty = 'Use when the user wants a report on sales by region and month';
    expect(sixty).toHaveLength(61);
    const exactly = sixty.slice(0, 60);
    const cat = await catalogueOf({ 'long-one': `name: long-one\ndescription: ${sixty}`, 'short-one': `name: short-one\ndescription: ${exactly}` });
    expect(validateCatalogue(cat).filter((p) => p.rule === 'SB013')).toEqual([]); // no host profile cuts at 60 by default
    for (const key of ['SB013', 'description-cut-in-host-index']) {
      const ws = validateCatalogue(cat, { rules: { [key]: 'warning' } }).filter((p) => p.rule === 'SB013');
      expect(ws.map((p) => [path.basename(path.dirname(p.file)), p.rule, p.message])).toEqual([
        ['long-one', 'SB013', `description is 61 characters; Hermes' index shows only "${sixty.slice(0, 57)}..."`],
      ]);
    }
  });

  it('warns when description + when_to_use exceed the 1,536 characters Claude Code lists', async () => {
    const d = `Use when testing. ${'a'.repeat(1000)}`;
    const cat = await catalogueOf({ 'wordy': `name: wordy\ndescription: ${d}\nwhen_to_use: ${'b'.repeat(600)}` });
    const w = validateCatalogue(cat).find((p) => p.message.includes('Claude Code'));
    expect(w?.message).toBe(`description + when_to_use is ${d.length + 600} characters; Claude Code's skill listing cuts it at 1536`);
    const cat2 = await catalogueOf({ 'wordy': `name: wordy\ndescription: ${d}\nwhen_to_use: short` });
    expect(validateCatalogue(cat2).some((p) => p.message.includes('Claude Code'))).toBe(false);
  });

  it('recognises "when to use" cues and quoted trigger phrases in the languages authors write in, and warns without one', async () => {
    for (const yes of [
      'Profiles CSV files. Use when the user shares a CSV.',
      'Profiles CSV files. Use this skill for data checks.',
      'Tool for profiling CSV files before a migration.',
      'Profile un CSV. Utiliser quand un fichier CSV est partagé.',
      "Profile un CSV lorsqu'un utilisateur envoie un fichier.",
      'Profiles CSV files whenever data quality matters.',
      'Prüft Reisekostenabrechnungen. Verwenden, wenn ein Beleg eingereicht wird.',
      'Revisa facturas. Úsalo cuando el usuario envíe una factura.',
      'Controlla le fatture quando arriva un PDF.',
      'Проверяет счета. Используй, когда пользователь присылает счёт.',
      '経費精算をチェックします。領収書が届いた場合に使います。',
      '检查报销单。当用户上传发票时使用。',
      '경비 보고서를 검토합니다. 영수증을 받았을 때 사용하세요.',
      'Résume des PDF : « résume ce PDF », « fais-moi un résumé », « les points clés ».',
      'PDF-Zusammenfassung: "fasse dieses PDF zusammen", "die Kernpunkte bitte"',
    ]) expect(hasWhenToUseCue(yes), yes).toBe(true);
    for (const no of ['Read, search, create, and edit notes in the Obsidian vault.', 'Apple Reminders via remindctl: add, list, complete.', 'Quanta of data.', 'Le fichier "a".'])
      expect(hasWhenToUseCue(no), no).toBe(false);
    // A description in a script no cue covers is not judged: the rule cannot tell, so it says nothing.
    const arabic = await catalogueOf({ 'arabic-skill': 'name: arabic-skill\ndescription: يراجع الفواتير ويتحقق من المبالغ المستحقة' });
    expect(validateCatalogue(arabic)).toEqual([]);
    const cat = await catalogueOf({ 'no-cue': 'name: no-cue\ndescription: Apple Reminders via remindctl.' });
    expect(messages(validateCatalogue(cat), 'warning')).toEqual(['description says what the skill is but not when to use it']);
  });

  it('warns about TODO placeholders left from init, in the description and in the body; --strict makes them errors', async () => {
    const cat = await catalogueOf({ 'todo-skill': 'name: todo-skill\ndescription: "TODO: say what. Use when TODO."' });
    expect(messages(validateCatalogue(cat), 'warning')).toContain('description still holds TODO placeholders');
    const dir = path.join(tmp, 'todo-body', 'todo-body');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'SKILL.md'), '---\nname: todo-body\ndescription: Checks invoices. Use when an invoice arrives.\n---\n\n# Todo Body\n\n## Steps\n1. TODO: the first thing to do.\n');
    const body = validateCatalogue(await loadCatalogue(path.dirname(dir)));
    expect(body.map((p) => [p.rule, p.severity, p.line, p.message])).toEqual([
      ['SB014', 'warning', 9, 'the instructions still hold TODO placeholders (line "1. TODO: the first thing to do.")'],
    ]);
    expect(validateCatalogue(await loadCatalogue(path.dirname(dir)), { strict: true }).map((p) => [p.rule, p.severity])).toEqual([['SB014', 'error']]);
    // A TODO the instructions talk about is not a placeholder (Hermes' dcf-model: never write "TODO: add source").
    writeFileSync(path.join(dir, 'SKILL.md'), '---\nname: todo-body\ndescription: Checks invoices. Use when an invoice arrives.\n---\n\nNever write `TODO: add source`.\nResearch Paper TODO: list\n```\nTODO: in a code block\n```\n');
    expect(validateCatalogue(await loadCatalogue(path.dirname(dir)))).toEqual([]);
  });

  it('leaves an untouched `skillbench init` skeleton with errors under --strict only', async () => {
    const { runCli } = await import('./support/cli.js');
    const dir = path.join(tmp, 'init-strict');
    expect((await runCli(['init', 'fresh-skill', '--dir', dir])).code).toBe(0);
    const plain = await runCli(['validate', dir]);
    expect(plain.code).toBe(0);
    const strict = await runCli(['validate', dir, '--strict']);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/SKILL\.md:3: error SB014 placeholder-left: description still holds TODO placeholders/);
    expect(strict.stdout).toMatch(/SKILL\.md:\d+: error SB014 placeholder-left: the instructions still hold TODO placeholders/);
  });

  it('names the pair of skills whose descriptions are nearly the same', async () => {
    const cat = await catalogueOf({
      'leave-request': 'name: leave-request\ndescription: Books days off in the HR tool for an employee. Use when the user wants to take leave.',
      'leave-booking': 'name: leave-booking\ndescription: Books days off in the HR tool for an employee. Use when the user wants to take holidays.',
      'csv-profiler': 'name: csv-profiler\ndescription: Profiles a CSV file column by column. Use when the user shares a CSV.',
    });
    const dups = validateCatalogue(cat).filter((p) => p.message.includes('nearly the same'));
    expect(dups).toHaveLength(1);
    expect(dups[0].message).toMatch(/^descriptions of "leave-booking" and "leave-request" are nearly the same \(cosine 0\.\d\d >= 0\.80\)/);
    expect(path.basename(path.dirname(dups[0].file))).toBe('leave-request');
  });

  it('computes cosine similarity over word counts', () => {
    const a = termVector('Books days off in the HR tool');
    expect([...a.keys()].sort()).toEqual(['books', 'days', 'off', 'tool']); // "the", "in", "HR" (2 letters) dropped
    expect(cosine(a, a)).toBeCloseTo(1, 10);
    expect(cosine(a, termVector('Profiles a spreadsheet'))).toBe(0);
    // books, days, tool shared out of {books, days, off, tool} vs {books, days, tool, leave}: 3 / (2 * 2)
    expect(cosine(a, termVector('books days tool leave'))).toBeCloseTo(0.75, 10);
    expect(NEAR_DUPLICATE_THRESHOLD).toBe(0.8);
  });

  it('reports nothing for the demo-sized distinct descriptions of the valid fixture', async () => {
    expect(nearDuplicates((await loadCatalogue(fixture('valid/categorised'))).skills)).toEqual([]);
  });
});

describe.skipIf(!existsSync(HERMES))('Hermes catalogue (177 skills)', () => {
  it('validates without crashing and reports the known name/folder mismatches', async () => {
    const cat = await loadCatalogue(HERMES);
    const ps = validateCatalogue(cat);
    expect(cat.skills).toHaveLength(177);
    const errors = ps.filter((p) => p.severity === 'error');
    // Hermes names some skills differently from their folder (e.g. optional-skills/mlops/.../peft is peft-fine-tuning).
    expect(errors.some((p) => p.message === 'name "peft-fine-tuning" differs from its folder "peft"')).toBe(true);
    expect(errors.every((p) => /differs from its folder|has characters other than/.test(p.message))).toBe(true);
    expect(ps.some((p) => p.rule === 'SB013')).toBe(false); // no 60-character warnings by default
  });
});
