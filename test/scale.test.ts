// Work that must grow with the input, not with its square: token counts of long runs of one character, a JSON
// catalogue's line numbers, the near-duplicate check of validate, a huge skill name through the keyword selector.
// Each large case would take minutes with the former quadratic code (the per-test timeouts below are far above what
// the linear code needs, and far below what the quadratic one took); the figures themselves are in docs/benchmarks.md.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { o200k } from './support/o200k.js';
import { auditCatalogue, MAX_TABLE_ROWS, renderAuditTables } from '../src/audit.js';
import { loadCatalogue } from '../src/catalogue.js';
import { cosine, MAX_CANDIDATES, nearDuplicates, termVector, type NearDuplicateStats } from '../src/near-duplicates.js';
import { countInPieces, countTokens, LONG_RUN } from '../src/tokenizer.js';
import type { Skill } from '../src/types.js';
import { runCli } from './support/cli.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const HERMES = path.resolve(ROOT, '../shared/data/hermes');
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'skillbench-scale-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const exact = (t: string) => (t === '' ? 0 : o200k(t));

describe('offline token counts stay linear', () => {
  it('never hands the encoder a piece longer than LONG_RUN characters of one class', () => {
    const pieces: string[] = [];
    const text = `intro ${'a'.repeat(300_000)} middle ${'中'.repeat(5_000)} ${' '.repeat(2_000)}${'-'.repeat(1_000)} end 😀${'😀'.repeat(700)}`;
    countInPieces(text, (p) => (pieces.push(p), p.length));
    expect(pieces.join('')).toBe(text); // every character counted once
    const longest = Math.max(...pieces.map((p) => (/^(.)\1*$/su.test(p) ? p.length : 0)));
    expect(longest).toBeLessThanOrEqual(LONG_RUN);
    expect(pieces.every((p) => !/[\ud800-\udbff]$/.test(p))).toBe(true); // no emoji cut in two
  });

  it('512 KiB of one letter (and of CJK, spaces, punctuation) counts in well under the timeout, close to the exact count', { timeout: 30_000 }, () => {
    for (const ch of ['a', 'Z', '中', ' ', '.', '😀']) {
      const big = ch.repeat(Math.ceil((512 * 1024) / ch.length));
      expect(countTokens(big)).toBeGreaterThan(0);
      const small = ch.repeat(Math.ceil(4096 / ch.length)); // the exact count is affordable here
      expect(Math.abs(countTokens(small) - exact(small)) / exact(small)).toBeLessThan(0.01);
    }
  });

  it('is exact on real text: the repository\'s docs, and every Hermes SKILL.md when ../shared/data is present', () => {
    const files = [path.join(ROOT, 'README.md'), ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => path.join(ROOT, 'docs', f))];
    if (existsSync(HERMES)) {
      const walk = (d: string) => {
        for (const e of readdirSync(d, { withFileTypes: true })) {
          if (e.isDirectory()) walk(path.join(d, e.name));
          else if (e.name === 'SKILL.md') files.push(path.join(d, e.name));
        }
      };
      walk(HERMES);
    }
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      expect(countTokens(text), f).toBe(exact(text));
    }
  });

  it('`tokens` audits a skill with a 256 KiB resource of one letter, and a 100,000-letter name goes through eval-trigger', { timeout: 60_000 }, async () => {
    const cat = path.join(dir, 'big-resource');
    mkdirSync(path.join(cat, 'big', 'references'), { recursive: true });
    writeFileSync(path.join(cat, 'big', 'SKILL.md'), '---\nname: big\ndescription: Use when testing a very large resource file.\n---\n\nRead references/run.md.\n');
    writeFileSync(path.join(cat, 'big', 'references', 'run.md'), 'a'.repeat(256 * 1024));
    const tokens = await runCli(['tokens', '--skills', cat, '--json'], { cwd: ROOT });
    expect(tokens.code, tokens.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(tokens.stdout))).toContain('"big"');

    const skills = path.join(dir, 'long-name.json');
    writeFileSync(skills, JSON.stringify([
      { name: 'x'.repeat(100_000), description: 'Use when the user asks for the skill with a very long name.' },
      { name: 'expense-checker', description: 'Use when the user asks to check an expense report.' },
      { name: 'leave-planner', description: 'Use when the user asks to plan their leave.' },
    ]));
    const requests = path.join(dir, 'long-name-requests.json');
    writeFileSync(requests, JSON.stringify([{ text: 'check my expense report', gold: 'expense-checker' }]));
    const r = await runCli(['eval-trigger', '--skills', skills, '--requests', requests, '--selectors', 'keyword', '--no-progress', '--cache-dir', path.join(dir, 'cache')], { cwd: ROOT });
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('the token audit of a large catalogue', () => {
  it('lists the heaviest 500 skills and counts the rest, instead of a 20,000-row table', { timeout: 30_000 }, async () => {
    const file = path.join(dir, 'audit-20k.json');
    writeFileSync(file, JSON.stringify(Array.from({ length: 20_000 }, (_, i) => ({ name: `s-${i}`, description: `Use when the user asks about topic ${i}.`, body: 'word '.repeat(i % 97) }))));
    const catalogue = await loadCatalogue(file);
    const audit = auditCatalogue(catalogue, 'xml');
    const text = renderAuditTables(audit, { source: file, perResource: false });
    const rows = text.split('\n').filter((l) => /^│ s-\d+ /.test(l));
    expect(rows).toHaveLength(MAX_TABLE_ROWS);
    // skill │ level 1 (own entry) │ level 2 │ ...: the body is the third cell.
    const bodyOf = (row: string) => Number(/^│ s-\d+\s+│\s+[\d,]+ │\s+([\d,]+) │/.exec(row)![1]!.replace(/,/g, ''));
    expect(bodyOf(rows[0]!)).toBe(Math.max(...audit.level2.map((s) => s.tokens))); // the heaviest first
    expect(bodyOf(rows.at(-1)!)).toBeLessThanOrEqual(bodyOf(rows[0]!));
    expect(text).toContain(`... 19,500 more skills not listed (the ${MAX_TABLE_ROWS} heaviest are, heaviest first; --json lists them all)`);
  });
});

describe('a JSON catalogue loads in one pass', () => {
  it('50,000 entries: line numbers of a duplicate and of a bad entry at the end are right', { timeout: 30_000 }, async () => {
    const n = 50_000;
    const entries = Array.from({ length: n }, (_, i) => ({ name: `skill-${i}`, description: `Use when the user asks about topic ${i}.` }));
    entries.push({ name: 'skill-7', description: 'Use when it is a duplicate.' });
    entries.push({ name: 'no-description' } as { name: string; description: string });
    const file = path.join(dir, 'big.json');
    writeFileSync(file, JSON.stringify(entries, null, 1)); // 4 lines per entry, 1 for "["
    const cat = await loadCatalogue(file);
    expect(cat.skills).toHaveLength(n);
    const dup = cat.problems.find((p) => p.message.includes('duplicate name "skill-7"'))!;
    expect(dup.line).toBe(2 + 4 * n + 1);
    const bad = cat.problems.find((p) => p.message.includes('"no-description"'))!;
    expect(bad.line).toBe(2 + 4 * (n + 1) + 1);
  });

  it('finds names written with escapes, and counts lines in a minified file', async () => {
    const file = path.join(dir, 'escaped.json');
    writeFileSync(file, '[{"name": "caf\\u00e9", "description": "Use when x."},\n{"name": "caf\\u00e9", "description": "Use when y."}]');
    const cat = await loadCatalogue(file);
    expect(cat.problems.find((p) => p.message.includes('duplicate name "café"'))!.line).toBe(2);
  });
});

/** n skills whose descriptions are random picks from a vocabulary, with near copies planted every 40th skill. */
function generated(n: number, vocabulary: number, seed = 1): Skill[] {
  let a = seed;
  const rand = () => ((a = (Math.imul(a, 1664525) + 1013904223) >>> 0), a / 2 ** 32);
  const word = () => `w${Math.floor(vocabulary * rand() ** 2)}`; // skewed: low ranks are common
  const skills: Skill[] = [];
  for (let i = 0; i < n; i++) {
    let description = Array.from({ length: 12 + Math.floor(rand() * 12) }, word).join(' ');
    if (i % 40 === 39) description = `${skills[Math.floor(rand() * skills.length)]!.description} ${word()}`;
    skills.push({ name: `s-${String(i).padStart(6, '0')}`, description, file: `/x/s-${i}/SKILL.md` } as Skill);
  }
  return skills;
}

describe('near-duplicate descriptions: near-linear, every pair found on a catalogue of distinct skills, capped output', () => {
  it('flags exactly the skills the all-pairs comparison flags (1,500 skills, planted near copies)', () => {
    const skills = generated(1_500, 3_000);
    const brute = new Set<string>();
    const vectors = skills.map((s) => termVector(s.description));
    for (let j = 0; j < skills.length; j++) for (let i = 0; i < j; i++) if (cosine(vectors[i]!, vectors[j]!) >= 0.8) brute.add(skills[j]!.name);
    expect(brute.size).toBeGreaterThan(30);
    const found = nearDuplicates(skills);
    const listed = found.filter((p) => p.message.startsWith('descriptions of')).map((p) => /and "([^"]+)"/.exec(p.message)![1]!);
    const more = Number(/^(\d+) more skills/.exec(found.at(-1)!.message)?.[1] ?? 0);
    expect(listed.length + more).toBe(brute.size);
    for (const name of listed) expect(brute.has(name)).toBe(true);
  });

  it('compares each skill with at most MAX_CANDIDATES others, whatever the catalogue', () => {
    for (const [n, vocabulary] of [[20_000, 50_000], [20_000, 200]] as const) {
      const stats: NearDuplicateStats = { comparisons: 0, scanned: 0 };
      nearDuplicates(generated(n, vocabulary), 0.8, stats);
      expect(stats.comparisons).toBeLessThanOrEqual(n * MAX_CANDIDATES);
    }
    // A thousand copies of one description: one comparison each (with the group's latest member), not half a million.
    const copies = Array.from({ length: 1_000 }, (_, i) => ({ name: `c-${i}`, description: 'Convert spreadsheets into charts for the finance team.', file: `/c/${i}` }) as Skill);
    const stats: NearDuplicateStats = { comparisons: 0, scanned: 0 };
    nearDuplicates(copies, 0.8, stats);
    expect(stats.comparisons).toBe(999);
  });

  it('validate on 2,000 nearly identical skills ends normally, listing 50 warnings and counting the rest', { timeout: 60_000 }, async () => {
    const cat = path.join(dir, 'similar');
    for (let i = 0; i < 2_000; i++) {
      const name = `widget-${i}`;
      mkdirSync(path.join(cat, name), { recursive: true });
      writeFileSync(path.join(cat, name, 'SKILL.md'), `---\nname: ${name}\ndescription: Use when the user asks about widgets of kind ${i}, their gadgets, gizmos and sprockets.\n---\n\nBody.\n`);
    }
    const r = await runCli(['validate', cat], { cwd: ROOT });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0); // warnings only
    const lines = r.stdout.trim().split('\n');
    expect(lines.filter((l) => l.includes('are nearly the same'))).toHaveLength(50);
    expect(lines.filter((l) => /: warning SB019 near-duplicate-descriptions: 1949 more skills have a description nearly the same as another's \(1 group\), not listed/.test(l))).toHaveLength(1);
    // 51 near-duplicate warnings (Hermes' 60-character index cut, SB013, is off unless a host cuts there).
    expect(lines.at(-1)).toMatch(/2000 skills checked: 0 errors, 51 warnings$/);
    const hermes = await runCli(['validate', cat, '--host', 'hermes', '--no-warnings'], { cwd: ROOT });
    expect(hermes.stdout.trim().split('\n').at(-1)).toMatch(/2000 skills checked: 0 errors, 2051 warnings$/);
  });
});
