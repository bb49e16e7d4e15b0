// The script sandbox keeps each promise: no network, no write outside the throwaway copy, the original folder
// untouched, a timeout that kills the whole process group, capped output, argv never through a shell.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomUUID } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { bwrapWorks, detectSandbox, findExecutable, runScript, unshareWorks, type SandboxKind } from '../src/sandbox.js';
import { UserError } from '../src/errors.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'harness', 'catalogue', 'hostile');
// Skipped only when bwrap is not installed: an installed bwrap that cannot run makes these tests fail, as it should.
const hasBwrap = findExecutable('bwrap') !== null;
const hasUnshare = await unshareWorks();

/** sha256 over every file's relative path and bytes (symlinks by their target), sorted. */
function folderHash(dir: string): string {
  const h = createHash('sha256');
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = statSync(p, { throwIfNoEntry: false });
      h.update(relative(dir, p));
      if (st?.isDirectory()) walk(p);
      else if (st?.isFile()) h.update(readFileSync(p));
    }
  };
  walk(dir);
  return h.digest('hex');
}

let work: string;
let skill: string;
let secretDir: string;
let hashBefore: string;
let server: net.Server;
let port: number;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'skillbench-sandbox-test-'));
  skill = join(work, 'hostile');
  cpSync(FIXTURE, skill, { recursive: true });
  // A symlink leaving the skill folder (git cannot be trusted to keep one): it must not reach the copy.
  secretDir = mkdtempSync(join(tmpdir(), 'skillbench-secret-'));
  writeFileSync(join(secretDir, 'secret.txt'), 'SECRET-OUTSIDE-THE-SKILL');
  symlinkSync(join(secretDir, 'secret.txt'), join(skill, 'escape-link'));
  symlinkSync('references/notes.md', join(skill, 'inside-link')); // stays inside: kept
  symlinkSync(join(skill, 'references'), join(skill, 'absolute-link')); // absolute: would lead back to the original
  symlinkSync('exit3.mjs', join(skill, 'scripts', 'linked.mjs')); // a script that is a link inside the folder
  hashBefore = folderHash(skill);
  server = net.createServer((s) => {
    s.on('error', () => {}); // the client exits right after connecting
    s.end('hello from outside\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as net.AddressInfo).port;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  rmSync(work, { recursive: true, force: true });
  rmSync(secretDir, { recursive: true, force: true });
});

/** Processes whose command line holds the marker (host view of /proc). */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)) found.push(Number(pid));
    } catch {
      // gone already
    }
  }
  return found;
}

/** Waits (up to 5 s, the kernel reaps a killed namespace asynchronously) until no process carries the marker. */
async function gone(marker: string): Promise<number[]> {
  for (let i = 0; i < 50; i++) {
    const left = processesWith(marker);
    if (left.length === 0) return left;
    await new Promise((res) => setTimeout(res, 100));
  }
  return processesWith(marker);
}

