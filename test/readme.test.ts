// The README's eval-trigger example is the real output: every line of it (abridged lines up to their "...") is
// printed by `skillbench eval-trigger` on the bundled catalogue, offline.
import { describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { runCli } from './support/cli.js';
import { clearProviderEnv } from './support/fixtures.js';

clearProviderEnv();
const ROOT = path.resolve(import.meta.dirname, '..');

describe('README', () => {
  it('shows what `npx skillbench eval-trigger` prints on the bundled catalogue', async () => {
    const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## The main job'));
    const example = section.slice(section.indexOf('```\n') + 4, section.indexOf('\n```', section.indexOf('```\n') + 4)).split('\n');
    expect(example.length).toBeGreaterThan(10);
    const cache = await mkdtemp(path.join(tmpdir(), 'skillbench-readme-'));
    try {
      const r = await runCli(['eval-trigger', '--no-progress', '--cache-dir', cache], { cwd: ROOT });
      expect(r.code).toBe(0);
      const printed = (r.stderr + r.stdout).split('\n');
      for (const line of example) {
        const shown = line.includes('...') ? line.slice(0, line.indexOf('...')) : line;
        expect(printed.some((p) => p.startsWith(shown) || (shown.startsWith('│') && p.startsWith(shown.slice(0, -1)))), line).toBe(true);
      }
    } finally {
      await rm(cache, { recursive: true, force: true });
    }
  });
});
