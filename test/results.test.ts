import { afterAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readResults, validateResults, writeResults } from '../src/results.js';
import { UserError } from '../src/errors.js';
import type { ResultsFile } from '../src/types.js';

export function sampleResults(): ResultsFile {
  return {
    schema: 'skillbench.results',
    version: 1,
    command: 'eval-trigger',
    createdAt: '2026-11-29T12:00:00.000Z',
    skillbenchVersion: '0.1.0',
    settings: { selectors: ['similarity'] },
    catalogue: { source: 'skills', format: 'xml', skills: [{ name: 'A', hash: 'abc', category: '' }] },
    requests: [
      { id: 'r1', text: 'do A', gold: 'A' },
      { id: 'r2', text: 'nothing', gold: null, kind: 'off-topic' },
    ],
    runs: [
      {
        selector: 'similarity',
        kind: 'score',
        threshold: { value: 0.5, source: 'optimistic' },
        decisions: [
          { requestId: 'r1', run: 0, chosen: 'A', scores: [{ name: 'A', score: 0.8 }] },
          {
            requestId: 'r2',
            run: 0,
            chosen: null,
            scores: [{ name: 'A', score: 0.2 }],
            usage: { inputTokens: 5, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 1, thinkingTokens: 0 },
            cached: false,
          },
        ],
      },
    ],
  };
}

const dir = await mkdtemp(path.join(tmpdir(), 'skillbench-results-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

async function errorOf(p: Promise<unknown>): Promise<UserError> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(UserError);
  return err as UserError;
}

describe('results file', () => {
  it('round-trips through write and read', async () => {
    const file = path.join(dir, 'sub', 'r.json');
    await writeResults(file, sampleResults());
    expect(await readResults(file)).toEqual(sampleResults());
  });

  it('names the file and the field of a bad value', async () => {
    const bad = sampleResults() as unknown as { runs: { decisions: Record<string, unknown>[] }[] };
    bad.runs[0]!.decisions[1]!.chosen = 42;
    const file = path.join(dir, 'bad.json');
    await writeFile(file, JSON.stringify(bad));
    const err = await errorOf(readResults(file));
    expect(err.message).toContain(file);
    expect(err.message).toContain('runs[0].decisions[1].chosen');
  });

  it('refuses another version, another schema, and decisions of unknown requests', () => {
    expect(() => validateResults({ ...sampleResults(), version: 3 }, 'x.json')).toThrow(/x\.json: field "version" is 3; this skillbench reads versions 1 and 2/);
    expect(() => validateResults({ ...sampleResults(), version: '2' }, 'x.json')).toThrow(/field "version" is "2"/);
    expect(() => validateResults({ ...sampleResults(), schema: 'other' }, 'x.json')).toThrow(/field "schema"/);
    const r = sampleResults();
    r.runs[0]!.decisions[0]!.requestId = 'nope';
    expect(() => validateResults(r, 'x.json')).toThrow(/runs\[0\]\.decisions\[0\]\.requestId/);
    const s = sampleResults() as unknown as { runs: { decisions: { scores: unknown[] }[] }[] };
    s.runs[0]!.decisions[0]!.scores = [{ name: 'A', score: 'high' }];
    expect(() => validateResults(s, 'x.json')).toThrow(/scores\[0\]\.score/);
    const u = sampleResults() as unknown as { runs: { decisions: { usage?: Record<string, unknown> }[] }[] };
    u.runs[0]!.decisions[1]!.usage!.outputTokens = null;
    expect(() => validateResults(u, 'x.json')).toThrow(/usage\.outputTokens/);
    const dup = sampleResults();
    dup.requests[1]!.id = 'r1';
    expect(() => validateResults(dup, 'x.json')).toThrow(/x\.json: field "requests\[1\]\.id" must be unique/);
    const c = sampleResults() as unknown as { runs: Record<string, unknown>[] };
    c.runs[0]!.ceiling = 'yes';
    expect(() => validateResults(c, 'x.json')).toThrow(/runs\[0\]\.ceiling/);
  });

  it('version 2 stores each skill\'s description and the model\'s answers; version 1 files still read', async () => {
    const v2 = { ...sampleResults(), version: 2 as const };
    v2.catalogue.skills[0]!.description = 'Does A. Use when asked to do A.';
    Object.assign(v2.runs[0]!.decisions[0]!, { calls: [{ name: 'activate_skill', args: { name: 'A' } }], answer: 'Loading A.', stopReason: 'tool_use' });
    const file = path.join(dir, 'v2.json');
    await writeResults(file, v2);
    expect(await readResults(file)).toEqual(v2);
    // A version-1 file (no descriptions, no answers) reads as it is.
    const v1 = path.join(dir, 'v1.json');
    await writeResults(v1, sampleResults());
    expect((await readResults(v1)).version).toBe(1);
    expect(() => validateResults({ ...v2, catalogue: { ...v2.catalogue, skills: [{ name: 'A', hash: 'h', category: '', description: 7 }] } }, 'x.json')).toThrow(/catalogue\.skills\[0\]\.description/);
    const badCall = structuredClone(v2) as unknown as { runs: { decisions: Record<string, unknown>[] }[] };
    badCall.runs[0]!.decisions[0]!.calls = [{ name: 'activate_skill', args: 'A' }];
    expect(() => validateResults(badCall, 'x.json')).toThrow(/decisions\[0\]\.calls\[0\]\.args/);
    badCall.runs[0]!.decisions[0]!.calls = [];
    badCall.runs[0]!.decisions[0]!.stopReason = 3;
    expect(() => validateResults(badCall, 'x.json')).toThrow(/decisions\[0\]\.stopReason/);
  });

  it('gives a UserError for a missing file and for text that is not JSON', async () => {
    expect((await errorOf(readResults(path.join(dir, 'missing.json')))).message).toMatch(/cannot read/);
    const file = path.join(dir, 'text.json');
    await writeFile(file, 'not json');
    expect((await errorOf(readResults(file))).message).toMatch(/not valid JSON/);
  });
});