describe('sandbox: without isolation (the control that shows the tests can fail)', () => {
  it('an unsandboxed script does reach a server on 127.0.0.1', async () => {
    const r = await runScript(skill, 'scripts/net.mjs', ['127.0.0.1', String(port)], { kind: 'none', unsafeNoSandbox: true });
    expect(r.stdout.trim()).toBe('connected');
    expect(r.sandbox).toBe('none');
  });

  it('never passes the host environment (API keys) to a script, whatever the mechanism', async () => {
    process.env.GEMINI_API_KEY = 'host-secret-key-123';
    try {
      const kinds: SandboxKind[] = ['none', ...(hasBwrap ? (['bwrap'] as const) : []), ...(hasUnshare ? (['unshare'] as const) : [])];
      for (const kind of kinds) {
        const r = await runScript(skill, 'scripts/env.mjs', [], { kind, unsafeNoSandbox: true });
        const env = JSON.parse(r.stdout) as Record<string, string>;
        expect(env.GEMINI_API_KEY).toBeUndefined();
        expect(r.stdout).not.toContain('host-secret-key-123');
        expect(env.PATH).toBeTruthy();
      }
    } finally {
      delete process.env.GEMINI_API_KEY;
    }
  });

  it('returns when the script ends even if a detached background process keeps its output open', async () => {
    const marker = `skillbench-daemon-${randomUUID()}`;
    try {
      const r = await runScript(skill, 'scripts/daemon.mjs', [marker, 'keep'], { kind: 'none', unsafeNoSandbox: true, timeoutMs: 10_000 });
      expect(r).toMatchObject({ exitCode: 0, stdout: 'detached\n', timedOut: false });
      expect(r.durationMs).toBeLessThan(5_000);
    } finally {
      for (const pid of processesWith(marker)) process.kill(pid, 'SIGKILL'); // no sandbox: nothing else can end it
    }
  });

  it('refuses to run without a sandbox unless unsafeNoSandbox is set', async () => {
    await expect(runScript(skill, 'scripts/exit3.mjs', [], { kind: 'none' })).rejects.toThrow(UserError);
  });
});

