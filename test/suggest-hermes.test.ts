// `suggest --wide similarity` on the real Hermes catalogue (177 skills, ../shared/data/hermes): the ranking runs
// offline, then the command says what it needs for the model steps. Skipped when the data is absent.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from './support/cli.js';

const HERMES = resolve('../shared/data/hermes');
const present = existsSync(join(HERMES, 'roster.json'));
if (!present) console.warn(`suggest-hermes: ${HERMES} is absent; skipping the large-catalogue tests`);

/** Runs the CLI in process; out/err are what it printed. */
async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const r = await runCli(args);
  return { code: r.code, out: r.stdout, err: r.stderr };
}

describe.skipIf(!present)('suggest on Hermes (177 skills) without a key', () => {
  let cache: string;
  beforeAll(async () => {
    cache = await mkdtemp(join(tmpdir(), 'skillbench-hermes-'));
    for (const v of ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'ANTHROPIC_API_KEY', 'OPENAI_API_KEY']) vi.stubEnv(v, '');
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await rm(cache, { recursive: true, force: true });
  });

  it('ranks all 177 skills offline, prints the shortlist, then says what the model steps need (exit 2)', async () => {
    const r = await cli(['suggest', 'search for a funny reaction gif to send my friend', '--skills', HERMES, '--wide', 'similarity', '--cache-dir', cache]);
    expect(r.code).toBe(2);
    expect(r.out).toContain('offline shortlist (similarity, use) of 177 skills; the first 3 go to the narrow stage:');
    const rows = r.out.trim().split('\n').slice(1);
    expect(rows).toHaveLength(10);
    expect(rows.slice(0, 3).join('\n')).toContain('gif-search');
    expect(r.err).toContain('the gate and the narrow stage need a model');
    expect(r.err).toContain('--provider openai --base-url URL');
    expect(r.err).toContain('--cache-only');
    expect(r.err).not.toContain('    at ');
  });

  it('--rank-only needs no model at all (exit 0); the skill vectors come from the disk cache', async () => {
    const r = await cli(['suggest', 'search for a funny reaction gif to send my friend', '--skills', HERMES, '--wide', 'similarity', '--rank-only', '--cache-dir', cache, '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out);
    expect(out.ranking).toHaveLength(10);
    expect(out.ranking.slice(0, 3).map((x: { name: string }) => x.name)).toContain('gif-search');
  });
});
