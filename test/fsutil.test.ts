// Output files the user names (-o, --json): folders are made as needed, and a path that cannot be written is one
// clear UserError (exit 2), never a hang (Node's recursive mkdir never returns under /proc) or a stack trace.
import { describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeOutputFile } from '../src/fsutil.js';
import { UserError } from '../src/errors.js';

describe('writeOutputFile', () => {
  it('makes the missing folders and writes the text', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'skillbench-out-'));
    try {
      const file = path.join(dir, 'a', 'b', 'report.md');
      await writeOutputFile(file, 'hello\n');
      expect(await readFile(file, 'utf8')).toBe('hello\n');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names the file and the reason when a folder on the way is a file', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'skillbench-out-'));
    try {
      await writeFile(path.join(dir, 'plain'), 'x');
      const err = await writeOutputFile(path.join(dir, 'plain', 'r.json'), '{}').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UserError);
      expect((err as UserError).message).toMatch(/plain\/r\.json: cannot write the output \(ENOTDIR\)/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(!existsSync('/proc/self'))('fails at once under /proc instead of hanging', async () => {
    const err = await writeOutputFile('/proc/skillbench-nope/r.md', 'x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as UserError).message).toMatch(/cannot write the output \(ENOENT\)/);
  });
});