describe.skipIf(!hasBwrap)('sandbox: bwrap (skipped: bwrap is not installed; apt-get install bubblewrap)', () => {
  it('runs here', async () => {
    expect(await bwrapWorks()).toBe(true);
  });

  const bw = { kind: 'bwrap' as SandboxKind };

  it('is what detection picks when it works', async () => {
    expect(await detectSandbox()).toBe('bwrap');
  });

  it('a script cannot open a socket to a server on the host', async () => {
    const r = await runScript(skill, 'scripts/net.mjs', ['127.0.0.1', String(port)], bw);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/^error E[A-Z]+/);
    expect(r.stdout).not.toContain('connected');
    const outside = await runScript(skill, 'scripts/net.mjs', ['1.1.1.1', '53'], bw);
    expect(outside.stdout).toMatch(/^error (ENETUNREACH|EHOSTUNREACH|ECONNREFUSED)/);
  });

  it('a write to /tmp outside the copy is not visible outside', async () => {
    const target = join('/tmp', `skillbench-escape-${randomUUID()}`);
    const r = await runScript(skill, 'scripts/write.mjs', [target], bw);
    // The sandbox has its own empty /tmp: the write may succeed there, and vanishes with it.
    expect(r.exitCode === 0 || r.exitCode === 1).toBe(true);
    expect(existsSync(target)).toBe(false);
  });

  it('a write to the original skill folder fails and the folder is unchanged', async () => {
    for (const target of [join(skill, 'references', 'notes.md'), join(skill, 'new-file.txt')]) {
      const r = await runScript(skill, 'scripts/write.mjs', [target], bw);
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toMatch(/^error (ENOENT|EROFS|EACCES)/);
    }
    expect(folderHash(skill)).toBe(hashBefore);
  });

  it('system folders are read-only', async () => {
    for (const target of ['/etc/skillbench-escape', '/usr/skillbench-escape']) {
      const r = await runScript(skill, 'scripts/write.mjs', [target], bw);
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toMatch(/^error (EROFS|EACCES|EPERM)/);
      expect(existsSync(target)).toBe(false);
    }
  });

  it('writes inside the copy succeed and are thrown away', async () => {
    const r = await runScript(skill, 'scripts/write.mjs', ['references/notes.md', 'changed in the copy'], bw);
    expect(r.exitCode).toBe(0);
    expect(readFileSync(join(skill, 'references', 'notes.md'), 'utf8')).not.toContain('changed');
    expect(folderHash(skill)).toBe(hashBefore);
  });

  it('an endless loop is killed at the timeout, children included', async () => {
    const marker = `skillbench-loop-${randomUUID()}`;
    const r = await runScript(skill, 'scripts/loop.mjs', [marker], { ...bw, timeoutMs: 1500 });
    expect(r.timedOut).toBe(true);
    expect(r.exitCode).toBeNull();
    expect(r.durationMs).toBeGreaterThanOrEqual(1400);
    expect(r.durationMs).toBeLessThan(15_000);
    expect(r.stdout).toContain('looping');
    expect(await gone(marker)).toEqual([]);
  });

  it('a background process detached into its own session does not outlive the script', async () => {
    for (const keep of ['keep', 'close']) {
      const marker = `skillbench-daemon-${randomUUID()}`;
      const r = await runScript(skill, 'scripts/daemon.mjs', [marker, keep], { ...bw, timeoutMs: 10_000 });
      expect(r).toMatchObject({ exitCode: 0, stdout: 'detached\n', timedOut: false });
      expect(await gone(marker)).toEqual([]);
    }
  });

  it('cannot see /root, /home, the project tree or the original skill folder, nor read root-only files of /etc', async () => {
    const hidden = ['/root', '/home', process.cwd(), skill, secretDir];
    const rootOnly = ['/etc/shadow', '/etc/gshadow'].filter((p) => existsSync(p));
    const r = await runScript(skill, 'scripts/read.mjs', ['/etc/passwd', ...hidden, ...rootOnly], bw);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe('/etc/passwd read'); // the control: reading does work
    for (const [i, path] of hidden.entries()) expect(lines[1 + i]).toBe(`${path} error ENOENT`);
    for (const [i, path] of rootOnly.entries()) expect(lines[1 + hidden.length + i]).toBe(`${path} error EACCES`);
  });

  it('a 50 MB print (and a 20 MB one on stderr) is truncated at the cap and marked', async () => {
    const r = await runScript(skill, 'scripts/flood.mjs', ['50'], bw);
    expect(r.exitCode).toBe(0);
    expect(r.truncated).toBe(true);
    const kept = r.stdout.indexOf('\n[... output truncated');
    expect(kept).toBe(256 * 1024);
    expect(r.stdout).toContain(`${50 * 1024 * 1024 - 256 * 1024} more bytes not shown`);
    expect(r.stderr).toBe('flood done\n');
    const err = await runScript(skill, 'scripts/flood.mjs', ['20', 'stderr'], bw);
    expect(err.truncated).toBe(true);
    expect(err.stderr.indexOf('\n[... output truncated')).toBe(256 * 1024);
    expect(err.stderr).toContain(`${20 * 1024 * 1024 - 256 * 1024} more bytes not shown`);
    expect(err.stdout).toBe('flood done\n');
    const small = await runScript(skill, 'scripts/flood.mjs', ['1'], { ...bw, maxOutputBytes: 2 * 1024 * 1024 });
    expect(small.truncated).toBe(false);
    expect(small.stdout.length).toBe(1024 * 1024);
  });

  it('passes arguments as an argv array, never through a shell (python and bash)', async () => {
    const args = ['two words', '$(id -u)', '; rm -rf / #', '`whoami`', '*'];
    const py = await runScript(skill, 'scripts/echo.py', args, bw);
    expect(py.exitCode).toBe(0);
    const parsed = JSON.parse(py.stdout) as { args: string[]; cwd_files: string[] };
    expect(parsed.args).toEqual(args);
    const sh = await runScript(skill, 'scripts/echo.sh', args, bw);
    expect(sh.stdout).toBe(args.map((a) => `[${a}]\n`).join(''));
  });

  it('copies the folder without a symlink that leaves it', async () => {
    const r = await runScript(skill, 'scripts/echo.py', [], bw);
    const files = (JSON.parse(r.stdout) as { cwd_files: string[] }).cwd_files;
    expect(files).toContain('SKILL.md');
    expect(files).toContain('inside-link');
    expect(files).not.toContain('escape-link');
    expect(files).not.toContain('absolute-link');
  });

  it('runs a script that is a symlink inside the folder', async () => {
    const r = await runScript(skill, 'scripts/linked.mjs', [], bw);
    expect(r.exitCode).toBe(3);
  });

  it('reports exit code and both streams', async () => {
    const r = await runScript(skill, 'scripts/exit3.mjs', [], bw);
    expect(r).toMatchObject({ exitCode: 3, stdout: 'to stdout\n', stderr: 'to stderr\n', timedOut: false, truncated: false, sandbox: 'bwrap' });
  });

  it('leaves the original folder byte-identical after every run above', () => {
    expect(folderHash(skill)).toBe(hashBefore);
  });
});

