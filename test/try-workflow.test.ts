// scripts/try-workflow.mjs, the local runner the CI examples are tried with (docs/ci.md): PATH additions, outputs,
// `if:` conditions, step env expressions, the step summary, continue-on-error, and a failure ending the job.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const run = (...args: string[]) => spawnSync(process.execPath, [path.join(root, 'scripts/try-workflow.mjs'), '--workflow', 'fixtures/workflows/try-runner.yml', ...args], { cwd: root, encoding: 'utf8' });

describe('scripts/try-workflow.mjs', () => {
  it('runs the run: steps as a runner would, and fails the job where a step fails', () => {
    const r = run();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(1);
    const lines = r.stdout.split('\n');
    expect(lines).toContain('- actions/checkout@v4: skipped (an action: actions/checkout@v4)');
    expect(r.stdout).toContain('- Use it and set an output: exit 0\n    tool says hello'); // GITHUB_PATH and the workflow env
    expect(lines).toContain("- Only on pull requests: skipped (if: github.event_name == 'pull_request')");
    expect(lines).toContain('- On an output: exit 0');
    expect(lines).toContain('- May fail: exit 5 (continue-on-error)');
    expect(lines).toContain('- Fails the job: exit 1');
    expect(lines).toContain('- After a failure: skipped (if: success())');
    expect(r.stdout).toMatch(/^job failed; the step summary has 1 lines/m); // "code was 3"
  });

  it('takes the event from --event', () => {
    const r = run('--event', 'pull_request');
    expect(r.stdout).toContain('- Only on pull requests: exit 0\n    pull request step ran');
  });
});
