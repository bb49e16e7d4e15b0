// The script sandbox keeps each promise: no network, no write outside the throwaway copy, the original folder
// untouched, a timeout that kills the whole process group, capped output, argv never through a shell, and resource
// limits (processes, file size and room to write, memory) that hold.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { chmodSync, copyFileSync, cpSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bwrapWorks, detectSandbox, findExecutable, runScript, versionAtLeast, type SandboxKind } from '../src/sandbox.js';
import { UserError } from '../src/errors.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'harness', 'catalogue', 'hostile');
const EXPENSE = join(import.meta.dirname, '..', 'skills', 'expense-report-checker');
// Skipped only when bwrap is not installed: an installed bwrap that cannot run makes these tests fail, as it should.
const hasBwrap = findExecutable('bwrap') !== null;

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
/** A unix socket anyone may connect to (mode 666), in a folder anyone may enter, in the host's /tmp. */
let socketDir: string;
let socketPath: string;
let unixServer: net.Server;
/** A module planted in the host's /tmp/node_modules, where a script whose copy sits below /tmp would import it from. */
let planted: string;

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
  socketDir = mkdtempSync(join(tmpdir(), 'skillbench-socket-'));
  chmodSync(socketDir, 0o755);
  socketPath = join(socketDir, 'service.sock');
  unixServer = net.createServer((c) => {
    c.on('error', () => {});
    c.end('host service banner\n');
  });
  await new Promise<void>((r) => unixServer.listen(socketPath, r));
  chmodSync(socketPath, 0o666);
  planted = `skillbench-planted-${randomUUID()}`;
  mkdirSync(join('/tmp', 'node_modules', planted), { recursive: true });
  writeFileSync(join('/tmp', 'node_modules', planted, 'package.json'), JSON.stringify({ name: planted, main: 'index.js' }));
  writeFileSync(join('/tmp', 'node_modules', planted, 'index.js'), "module.exports = 'PLANTED';\n");
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  await new Promise((r) => unixServer.close(r));
  rmSync(socketDir, { recursive: true, force: true });
  rmSync(join('/tmp', 'node_modules', planted), { recursive: true, force: true });
  try {
    rmdirSync(join('/tmp', 'node_modules')); // only if empty: made by this test, or someone else's
  } catch {
    // not empty, or already gone
  }
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
    expect(r.stdout.trim()).toBe('connected hello from outside');
    expect(r.sandbox).toBe('none');
    expect(r.isolation).toBe('none (--unsafe-no-sandbox)');
  });

  it('never passes the host environment (API keys) to a script, whatever the mechanism', async () => {
    process.env.GEMINI_API_KEY = 'host-secret-key-123';
    try {
      const kinds: SandboxKind[] = ['none', ...(hasBwrap ? (['bwrap'] as const) : [])];
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

  it('an unsandboxed script (no limits) gets all 400 children, writes 200 MB and allocates 400 MB: the controls for the limits', async () => {
    const marker = `skillbench-forkbomb-${randomUUID()}`;
    const none = { kind: 'none' as SandboxKind, unsafeNoSandbox: true, maxProcs: 16, maxFileMb: 8, maxMemoryMb: 64 };
    expect(await runScript(skill, 'scripts/forkbomb.mjs', ['400', marker], none)).toMatchObject({ exitCode: 0, stdout: 'started 400\n' });
    expect(await gone(marker)).toEqual([]);
    expect((await runScript(skill, 'scripts/fill.mjs', ['200', 'big.bin'], none)).stdout).toBe('big.bin 200\n');
    expect((await runScript(skill, 'scripts/memory.py', ['400'], none)).stdout).toBe('allocated 400\n');
  });

  it('an unsandboxed script reaches a world-writable host unix socket and imports a module planted in /tmp', async () => {
    const none = { kind: 'none' as SandboxKind, unsafeNoSandbox: true };
    expect((await runScript(skill, 'scripts/net.mjs', [socketPath], none)).stdout).toBe('connected host service banner\n');
    expect((await runScript(skill, 'scripts/import.mjs', [planted], none)).stdout).toBe('imported PLANTED\n');
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

  it('a fork bomb stops at the default process limit (256), ends with a clear result, and the host stays fine', async () => {
    const marker = `skillbench-forkbomb-${randomUUID()}`;
    const r = await runScript(skill, 'scripts/forkbomb.mjs', ['400', marker], { ...bw, timeoutMs: 20_000 });
    expect(r).toMatchObject({ exitCode: 1, timedOut: false });
    const got = Number(/^stopped after (\d+): EAGAIN\n$/.exec(r.stdout)?.[1]);
    expect(got).toBeGreaterThan(100); // node's own threads count too
    expect(got).toBeLessThan(256);
    expect(await gone(marker)).toEqual([]);
    expect(spawnSync('true').status).toBe(0); // the host can still start processes
    const low = await runScript(skill, 'scripts/forkbomb.mjs', ['400', marker], { ...bw, maxProcs: 32 });
    expect(low.stdout).toMatch(/^stopped after ([1-9]|[12]\d): EAGAIN\n$/);
  });

  it('concurrent scripts do not share the process limit (each counts in its own user namespace)', async () => {
    const runs = await Promise.all([1, 2, 3].map(() => runScript(skill, 'scripts/forkbomb.mjs', ['400', `skillbench-forkbomb-${randomUUID()}`], { ...bw, maxProcs: 64 })));
    const counts = runs.map((r) => Number(/^stopped after (\d+): EAGAIN\n$/.exec(r.stdout)?.[1]));
    expect(counts[0]).toBeGreaterThan(32);
    expect(new Set(counts).size).toBe(1);
  });

  it('a 200 MB file fails at the file cap (64 MiB by default), in the copy and in /tmp', async () => {
    const r = await runScript(skill, 'scripts/fill.mjs', ['200', 'big.bin', '/tmp/big.bin'], bw);
    expect(r).toMatchObject({ exitCode: 1, stdout: 'big.bin 64 EFBIG\n/tmp/big.bin 64 EFBIG\n' });
    const small = await runScript(skill, 'scripts/fill.mjs', ['200', 'big.bin'], { ...bw, maxFileMb: 8 });
    expect(small.stdout).toBe('big.bin 8 EFBIG\n');
  });

  it('many files below the cap cannot fill more than the cap either: the copy and /tmp are size-limited tmpfs', async () => {
    for (const dir of ['.', '/tmp']) {
      const files = ['a', 'b', 'c'].map((f) => `${dir}/${f}.bin`);
      const r = await runScript(skill, 'scripts/fill.mjs', ['6', ...files], { ...bw, maxFileMb: 10 });
      expect(r.exitCode).toBe(1);
      const [a, b, c] = r.stdout.trim().split('\n');
      expect(a).toBe(`${files[0]} 6`);
      expect(b).toMatch(new RegExp(`^${files[1]} [3-5] ENOSPC$`));
      expect(c).toBe(`${files[2]} 0 ENOSPC`);
    }
  });

  it('memory is capped per process (RLIMIT_DATA) for python and node; the default leaves room for ordinary work', async () => {
    const py = await runScript(skill, 'scripts/memory.py', ['400'], { ...bw, maxMemoryMb: 128 });
    expect(py.exitCode).toBe(1);
    expect(Number(/^MemoryError after (\d+)\n$/.exec(py.stdout)?.[1])).toBeLessThan(128);
    const node = await runScript(skill, 'scripts/memory.mjs', ['400'], { ...bw, maxMemoryMb: 128 });
    expect(node.exitCode === 0).toBe(false); // V8 aborts: out of memory
    expect(node.stdout).toBe('');
    expect((await runScript(skill, 'scripts/memory.py', ['400'], bw)).stdout).toBe('allocated 400\n');
    expect((await runScript(skill, 'scripts/memory.mjs', ['400'], bw)).stdout).toBe('allocated 400\n');
    expect((await runScript(skill, 'scripts/worker.mjs', [], bw)).stdout).toBe('pong 65 MiB\n');
  });

  it('the demo script runs under the default limits', async () => {
    const r = await runScript(EXPENSE, 'scripts/check_expenses.mjs', ['assets/sample-expenses.csv'], bw);
    expect(r).toMatchObject({ exitCode: 0, timedOut: false, truncated: false });
    expect(r.stdout.length).toBeGreaterThan(0);
  });

  it('cannot reach a host unix socket, even a world-writable one (the control above connects)', async () => {
    const r = await runScript(skill, 'scripts/net.mjs', [socketPath], bw);
    expect(r).toMatchObject({ exitCode: 1, stdout: 'error ENOENT\n' });
  });

  it('each run has its own /tmp: no module planted in the host /tmp, no other run\'s copy', async () => {
    expect((await runScript(skill, 'scripts/import.mjs', [planted], bw)).stdout).toBe('error ERR_MODULE_NOT_FOUND\n');
    // Two runs at once, as eval-quality -j 2 does: one holds its copy while the other looks for copies to rewrite.
    const [held, tamper] = await Promise.all([
      runScript(skill, 'scripts/hold.mjs', ['1500'], bw),
      new Promise((r) => setTimeout(r, 300)).then(() => runScript(skill, 'scripts/tamper.mjs', [], bw)),
    ]);
    expect(tamper.stdout).toBe('found 0 copies, rewrote 0 files\n');
    expect(held.stdout).toBe('---\n');
  });

  it.runIf(process.getuid?.() === 0)('the prepared copy on the host belongs to root, read-only for everyone else (not handed to nobody)', async () => {
    const before = new Set(readdirSync('/tmp').filter((n) => n.startsWith('skillbench-run-')));
    const run = runScript(skill, 'scripts/hold.mjs', ['1500'], bw);
    await new Promise((r) => setTimeout(r, 700));
    const work = readdirSync('/tmp').filter((n) => n.startsWith('skillbench-run-') && !before.has(n));
    expect(work.length).toBeGreaterThan(0);
    for (const name of work) {
      const dir = join('/tmp', name);
      expect(statSync(dir).mode & 0o777).toBe(0o711); // others may pass through, not list: the copy's name is random
      for (const copy of readdirSync(dir)) {
        const walk = (p: string) => {
          const st = statSync(p);
          expect(st.uid).toBe(0);
          expect(st.mode & 0o022).toBe(0);
          if (st.isDirectory()) for (const e of readdirSync(p)) walk(join(p, e));
        };
        walk(join(dir, copy));
      }
    }
    expect((await run).stdout).toBe('---\n');
  });

  it('/dev is read-only and /dev/shm a size-limited tmpfs: many files below the cap cannot fill memory there', async () => {
    const files = ['a', 'b', 'c'].map((f) => `/dev/shm/${f}.bin`);
    const r = await runScript(skill, 'scripts/fill.mjs', ['6', ...files, '/dev/x.bin'], { ...bw, maxFileMb: 10 });
    const [a, b, c, dev] = r.stdout.trim().split('\n');
    expect(a).toBe(`${files[0]} 6`);
    expect(b).toMatch(new RegExp(`^${files[1]} [3-5] ENOSPC$`));
    expect(c).toBe(`${files[2]} 0 ENOSPC`);
    expect(dev).toBe('/dev/x.bin 0 EROFS');
    // /dev/null still takes writes.
    expect((await runScript(skill, 'scripts/fill.mjs', ['2', '/dev/null'], bw)).stdout).toBe('/dev/null 2\n');
  });

  it('names the sandbox that ran the script', async () => {
    const r = await runScript(skill, 'scripts/exit3.mjs', [], bw);
    const who = process.getuid?.() === 0 ? 'nobody' : `uid ${process.getuid?.()}`;
    expect(r.isolation).toMatch(new RegExp(`^bwrap \\d+\\.\\d+(\\.\\d+)? as ${who}$`));
  });

  it('leaves hard links, unreadable files and odd names out of the copy', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skillbench-copy-test-'));
    try {
      const s = join(dir, 'linked');
      cpSync(skill, s, { recursive: true, verbatimSymlinks: true });
      const rootOnly = join(secretDir, 'root-only.txt');
      writeFileSync(rootOnly, 'ROOT-ONLY-SECRET', { mode: 0o600 });
      linkSync(rootOnly, join(s, 'hardlink.txt'));
      writeFileSync(join(s, 'two\nlines.txt'), 'x');
      const r = await runScript(s, 'scripts/read.mjs', ['hardlink.txt', 'two\nlines.txt', 'SKILL.md'], bw);
      expect(r.stdout).toBe('hardlink.txt error ENOENT\ntwo\nlines.txt error ENOENT\nSKILL.md read\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses unshare: it would leave host unix sockets and /tmp reachable', async () => {
    await expect(runScript(skill, 'scripts/exit3.mjs', [], { kind: 'unshare' as SandboxKind })).rejects.toThrow(/unshare/);
  });

  it('leaves the original folder byte-identical after every run above', () => {
    expect(folderHash(skill)).toBe(hashBefore);
  });
});

const built = existsSync(join(import.meta.dirname, '..', 'dist', 'sandbox.js'));

describe.skipIf(!hasBwrap || !built)('sandbox: an interpreter installed under /tmp (needs dist/: npm test builds it first)', () => {
  it('still runs under bwrap: its install prefix is mounted after the private /tmp, not hidden by it', async () => {
    const prefix = mkdtempSync(join(tmpdir(), 'skillbench-node-'));
    try {
      chmodSync(prefix, 0o755);
      mkdirSync(join(prefix, 'bin'));
      const node = join(prefix, 'bin', 'node');
      try {
        linkSync(process.execPath, node); // same file system: cheap
      } catch {
        copyFileSync(process.execPath, node);
        chmodSync(node, 0o755);
      }
      const sandbox = pathToFileURL(join(import.meta.dirname, '..', 'dist', 'sandbox.js')).href;
      const code = `const m = await import(${JSON.stringify(sandbox)});
        const kind = await m.detectSandbox();
        const r = await m.runScript(${JSON.stringify(skill)}, 'scripts/exit3.mjs', []);
        console.log(JSON.stringify({ kind, exitCode: r.exitCode, isolation: r.isolation }));`;
      const out = spawnSync(node, ['--input-type=module', '-e', code], { encoding: 'utf8' });
      expect(out.stderr).toBe('');
      const r = JSON.parse(out.stdout) as { kind: string; exitCode: number; isolation: string };
      expect(r).toMatchObject({ kind: 'bwrap', exitCode: 3 });
      expect(r.isolation).toMatch(/^bwrap /);
    } finally {
      rmSync(prefix, { recursive: true, force: true });
    }
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

  it('refuses a resource limit that is not a positive integer', async () => {
    for (const bad of [{ maxProcs: 0 }, { maxFileMb: -1 }, { maxMemoryMb: 1.5 }]) {
      await expect(runScript(skill, 'scripts/exit3.mjs', [], { ...(hasBwrap ? { kind: 'bwrap' as SandboxKind } : { kind: 'none' as SandboxKind, unsafeNoSandbox: true }), ...bad })).rejects.toThrow(/positive integer/);
    }
  });

  it('reads the bwrap version that decides whether the copy gets a size-limited tmpfs (--size, bubblewrap 0.8.0)', () => {
    expect(versionAtLeast('bubblewrap 0.8.0\n', [0, 8, 0])).toBe(true);
    expect(versionAtLeast('bubblewrap 0.11.1', [0, 8, 0])).toBe(true);
    expect(versionAtLeast('bubblewrap 1.0', [0, 8, 0])).toBe(true);
    expect(versionAtLeast('bubblewrap 0.6.2', [0, 8, 0])).toBe(false);
    expect(versionAtLeast('bwrap: unknown option', [0, 8, 0])).toBe(false);
  });

  it('refuses an unsupported extension and a missing script', async () => {
    await expect(runScript(skill, 'scripts/x.rb', [], { kind: 'none', unsafeNoSandbox: true })).rejects.toThrow(/unsupported extension/);
    await expect(runScript(skill, 'scripts/missing.mjs', [], { kind: 'none', unsafeNoSandbox: true })).rejects.toThrow(/not found/);
  });
});
