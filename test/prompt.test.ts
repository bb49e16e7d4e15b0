import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadCatalogue } from '../src/catalogue.js';
import { escapeXml, hermesDescription, renderCatalogue, renderLoadAll, renderSkillContent } from '../src/prompt.js';
import { activateSkillTool, allProfileToolDeclarations, profileToolDeclarations, skillToolDeclarations } from '../src/tools.js';
import { UserError } from '../src/errors.js';
import type { Skill } from '../src/types.js';
import { testSkill } from './support/fixtures.js';

const root = path.resolve(__dirname, '..');
const HERMES = path.resolve(root, '../shared/data/hermes');

/** The test skills of this file carry a body line of their own. */
const skill = (name: string, description: string, extra: Partial<Skill> = {}): Skill => testSkill(name, description, { body: `# ${name}\n\nBody of ${name}.\n`, ...extra });

describe('renderCatalogue xml (skills-ref to-prompt)', () => {
  it('renders one <skill> per skill, each value on its own line, escaped, sorted by name', () => {
    const out = renderCatalogue([skill('b-skill', 'Second & last <one>'), skill('a-skill', 'First "quoted" it\'s')], 'xml');
    expect(out).toBe(
      [
        '<available_skills>',
        '<skill>',
        '<name>',
        'a-skill',
        '</name>',
        '<description>',
        'First &quot;quoted&quot; it&apos;s',
        '</description>',
        '<location>',
        'a-skill/SKILL.md',
        '</location>',
        '</skill>',
        '<skill>',
        '<name>',
        'b-skill',
        '</name>',
        '<description>',
        'Second &amp; last &lt;one&gt;',
        '</description>',
        '<location>',
        'b-skill/SKILL.md',
        '</location>',
        '</skill>',
        '</available_skills>',
      ].join('\n'),
    );
  });

  it('leaves never skills out and appends always skills’ bodies in a stable block', () => {
    const out = renderCatalogue(
      [skill('zeta', 'Z. Use when z.', { state: 'always', body: 'Always do Z.' }), skill('hidden', 'H', { state: 'never' }), skill('alpha', 'A')],
      'xml',
    );
    expect(out).not.toContain('hidden');
    expect(out.indexOf('<name>\nalpha')).toBeLessThan(out.indexOf('<name>\nzeta'));
    expect(out.endsWith('</available_skills>\n\n<always_loaded_skills>\n<skill_content name="zeta" version="0123456789abcdef">\nAlways do Z.\n</skill_content>\n</always_loaded_skills>')).toBe(true);
  });

  it('is byte-identical whatever the input order', () => {
    const skills = [skill('c', 'C', { category: 'x' }), skill('a', 'A', { category: 'y' }), skill('b', 'B', { state: 'always' })];
    for (const format of ['xml', 'hermes', 'markdown'] as const) {
      const a = renderCatalogue(skills, format);
      expect(renderCatalogue([...skills].reverse(), format)).toBe(a);
      expect(renderCatalogue([skills[1], skills[2], skills[0]], format)).toBe(a);
    }
  });
});

describe('renderCatalogue hermes', () => {
  it('groups by sorted category, sorts by name, cuts descriptions past 60 characters to 57 + "..."', () => {
    const long = 'Profiles a CSV file column by column and flags the gaps, duplicates and outliers.';
    const exactly60 = 'x'.repeat(60);
    const out = renderCatalogue(
      [
        skill('zed', long, { category: 'data' }),
        skill('alpha', exactly60, { category: 'data' }),
        skill('mid', 'Multi\n  line   text', { category: 'admin' }),
        skill('root-level', 'At the root'),
      ],
      'hermes',
    );
    expect(out).toBe(
      [
        '<available_skills>',
        '  admin:',
        '    - mid: Multi line text',
        '  data:',
        `    - alpha: ${exactly60}`,
        `    - zed: ${long.slice(0, 57)}...`,
        '  general:',
        '    - root-level: At the root',
        '</available_skills>',
      ].join('\n'),
    );
  });

  it('never cuts inside a surrogate pair', () => {
    const d = `${'a'.repeat(56)}😀😀😀😀😀😀`;
    expect(hermesDescription(d)).toBe(`${'a'.repeat(56)}😀...`);
  });

  it.skipIf(!existsSync(HERMES))("matches the descriptions of Hermes' own index for all 177 skills", async () => {
    const roster: { name: string; description: string; description_full: string }[] = JSON.parse(readFileSync(path.join(HERMES, 'roster.json'), 'utf8'));
    const cat = await loadCatalogue(HERMES);
    const out = renderCatalogue(cat.skills, 'hermes');
    for (const r of roster) {
      expect(hermesDescription(r.description_full), r.name).toBe(r.description);
      expect(out, r.name).toContain(`    - ${r.name}: ${r.description}\n`);
    }
  });
});

