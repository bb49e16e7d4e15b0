// Hostile input that used to get through: request and catalogue files that are not UTF-8, frontmatter keys and
// profile names that an `in` check takes for known ones, and CSV cells a spreadsheet would run as formulas.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadCatalogue } from '../src/catalogue.js';
import { readResults } from '../src/results.js';
import { renderOutput } from '../src/report/index.js';
import { validateCatalogue } from '../src/validate.js';
import type { ResultsFile } from '../src/types.js';
import { runCli } from './support/cli.js';

const ROOT = path.resolve(import.meta.dirname, '..');
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'skillbench-hostile-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NO_KEYS = { GEMINI_API_KEY: undefined, GOOGLE_API_KEY: undefined, ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined };

describe('request and catalogue files that are not UTF-8: one clear line, exit 2', () => {
  const requests = JSON.stringify([{ text: 'Check my expense report', gold: 'expense-report-checker' }]);
  const cases: [string, Buffer, RegExp][] = [
    ['invalid UTF-8 (a Latin-1 é)', Buffer.from(requests.replace('Check', 'Ch\u00e9ck'), 'latin1'), /is not valid UTF-8 \(byte 12, line 1: 0xe9\)/],
    ['UTF-16 with a byte-order mark', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(requests, 'utf16le')]), /is UTF-16 \(little-endian byte-order mark\), not UTF-8/],
    ['UTF-16 without a mark', Buffer.from(requests, 'utf16le'), /looks like UTF-16 \(every other byte is NUL\), not UTF-8/],
  ];
  it.each(cases)('a request set in %s', async (_label, bytes, message) => {
    const file = path.join(dir, `requests-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, bytes);
    const r = await runCli(['eval-trigger', '--requests', file, '--selectors', 'keyword', '--no-progress', '--cache-dir', path.join(dir, 'cache')], { cwd: ROOT, env: NO_KEYS });
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^skillbench: error: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: the request set ${message.source}`));
    expect(lines[1]).toBe('  fix: save the file as UTF-8 (without NUL bytes)');
    expect(r.stderr).not.toContain('\0');
    expect(r.stderr).not.toContain('\ufffd');
  });

  it('a JSON catalogue in UTF-16 too', async () => {
    const file = path.join(dir, 'catalogue-utf16.json');
    writeFileSync(file, Buffer.from(JSON.stringify([{ name: 'a', description: 'Use when testing.' }]), 'utf16le'));
    const r = await runCli(['validate', file], { cwd: ROOT });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the catalogue looks like UTF-16/);
    expect(r.stderr).not.toContain('\0');
  });

  it('a UTF-8 byte-order mark is still fine', async () => {
    const file = path.join(dir, 'requests-bom.json');
    writeFileSync(file, `\ufeff${requests}`);
    const r = await runCli(['eval-trigger', '--requests', file, '--selectors', 'keyword', '--no-progress', '--cache-dir', path.join(dir, 'cache')], { cwd: ROOT, env: NO_KEYS });
    expect(r.stderr).not.toMatch(/skillbench: error/);
    expect(r.code).toBe(0);
  });
});

describe('prototype keys are not known fields or declared profiles', () => {
  it('validate warns about __proto__, constructor and toString frontmatter keys and refuses them as profile names', async () => {
    const cat = path.join(dir, 'proto');
    mkdirSync(path.join(cat, 'p'), { recursive: true });
    writeFileSync(
      path.join(cat, 'p', 'SKILL.md'),
      '---\nname: p\ndescription: Use when testing prototype keys.\n__proto__: polluted\nconstructor: c\ntoString: t\nmetadata:\n  tool-profiles: [constructor, toString, hasOwnProperty]\n---\n\nBody\n',
    );
    const problems = validateCatalogue(await loadCatalogue(cat)).map((p) => `${p.severity}: ${p.message}`);
    for (const key of ['__proto__', 'constructor', 'toString']) expect(problems).toContain(`warning: unknown frontmatter field \`${key}\` (not in the Agent Skills spec; hosts ignore it)`);
    for (const profile of ['constructor', 'toString', 'hasOwnProperty']) expect(problems).toContain(`error: tool profile "${profile}" is not declared in tool-profiles.json`);
  });

  it('a profile named __proto__ in tool-profiles.json is a profile, not the prototype of the table', async () => {
    const cat = path.join(dir, 'proto-profiles');
    mkdirSync(path.join(cat, 'q'), { recursive: true });
    writeFileSync(path.join(cat, 'tool-profiles.json'), '{"profiles": {"__proto__": [{"name": "evil_tool", "description": "x"}], "crm": []}}');
    writeFileSync(path.join(cat, 'q', 'SKILL.md'), '---\nname: q\ndescription: Use when testing profile tables.\nmetadata:\n  tool-profiles: [__proto__]\n---\n\nBody\n');
    const catalogue = await loadCatalogue(cat);
    expect(Object.keys(catalogue.toolProfiles).sort()).toEqual(['__proto__', 'crm']);
    expect(Object.getPrototypeOf(catalogue.toolProfiles)).toBe(Object.prototype);
    expect(Object.hasOwn(catalogue.toolProfiles, '__proto__')).toBe(true);
    expect(validateCatalogue(catalogue).filter((p) => p.severity === 'error')).toEqual([]);
  });
});

describe('CSV: every text cell a spreadsheet would run is defused', () => {
  it('the loaded column (a skill named like a formula, the model\'s out-of-enum choice) and the selector', async () => {
    const r = (await readResults(path.join(ROOT, 'fixtures', 'results', 'demo-results.json'))) as ResultsFile;
    const [d0, d1] = r.runs[0]!.decisions;
    d0!.chosen = null;
    d0!.rawChoice = '=HYPERLINK("http://evil.example","click")';
    d1!.chosen = '+cmd|/C calc!A0';
    r.runs[0]!.selector = '@selector';
    const rows = parseCsv(await renderOutput(r, '.csv'));
    const head = rows[0]!;
    const loaded = rows.slice(1).map((row) => row[head.indexOf('loaded')]!);
    expect(loaded).toContain('\'=HYPERLINK("http://evil.example","click")');
    expect(loaded).toContain("'+cmd|/C calc!A0");
    for (const row of rows.slice(1)) for (const cell of row) if (!/^-?\d/.test(cell)) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
  });
});

/** RFC 4180: quoted fields, doubled quotes, CRLF records. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') row.push(cell), (cell = '');
    else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      (row = []), (cell = ''), i++;
    } else cell += c;
  }
  return rows;
}