describe.skipIf(!hasUnshare)('sandbox: unshare fallback (skipped: unshare cannot create a network namespace here)', () => {
  const un = { kind: 'unshare' as SandboxKind };

  it('a script cannot reach a server on the host', async () => {
    const r = await runScript(skill, 'scripts/net.mjs', ['127.0.0.1', String(port)], un);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/^error E[A-Z]+/);
  });

  it.runIf(process.getuid?.() === 0)('as root, runs the script as nobody: system files and the original folder are not writable', async () => {
    for (const target of ['/etc/skillbench-escape', join(skill, 'references', 'notes.md'), join(skill, 'new-file.txt')]) {
      const r = await runScript(skill, 'scripts/write.mjs', [target], un);
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toMatch(/^error (EACCES|EPERM|EROFS)/);
      expect(existsSync('/etc/skillbench-escape')).toBe(false);
    }
    expect(folderHash(skill)).toBe(hashBefore);
  });

  it.runIf(process.getuid?.() === 0)('as root, the script cannot read /root or root-only files', async () => {
    const paths = ['/root', ...['/etc/shadow', '/etc/gshadow'].filter((p) => existsSync(p))];
    const r = await runScript(skill, 'scripts/read.mjs', paths, un);
    expect(r.stdout).toBe(paths.map((p) => `${p} error EACCES\n`).join(''));
  });

  it('a background process detached into its own session does not outlive the script', async () => {
    for (const keep of ['keep', 'close']) {
      const marker = `skillbench-daemon-${randomUUID()}`;
      const r = await runScript(skill, 'scripts/daemon.mjs', [marker, keep], { ...un, timeoutMs: 10_000 });
      expect(r).toMatchObject({ exitCode: 0, stdout: 'detached\n', timedOut: false });
      expect(await gone(marker)).toEqual([]);
    }
  });

  it('runs in a copy: relative writes leave the original folder unchanged', async () => {
    const r = await runScript(skill, 'scripts/write.mjs', ['references/notes.md', 'changed'], un);
    expect(r.exitCode).toBe(0);
    expect(folderHash(skill)).toBe(hashBefore);
  });

  it('kills an endless loop at the timeout', async () => {
    const marker = `skillbench-loop-${randomUUID()}`;
    const r = await runScript(skill, 'scripts/loop.mjs', [marker], { ...un, timeoutMs: 1000 });
    expect(r.timedOut).toBe(true);
    expect(await gone(marker)).toEqual([]);
  });
});

describe('sandbox: script paths', () => {
  it.each([
    ['../notes/scripts/x.mjs'],
    ['/etc/passwd'],
    ['references/notes.md'],
    ['scripts/../../x.mjs'],
    ['scripts/a\0.mjs'],
  ])('refuses %j', async (p) => {
    await expect(runScript(skill, p, [], { kind: 'none', unsafeNoSandbox: true })).rejects.toThrow(UserError);
  });

  it('refuses an unsupported extension and a missing script', async () => {
    await expect(runScript(skill, 'scripts/x.rb', [], { kind: 'none', unsafeNoSandbox: true })).rejects.toThrow(/unsupported extension/);
    await expect(runScript(skill, 'scripts/missing.mjs', [], { kind: 'none', unsafeNoSandbox: true })).rejects.toThrow(/not found/);
  });
});
