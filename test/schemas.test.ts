// The JSON Schemas published in schemas/ (for editors and other tools) say what skillbench itself accepts: every
// file skillbench writes or ships passes them, and the bad files its readers refuse are refused by them too.
import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { runCli } from './support/cli.js';
import { validateResults } from '../src/results.js';
import { loadRequests } from '../src/requests.js';

const root = path.resolve(import.meta.dirname, '..');
const METATOOL = path.resolve(root, '../shared/data/metatool');
const Ajv = createRequire(import.meta.url)('ajv') as new (o: object) => { compile: (s: object) => ((d: unknown) => boolean) & { errors?: unknown[] } };
const schema = (name: string) => JSON.parse(readFileSync(path.join(root, 'schemas', name), 'utf8')) as object;
const compile = (name: string) => new Ajv({ strict: true, allowUnionTypes: true, allErrors: true }).compile(schema(name));
const json = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as unknown;

describe('schemas/', () => {
  it('holds draft-07 schemas that compile in strict mode', () => {
    const files = readdirSync(path.join(root, 'schemas')).sort();
    expect(files).toEqual(['config.schema.json', 'requests.schema.json', 'results.schema.json']);
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
