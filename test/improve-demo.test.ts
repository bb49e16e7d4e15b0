// The README's `skillbench improve` example, on the bundled catalogue (skills/, requests.json), against the wire
// server with the scripted model of test/support/scripted-skill-model.ts (it loads the skill whose listed
// description shares the most words with the request; the rewriter adds the missed requests' words). The test checks
// what the README says; `SKILLBENCH_PRINT_DEMO=1 npx vitest run test/improve-demo.test.ts` prints the output pasted there
// (SKILLBENCH_DEMO_OUT=DIR keeps the HTML and Markdown reports in DIR).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startWireServer, type WireServer } from './support/wire-server.js';
import { demoRewriter, scriptedSkillModel } from './support/scripted-skill-model.js';
import { runCli } from './support/cli.js';
import { clearProviderEnv } from './support/fixtures.js';

clearProviderEnv();

const root = path.resolve(import.meta.dirname, '..');
let server: WireServer;
let cache: string;

beforeAll(async () => {
  cache = await mkdtemp(path.join(tmpdir(), 'skillbench-improve-demo-'));
  const model = scriptedSkillModel({ rewriter: demoRewriter });
  server = await startWireServer({ openai: model.openai });
});
afterAll(async () => {
  await server?.close();
  await rm(cache, { recursive: true, force: true });
});

describe('README: improve on the bundled catalogue', () => {
  it('prints the trajectory, the kept description with its noise verdict, and the diff; SKILL.md untouched', async () => {
    const file = path.join(root, 'skills/expense-report-checker/SKILL.md');
    const before = await readFile(file, 'utf8');
    const out = process.env.SKILLBENCH_DEMO_OUT ?? cache;
    const r = await runCli(['improve', '--skill', 'expense-report-checker', '--no-progress', '--provider', 'openai', '--base-url', server.baseUrl('openai'), '--cache-dir', cache, '-o', path.join(out, 'improve.html'), '-o', path.join(out, 'improve.md')], { cwd: root });
    if (process.env.SKILLBENCH_PRINT_DEMO) process.stdout.write(`\n${r.stdout}\n${r.stderr}\n`);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/improve expense-report-checker: 6 skills \(skills\), 30 requests/);
    expect(r.stdout).toMatch(/Trajectory/);
    expect(r.stdout).toMatch(/^(Kept: |No candidate beat)/m);
    expect(await readFile(file, 'utf8')).toBe(before);
    // The README pastes this output: it must still be what the command prints.
    const readme = await readFile(path.join(root, 'README.md'), 'utf8');
    const [summary, rest] = r.stdout.split('\nCandidates (the full text');
    expect(readme).toContain(summary!.trimEnd());
    expect(readme).toContain(rest!.slice(rest!.indexOf('--- skills/')).trimEnd());
    const html = await readFile(path.join(out, 'improve.html'), 'utf8');
    for (const id of ['kept', 'trajectory', 'candidates', 'split', 'settings']) expect(html).toContain(`<section id="${id}">`);
  });
});
