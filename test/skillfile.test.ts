// Replacing a SKILL.md description in place: every other byte kept, the value quoted the way YAML needs, the edit
// read back by the catalogue's own parser, and the diff `improve` prints.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseFrontmatter } from '../src/catalogue.js';
import { DescriptionEditError, editDiff, replaceDescription } from '../src/skillfile.js';

const root = path.resolve(import.meta.dirname, '..');

/** The edit keeps the lines before and after the replaced ones byte for byte, and the new file reads back. */
function check(file: string, description: string) {
  const edit = replaceDescription(file, description);
  const bom = file.startsWith('\uFEFF') ? '\uFEFF' : '';
  const oldLines = file.slice(bom.length).split(/(?<=\n)/);
  const newLines = edit.text.slice(bom.length).split(/(?<=\n)/);
  expect(edit.text.startsWith(bom)).toBe(true);
  expect(newLines.slice(0, edit.start)).toEqual(oldLines.slice(0, edit.start));
  expect(newLines.slice(edit.start + edit.newLines.length)).toEqual(oldLines.slice(edit.end));
  const before = parseFrontmatter(file.slice(bom.length));
  const after = parseFrontmatter(edit.text.slice(bom.length));
  if ('error' in before || 'error' in after) throw new Error('unparsable');
  expect(after.data.description).toBe(description);
  expect(after.body).toBe(before.body);
  const { description: _a, ...restAfter } = after.data;
  const { description: _b, ...restBefore } = before.data;
  expect(restAfter).toEqual(restBefore);
  return edit;
}

const plain = '---\nname: demo\ndescription: Old text.\nlicense: MIT\n---\n\n# Demo\n\nBody: keep me.\n';

describe('replaceDescription', () => {
  it('keeps every byte of a bundled SKILL.md outside the description, whose folded style and width it keeps', () => {
    const file = readFileSync(path.join(root, 'skills/csv-data-profiler/SKILL.md'), 'utf8');
    const text = 'Profiles a CSV export: column types, empty values, duplicates, ranges. ' + 'Use when a user shares tabular data and asks what is in it. '.repeat(3);
    const edit = check(file, text.trim());
    expect(edit.newLines[0]).toBe('description: >-\n');
    const widest = Math.max(...edit.oldLines.map((l) => l.length - 1));
    for (const l of edit.newLines) expect(l.length - 1).toBeLessThanOrEqual(widest);
    expect(edit.text.endsWith(file.slice(file.indexOf('license: MIT')))).toBe(true);
  });

  it.each([
    ['a colon and a hash', 'Checks things: reports, receipts # and totals'],
    ['quotes of both kinds', `It's the "best" tool, isn't it?`],
    ['several lines', 'First line.\nSecond line: with a colon.\n\nA paragraph after a blank line.'],
    ['a leading dash', '- starts like a list item'],
    ['a leading quote', '"Quoted" at the start'],
    ['YAML 1.1 booleans', 'yes'],
    ['a number', '1024'],
    ['a date', '2026-12-01'],
    ['trailing spaces', 'ends with spaces   '],
    ['a tab and control characters', 'tab\there\u0007bell'],
    ['non-ASCII and line separators', 'Vérifie la note de frais — 22 € \u2028 fin'],
    ['a very long single line', 'word '.repeat(230).trim()],
    ['a backslash and braces', 'C:\\path {x} [y] & *z !tag %p @at `tick`'],
  ])('writes %s so that it reads back exactly', (_what, description) => {
    check(plain, description);
  });

  it('writes a 1.1 boolean-looking value quoted (PyYAML would read a plain yes as true)', () => {
    expect(replaceDescription(plain, 'yes').newLines).toEqual(["description: 'yes'\n"]);
    expect(replaceDescription(plain, 'Off').newLines).toEqual(["description: 'Off'\n"]);
  });

  it('replaces quoted, literal and multi-line plain descriptions, and leaves comments and blank lines after them', () => {
    const files = [
      '---\nname: a\ndescription: "double\n  quoted over lines"\n# a comment about the licence\nlicense: MIT\n---\nbody\n',
      "---\nname: a\ndescription: 'single ''quoted'''\n\nmetadata:\n  state: available\n---\nbody\n",
      '---\nname: a\ndescription: |\n    literal with\n    four spaces\n\n# trailing comment\n---\nbody\n',
      '---\nname: a\ndescription: plain text\n  continued on a second line\nlicense: MIT\n---\nbody\n',
      '---\ndescription: first key\nname: a\n---\n',
    ];
    for (const file of files) {
      const edit = check(file, 'New: text, with "quotes" and it\'s fine.');
      expect(edit.text).toContain(file.includes('# a comment') ? '# a comment about the licence\nlicense: MIT' : '---');
    }
    const kept = check(files[2]!, 'word '.repeat(40).trim());
    expect(kept.text).toContain('\n\n# trailing comment\n---\nbody\n');
    // A block scalar indented by four keeps four.
    expect(kept.newLines[1]!.startsWith('    word')).toBe(true);
  });

  it('keeps CRLF line endings and a byte-order mark', () => {
    const file = '\uFEFF---\r\nname: demo\r\ndescription: >-\r\n  Old text\r\n  over two lines.\r\nlicense: MIT\r\n---\r\nBody\r\n';
    const edit = check(file, 'A new description: ' + 'longer words here '.repeat(8).trim());
    for (const l of edit.newLines) expect(l.endsWith('\r\n')).toBe(true);
    expect(edit.text.startsWith('\uFEFF---\r\nname: demo\r\n')).toBe(true);
    expect(edit.text.endsWith('license: MIT\r\n---\r\nBody\r\n')).toBe(true);
  });

  it('refuses what it cannot edit safely, naming why', () => {
    const refuse = (file: string, why: RegExp) => {
      expect(() => replaceDescription(file, 'x')).toThrow(DescriptionEditError);
      expect(() => replaceDescription(file, 'x')).toThrow(why);
    };
    refuse('# no frontmatter\n', /does not start with a `---`/);
    refuse('---\nname: a\ndescription: b\n', /not closed/);
    refuse('---\nname: a\n"description": b\n---\n', /no `description:` line/);
    refuse('---\n{name: a, description: b}\n---\n', /no `description:` line/);
  });
});