describe('renderCatalogue markdown', () => {
  it('lists name, location and description, under category headings when there are categories', () => {
    expect(renderCatalogue([skill('b', 'B does b.'), skill('a', 'A does\na.')], 'markdown')).toBe(
      '## Available skills\n\n- **a** (`a/SKILL.md`): A does a.\n- **b** (`b/SKILL.md`): B does b.',
    );
    expect(renderCatalogue([skill('b', 'B.', { category: 'ops' }), skill('a', 'A.')], 'markdown')).toBe(
      '## Available skills\n\n### general\n\n- **a** (`a/SKILL.md`): A.\n\n### ops\n\n- **b** (`b/SKILL.md`): B.',
    );
  });
});

describe('skill content and load-all', () => {
  it('renders the activation content with version and resource paths only', () => {
    const s = skill('inv', 'I', { body: '\n# Inv\n\nSteps.\n\n', resources: ['references/r.md', 'scripts/a&b.mjs'] });
    expect(renderSkillContent(s)).toBe(
      '<skill_content name="inv" version="0123456789abcdef">\n# Inv\n\nSteps.\n<skill_resources>\nreferences/r.md\nscripts/a&amp;b.mjs\n</skill_resources>\n</skill_content>',
    );
    expect(renderSkillContent(skill('x', 'X', { body: 'B' }))).toBe('<skill_content name="x" version="0123456789abcdef">\nB\n</skill_content>');
  });

  it('loads every visible body and resource in load-all mode', () => {
    const calls: string[] = [];
    const out = renderLoadAll(
      [skill('b', 'B', { resources: ['r.md'] }), skill('gone', 'G', { state: 'never', resources: ['x.md'] }), skill('a', 'A <1>')],
      (s, p) => (calls.push(`${s.name}:${p}`), `contents of ${p}`),
    );
    expect(calls).toEqual(['b:r.md']);
    expect(out).toBe(
      [
        '<all_skills>',
        '<skill name="a" version="0123456789abcdef">',
        '<description>',
        'A &lt;1&gt;',
        '</description>',
        '<instructions>',
        '# a\n\nBody of a.',
        '</instructions>',
        '</skill>',
        '<skill name="b" version="0123456789abcdef">',
        '<description>',
        'B',
        '</description>',
        '<instructions>',
        '# b\n\nBody of b.',
        '</instructions>',
        '<file path="r.md">',
        'contents of r.md',
        '</file>',
        '</skill>',
        '</all_skills>',
      ].join('\n'),
    );
  });

  it('escapes the five XML characters', () => {
    expect(escapeXml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;');
  });
});

describe('skill tools', () => {
  it('declares activate_skill with the visible names, and the two file tools', async () => {
    const cat = await loadCatalogue(path.join(root, 'fixtures/valid/categorised'));
    const tools = skillToolDeclarations(cat.skills);
    expect(tools.map((t) => t.name)).toEqual(['activate_skill', 'read_skill_file', 'run_skill_script']);
    const names = (tools[0].parameters as { properties: { name: { enum: string[] } } }).properties.name.enum;
    expect(names).toEqual(['general-helper', 'invoice-matcher', 'mail-drafter', 'meeting-scheduler', 'nested-helper']); // legacy-fax is never
    expect(tools[2].parameters).toMatchObject({ properties: { args: { type: 'array', items: { type: 'string' } } }, required: ['name', 'path'] });
    expect(activateSkillTool(['b', 'a']).parameters).toMatchObject({ properties: { name: { enum: ['a', 'b'] } }, required: ['name'] });
  });

  it('expands tool profiles, and refuses an unknown one', async () => {
    const cat = await loadCatalogue(path.join(root, 'fixtures/valid/categorised'));
    expect(profileToolDeclarations(cat, ['mail', 'calendar', 'mail']).map((t) => t.name)).toEqual(['send_mail', 'find_free_slots', 'create_event']);
    expect(allProfileToolDeclarations(cat).map((t) => t.name)).toEqual(['find_free_slots', 'create_event', 'send_mail']);
    expect(() => profileToolDeclarations(cat, ['crm'])).toThrow(UserError);
    expect(() => profileToolDeclarations(cat, ['crm'])).toThrow(/tool profile "crm" is not declared/);
  });
});
