// The launcher (bin/skillbench.js) as a shell user meets it: a reader that closes the pipe early (`| head`) ends
// the command quietly, with no stack trace.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const launcher = path.join(root, 'bin', 'skillbench.js');
const built = existsSync(path.join(root, 'dist', 'cli.js'));

describe.skipIf(!built)('bin/skillbench.js (needs dist/: npm test builds it first)', () => {
  it('ends quietly when the reader closes the pipe after the first chunk', async () => {
    const child = spawn(process.execPath, [launcher, 'eval-trigger', '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    // Read one chunk, then close our end, as `head -1` does; the help text is longer than one pipe write.
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(stderr).not.toMatch(/EPIPE|at .*\(node:/);
    expect(code).toBe(0);
  });
});
