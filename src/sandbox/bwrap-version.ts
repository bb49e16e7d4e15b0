// Which bubblewrap is installed: its version, read once, and whether it knows `--size` (0.8.0 and later).
import { spawn } from 'node:child_process';
import { findExecutable } from './executables.js';

let bwrapSize: Promise<boolean> | undefined;
let bwrapVersionText: Promise<string | null> | undefined;

/** `bwrap --version`'s number ("0.8.0"), or null. Read once. */
export function bwrapVersion(): Promise<string | null> {
  bwrapVersionText ??= new Promise((resolve) => {
    const bwrap = findExecutable('bwrap');
    if (!bwrap) return resolve(null);
    const child = spawn(bwrap, ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', () => resolve(null));
    child.on('close', () => resolve(/\d+\.\d+(\.\d+)?/.exec(out)?.[0] ?? null));
  });
  return bwrapVersionText;
}

/** Whether bwrap knows `--size` (a size for the next --tmpfs): bubblewrap 0.8.0 and later. */
export function bwrapHasSize(): Promise<boolean> {
  bwrapSize ??= bwrapVersion().then((v) => v !== null && versionAtLeast(v, [0, 8, 0]));
  return bwrapSize;
}

/** `bubblewrap 0.8.0` >= [0, 8, 0]. */
export function versionAtLeast(text: string, min: number[]): boolean {
  const m = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  if (!m) return false;
  const v = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
  for (let i = 0; i < 3; i++) if (v[i] !== min[i]) return v[i]! > min[i]!;
  return true;
}