describe('re-folding a folded description', () => {
  it('keeps the old lines where the words are the same and wraps only what changed, so the diff shows the change', () => {
    const file = readFileSync(path.join(root, 'skills/hr-policy-qa/SKILL.md'), 'utf8');
    const old = parseFrontmatter(file);
    if ('error' in old) throw new Error(old.error);
    const text = `${old.data.description as string} Also for badge access and dress code questions.`;
    const edit = check(file, text);
    expect(edit.newLines.slice(0, edit.oldLines.length)).toEqual(edit.oldLines);
    const diff = editDiff(edit, file, { from: 'a', to: 'b' });
    expect(diff.split('\n').filter((l) => /^[-+](?![-+])/.test(l))).toEqual(['+  Also for badge access and dress code questions.']);
    // A change in the middle: the first and last lines stay, the middle is wrapped again.
    const middle = (old.data.description as string).replace('parental leave', 'parental and adoption leave');
    const m = check(file, middle);
    expect(m.newLines[1]).toBe(m.oldLines[1]);
    expect(m.newLines.at(-1)).toBe(m.oldLines.at(-1));
    expect(editDiff(m, file, { from: 'a', to: 'b' }).split('\n').filter((l) => l.startsWith('-') && !l.startsWith('---')).length).toBeLessThan(m.oldLines.length - 2);
  });
});

describe('editDiff', () => {
  it('prints a unified hunk with three lines of context and the right line numbers', () => {
    const file = '---\nname: demo\ndescription: Old text.\nlicense: MIT\n---\n\n# Demo\n\nBody: keep me.\n';
    const edit = replaceDescription(file, 'New text: better.');
    expect(editDiff(edit, file, { from: 'a/SKILL.md', to: 'b/SKILL.md' })).toBe(
      ['--- a/SKILL.md', '+++ b/SKILL.md', '@@ -1,6 +1,6 @@', ' ---', ' name: demo', '-description: Old text.', "+description: 'New text: better.'", ' license: MIT', ' ---', ' '].join('\n') + '\n',
    );
  });
});
