// Runs a skill's script isolated: in a throwaway copy of the skill folder, without network, with a timeout, capped
// output and resource limits (processes, file size, memory: setrlimit through prlimit, see ResourceLimits). bwrap
// where it works (read-only system, private /tmp, only the copy writable, both size-limited tmpfs with bwrap >= 0.8),
// else `unshare` (network only, see SandboxKind), else refuse unless the caller explicitly accepts running unsandboxed.
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { cp, lchown, lstat, mkdtemp, readdir, readlink, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, extname, isAbsolute, join, posix, sep } from 'node:path';
import { UserError } from './errors.js';

/**
 * bwrap: new namespaces for everything (no network: only a private loopback, its own PIDs), system folders
 * read-only, a private /tmp, only the copy writable, the original skill folder not even visible; as `nobody` when
 * skillbench runs as root and nobody can use bwrap.
 * unshare: a new network namespace (no network), a PID namespace where available, and, best effort, fewer write
 * permissions: run as root, the script runs as the unprivileged `nobody` user (unshare --setuid), so it can write
 * its copy and world-writable folders (/tmp, /var/tmp, /dev/shm) but not system or user files; run as a user, it
 * keeps that user's permissions. In both cases it starts in the copy with HOME and TMPDIR pointing into it.
 * none: no isolation at all (only with --unsafe-no-sandbox).
 */
export type SandboxKind = 'bwrap' | 'unshare' | 'none';

export interface SandboxOptions {
  /** Wall-clock limit in milliseconds; the whole process group is killed when it passes. Default 30 000. */
  timeoutMs?: number;
  /** Bytes kept per stream (stdout, stderr); the rest is counted and dropped. Default 256 KiB. */
  maxOutputBytes?: number;
  /** Run without isolation when neither bwrap nor unshare works (never chosen silently). */
  unsafeNoSandbox?: boolean;
  /** Force a mechanism instead of detecting one (tests; 'none' still requires unsafeNoSandbox). */
  kind?: SandboxKind;
  /** Processes and threads the script may have at once (RLIMIT_NPROC). Default 256. */
  maxProcs?: number;
  /** Largest file the script may write, in MiB (RLIMIT_FSIZE); under bwrap >= 0.8 also what it may add to its copy, and
   *  to /tmp (each a tmpfs of that much room). Default 64. */
  maxFileMb?: number;
  /** Memory per process, in MiB (RLIMIT_DATA: heap and private writable mappings). Default 1024. */
  maxMemoryMb?: number;
}

export interface ScriptResult {
  /** Exit status, or null when the process was ended by a signal (see `signal`). */
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  /** True when either stream went over the cap (the text then ends with a truncation marker). */
  truncated: boolean;
  timedOut: boolean;
  sandbox: SandboxKind;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_OUTPUT_BYTES = 256 * 1024;
export const DEFAULT_MAX_PROCS = 256;
export const DEFAULT_MAX_FILE_MB = 64;
export const DEFAULT_MAX_MEMORY_MB = 1024;
const MIB = 1024 * 1024;
/** Where the copy of the skill folder appears inside the bwrap sandbox (and the script's working directory). */
export const SANDBOX_SKILL_DIR = '/skill';

const INTERPRETERS: Record<string, string> = { '.mjs': 'node', '.js': 'node', '.cjs': 'node', '.py': 'python3', '.sh': 'bash' };

/** The interpreter family a script runs with, by extension, or null when the extension is not supported. */
export function interpreterFor(scriptPath: string): 'node' | 'python3' | 'bash' | null {
  return (INTERPRETERS[extname(scriptPath).toLowerCase()] as 'node' | 'python3' | 'bash' | undefined) ?? null;
}

export const SUPPORTED_SCRIPT_EXTENSIONS = Object.keys(INTERPRETERS);

// ---------------------------------------------------------------- detection (probed once per process)

let detected: Promise<SandboxKind | null> | undefined;

/** The warning a command prints before a run whose scripts would all be refused; null when scripts can run. */
export async function noSandboxWarning(unsafeNoSandbox: boolean | undefined): Promise<string | null> {
  if (unsafeNoSandbox || (await detectSandbox()) !== null) return null;
  return 'skillbench: warning: neither bwrap nor unshare can isolate scripts here: run_skill_script calls will be refused (install bubblewrap, or pass --unsafe-no-sandbox)';
}

/** Which isolation works on this machine: bwrap, else unshare, else null. Probed once (a command run inside); cached. */
export function detectSandbox(): Promise<SandboxKind | null> {
  detected ??= probe();
  return detected;
}

async function probe(): Promise<SandboxKind | null> {
  if (await bwrapWorks()) return 'bwrap';
  if (await unshareWorks()) return 'unshare';
  return null;
}

export async function bwrapWorks(): Promise<boolean> {
  return (await bwrapRunAs()) !== null;
}

let bwrapVariant: Promise<{ uid?: number } | null> | undefined;

/**
 * Who bwrap runs as, probed once with the interpreter skillbench itself runs on. As root, as `nobody` first: root
 * inside the sandbox could read the root-only files of the read-only /etc (/etc/shadow, ssh host keys). Else as
 * ourselves (as root when nobody cannot use bwrap, e.g. no unprivileged user namespaces). null: bwrap does not work.
 */
function bwrapRunAs(): Promise<{ uid?: number } | null> {
  bwrapVariant ??= (async () => {
    const bwrap = findExecutable('bwrap');
    if (!bwrap) return null;
    const candidates = process.getuid?.() === 0 ? [{ uid: NOBODY }, {}] : [{}];
    for (const runAs of candidates) {
      const tmp = await mkdtemp(join(tmpdir(), 'skillbench-probe-'));
      try {
        if (runAs.uid !== undefined) await chownTree(tmp, runAs.uid);
        const node = process.execPath;
        if ((await quickRun(bwrap, [...bwrapArgs(tmp, [node]), node, '-e', ''], runAs.uid)) === 0) return runAs;
      } finally {
        await rm(tmp, { recursive: true, force: true });
      }
    }
    return null;
  })();
  return bwrapVariant;
}

export async function unshareWorks(): Promise<boolean> {
  return (await unshareArgs()) !== null;
}

/** uid/gid the script runs as under bwrap and unshare when skillbench runs as root. */
export const NOBODY = 65534;

let unshareVariant: Promise<string[] | null> | undefined;

/**
 * The unshare options that work here, probed once: as root, a network namespace and a switch to `nobody`
 * (util-linux >= 2.38), else the network namespace alone; as a user, -r (map to root) is needed to get one. Each
 * first with a PID namespace (-p -f --kill-child): a script that detaches a background process (setsid, double
 * fork) leaves its process group, and only the namespace's end takes that process with it.
 */
function unshareArgs(): Promise<string[] | null> {
  unshareVariant ??= (async () => {
    const unshare = findExecutable('unshare');
    const truePath = findExecutable('true');
    if (!unshare || !truePath) return null;
    const pidNs = ['-p', '-f', '--kill-child'];
    const base = process.getuid?.() === 0 ? [['-n', '--setuid', String(NOBODY), '--setgid', String(NOBODY)], ['-n']] : [['-r', '-n']];
    const candidates = [...base.map((b) => [...b, ...pidNs, '--']), ...base.map((b) => [...b, '--'])];
    for (const args of candidates) if ((await quickRun(unshare, [...args, truePath])) === 0) return args;
    return null;
  })();
  return unshareVariant;
}

function quickRun(cmd: string, args: string[], uid?: number): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: 'ignore', ...(uid === undefined ? {} : { uid, gid: uid }) });
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.on('error', () => {
      clearTimeout(timer);
      resolve(null);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

// ---------------------------------------------------------------- running

/**
 * Runs `scriptPath` (relative to the skill folder, under scripts/) with `args` as an argv array (never a shell),
 * in a throwaway copy of `skillDir`. The original folder is never written: the copy is deleted afterwards.
 * Throws UserError when no sandbox works and unsafeNoSandbox is not set; a failing script is a normal result.
 */
export async function runScript(skillDir: string, scriptPath: string, args: string[], options: SandboxOptions = {}): Promise<ScriptResult> {
  const rel = checkScriptPath(scriptPath);
  if (!args.every((a) => typeof a === 'string' && !a.includes('\0'))) throw new UserError('script arguments must be strings without NUL bytes');
  const family = interpreterFor(rel);
  if (!family) throw new UserError(`cannot run "${rel}": unsupported extension (supported: ${SUPPORTED_SCRIPT_EXTENSIONS.join(', ')})`);
  const interpreter = resolveInterpreter(family);
  if (!interpreter) throw new UserError(`cannot run "${rel}": ${family} is not installed`);

  const limits = limitsOf(options);
  const kind = await chooseKind(options);
  const work = await mkdtemp(join(tmpdir(), 'skillbench-run-'));
  try {
    const copy = join(work, 'skill');
    await copySkill(skillDir, copy);
    const copyReal = await realpath(copy);
    const real = await realpath(join(copy, rel)).catch(() => null);
    if (!real || !isInside(real, copyReal) || !(await stat(real)).isFile()) throw new UserError(`script "${rel}" not found in the skill folder`);
    const { cmd, cmdArgs, cwd, env, uid } = await sandboxCommand(kind, work, copy, [interpreter, rel, ...args], limits);
    const result = await spawnCapped(cmd, cmdArgs, {
      cwd,
      env,
      uid,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxBytes: options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    });
    return { ...result, sandbox: kind };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

interface Command {
  cmd: string;
  cmdArgs: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Run as this uid (and gid): nobody, when skillbench runs as root. */
  uid?: number;
}

/**
 * Resource limits, set with setrlimit (util-linux `prlimit`, run inside the sandbox right before the interpreter, so
 * that they bind the script and all its descendants, which cannot raise them: soft and hard are both set).
 * procs: RLIMIT_NPROC counts the tasks (processes and threads) of the script's user: the kernel does not enforce it for
 * root (CAP_SYS_RESOURCE), one more reason scripts run as nobody. Under bwrap as nobody it counts the sandbox's own
 * user namespace, so concurrent scripts do not share it; under unshare as root (nobody, no user namespace) it counts
 * every process of nobody on the host. fileBytes: RLIMIT_FSIZE (a write past it fails with EFBIG, or SIGXFSZ ends
 * a process that does not ignore it). memoryBytes: RLIMIT_DATA, not RLIMIT_AS: node reserves far more address space
 * than it uses (a wasm memory alone reserves gigabytes), and RLIMIT_DATA only counts writable private mappings.
 */
interface ResourceLimits {
  procs: number;
  fileBytes: number;
  memoryBytes: number;
}

function limitsOf(o: SandboxOptions): ResourceLimits {
  const positive = (v: number | undefined, fallback: number, name: string) => {
    const n = v ?? fallback;
    if (!Number.isInteger(n) || n < 1) throw new UserError(`${name} must be a positive integer (got ${v})`);
    return n;
  };
  return {
    procs: positive(o.maxProcs, DEFAULT_MAX_PROCS, 'the script process limit'),
    fileBytes: positive(o.maxFileMb, DEFAULT_MAX_FILE_MB, 'the script file size limit (MiB)') * MIB,
    memoryBytes: positive(o.maxMemoryMb, DEFAULT_MAX_MEMORY_MB, 'the script memory limit (MiB)') * MIB,
  };
}

/** `prlimit --nproc=.. --fsize=.. --data=.. --`: the command prefix that applies the limits (soft = hard). */
function prlimitPrefix(l: ResourceLimits): string[] {
  const prlimit = findExecutable('prlimit');
  if (!prlimit) throw new UserError('cannot run skill scripts: prlimit is not installed, so their resources cannot be limited', 'install util-linux (apt-get install util-linux)');
  return [prlimit, `--nproc=${l.procs}`, `--fsize=${l.fileBytes}`, `--data=${l.memoryBytes}`, '--'];
}

/** Where the prepared copy is bound read-only inside bwrap, to be copied into the size-limited /skill tmpfs. */
export const SANDBOX_SOURCE_DIR = '/.skillbench-copy';

/**
 * The command line that runs argv under the sandbox `kind`, the copy at `copy` inside the throwaway folder `work`, with
 * the resource limits `limits` (none for kind 'none': no isolation, no limits; RLIMIT_NPROC there would count all the
 * processes of the user running skillbench).
 */
async function sandboxCommand(kind: SandboxKind, work: string, copy: string, argv: string[], limits: ResourceLimits): Promise<Command> {
  if (kind === 'bwrap') {
    const runAs = await bwrapRunAs();
    if (!runAs) throw new UserError('cannot run skill scripts: bwrap does not work here', 'install bubblewrap, or let skillbench detect another sandbox');
    const limited = [...prlimitPrefix(limits), ...argv];
    // Run as nobody: the copy (and the folder holding it) must be theirs to read (and, without tmpfs, to write).
    if (runAs.uid !== undefined) await chownTree(work, runAs.uid);
    const sh = findExecutable('sh');
    const cpPath = findExecutable('cp');
    if ((await bwrapHasSize()) && sh && cpPath) {
      // The script's copy and /tmp live on tmpfs mounts of a fixed size: the copy's own bytes plus fileBytes, and
      // fileBytes. Nothing the script writes reaches the host disk, and it cannot write more than that in total.
      const tmpfs = { skillBytes: (await treeBytes(copy)) + limits.fileBytes + MIB, tmpBytes: limits.fileBytes };
      // cp as $0 and the command as "$@": passed on as they are, never parsed by the shell.
      const fill = [sh, '-c', `"$0" -a ${SANDBOX_SOURCE_DIR}/. ${SANDBOX_SKILL_DIR}/ && exec "$@"`, cpPath];
      return { cmd: findExecutable('bwrap')!, cmdArgs: [...bwrapArgs(copy, [argv[0]!], tmpfs), ...fill, ...limited], cwd: work, env: {}, uid: runAs.uid };
    }
    return { cmd: findExecutable('bwrap')!, cmdArgs: [...bwrapArgs(copy, [argv[0]!]), ...limited], cwd: work, env: {}, uid: runAs.uid };
  }
  if (kind === 'unshare') {
    const uargs = await unshareArgs();
    if (!uargs) throw new UserError('cannot run skill scripts: unshare cannot create a network namespace here', 'install bubblewrap');
    if (uargs.includes('--setuid')) await chownTree(work, NOBODY);
    return { cmd: findExecutable('unshare')!, cmdArgs: [...uargs, ...prlimitPrefix(limits), ...argv], cwd: copy, env: sandboxEnv(copy) };
  }
  return { cmd: argv[0]!, cmdArgs: argv.slice(1), cwd: copy, env: sandboxEnv(copy) };
}

let bwrapSize: Promise<boolean> | undefined;

/** Whether bwrap knows `--size` (a size for the next --tmpfs): bubblewrap 0.8.0 and later. Probed once. */
function bwrapHasSize(): Promise<boolean> {
  bwrapSize ??= new Promise((resolve) => {
    const bwrap = findExecutable('bwrap');
    if (!bwrap) return resolve(false);
    const child = spawn(bwrap, ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', () => resolve(false));
    child.on('close', () => resolve(versionAtLeast(out, [0, 8, 0])));
  });
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

/** Room a folder takes on a tmpfs: each entry rounded up to whole 4 KiB pages, plus one page for its inode. */
async function treeBytes(dir: string): Promise<number> {
  let total = 4096;
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) total += await treeBytes(p);
    else total += 4096 + Math.ceil((await lstat(p)).size / 4096) * 4096;
  }
  return total;
}

async function chooseKind(options: SandboxOptions): Promise<SandboxKind> {
  if (options.kind === 'none' && !options.unsafeNoSandbox) {
    throw new UserError('refusing to run a skill script without a sandbox', 'pass --unsafe-no-sandbox to accept it');
  }
  if (options.kind) return options.kind;
  const kind = await detectSandbox();
  if (kind) return kind;
  if (options.unsafeNoSandbox) return 'none';
  throw new UserError(
    'cannot run skill scripts: neither bwrap nor unshare can isolate them on this machine',
    'install bubblewrap (apt-get install bubblewrap), or pass --unsafe-no-sandbox to run scripts without isolation',
  );
}

/** A script path must be relative, normalised, inside scripts/, without NUL bytes. */
function checkScriptPath(scriptPath: string): string {
  if (typeof scriptPath !== 'string' || scriptPath.includes('\0')) throw new UserError('script path must be a string without NUL bytes');
  const rel = posix.normalize(scriptPath.replace(/\\/g, '/'));
  if (posix.isAbsolute(rel) || rel.startsWith('../') || rel === '..' || !rel.startsWith('scripts/')) {
    throw new UserError(`script path "${scriptPath}" must be a file under the skill's scripts/ folder`);
  }
  return rel;
}

/**
 * Copies the skill folder, keeping relative symlinks that stay inside it and leaving out every other one: a link
 * to ~/.ssh must not smuggle its target into the copy, and an absolute link (even to a file of the skill) would
 * point back into the original folder.
 */
async function copySkill(skillDir: string, copy: string): Promise<void> {
  const root = await realpath(skillDir);
  await cp(root, copy, {
    recursive: true,
    verbatimSymlinks: true,
    filter: async (src) => {
      const st = await lstat(src);
      if (!st.isSymbolicLink()) return true;
      if (isAbsolute(await readlink(src))) return false;
      try {
        return isInside(await realpath(src), root);
      } catch {
        return false; // dangling link
      }
    },
  });
}

export function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

function sandboxEnv(home: string): NodeJS.ProcessEnv {
  return { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: home, TMPDIR: home, LANG: 'C.UTF-8', SKILL_DIR: home };
}

/**
 * The bwrap command line up to (not including) the command to run. `extra`: executables whose install prefix must be
 * visible. `tmpfs`: /skill and /tmp as tmpfs mounts of these sizes, the copy bound read-only at SANDBOX_SOURCE_DIR
 * (the command must fill /skill from it); without it, the copy is bound read-write at /skill and /tmp has no size.
 */
function bwrapArgs(copy: string, extra: string[], tmpfs?: { skillBytes: number; tmpBytes: number }): string[] {
  const args = ['--unshare-all', '--die-with-parent', '--new-session'];
  const bound = new Set<string>();
  for (const dir of ['/usr', '/etc', '/bin', '/sbin', '/lib', '/lib32', '/lib64']) {
    if (!existsSync(dir)) continue;
    const st = lstatSync(dir);
    if (st.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else {
      args.push('--ro-bind', dir, dir);
      bound.add(dir);
    }
  }
  // Interpreters installed outside /usr (nvm, pyenv...): make their install prefix visible, read-only.
  for (const exe of extra) {
    const prefix = installPrefix(exe);
    if (prefix && ![...bound].some((b) => isInside(prefix, b))) {
      args.push('--ro-bind', prefix, prefix);
      bound.add(prefix);
    }
  }
  args.push('--proc', '/proc', '--dev', '/dev');
  if (tmpfs) {
    args.push('--size', String(tmpfs.tmpBytes), '--tmpfs', '/tmp');
    args.push('--ro-bind', copy, SANDBOX_SOURCE_DIR, '--size', String(tmpfs.skillBytes), '--tmpfs', SANDBOX_SKILL_DIR);
  } else {
    args.push('--tmpfs', '/tmp', '--bind', copy, SANDBOX_SKILL_DIR);
  }
  args.push('--chdir', SANDBOX_SKILL_DIR);
  args.push('--clearenv');
  for (const [k, v] of Object.entries(sandboxEnv(SANDBOX_SKILL_DIR))) args.push('--setenv', k, v!);
  args.push('--setenv', 'TMPDIR', '/tmp', '--');
  return args;
}

async function chownTree(dir: string, id: number): Promise<void> {
  await lchown(dir, id, id);
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) await chownTree(p, id);
    else await lchown(p, id, id);
  }
}

/** `/x/y/bin/node` -> `/x/y` (the folder holding bin/ and lib/). */
function installPrefix(exe: string): string | null {
  try {
    return dirname(dirname(realpathSync(exe)));
  } catch {
    return null;
  }
}

/** node: the running node binary; python3 and bash: the system one first, else the first on PATH. */
function resolveInterpreter(family: 'node' | 'python3' | 'bash'): string | null {
  if (family === 'node') return process.execPath;
  for (const candidate of [`/usr/bin/${family}`, `/bin/${family}`]) if (isExecutable(candidate)) return candidate;
  return findExecutable(family);
}

export function findExecutable(name: string): string | null {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  for (const dir of ['/usr/bin', '/bin', '/usr/sbin', '/sbin']) {
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

function isExecutable(path: string): boolean {
  try {
    const st = statSync(path);
    return st.isFile() && (st.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

interface SpawnOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  uid?: number;
  timeoutMs: number;
  maxBytes: number;
}

/** Process groups of scripts still running: killed if skillbench exits first (bwrap's --die-with-parent covers its
 *  own sandboxes; this covers unshare and unsandboxed runs, whose groups are detached from ours). */
const running = new Set<number>();
let exitHook = false;
function track(pid: number): void {
  running.add(pid);
  if (exitHook) return;
  exitHook = true;
  process.on('exit', () => {
    for (const p of running) {
      try {
        process.kill(-p, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

/** How long the pipes are still read after the script's main process ended (only matters when something else holds them). */
const PIPE_GRACE_MS = 1_000;

/** Spawns in its own process group, keeps at most maxBytes per stream, kills the group at the timeout. */
function spawnCapped(cmd: string, args: string[], o: SpawnOptions): Promise<Omit<ScriptResult, 'sandbox'>> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const ids = o.uid === undefined ? {} : { uid: o.uid, gid: o.uid };
    const child = spawn(cmd, args, { cwd: o.cwd, env: o.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true, shell: false, ...ids });
    if (child.pid) track(child.pid);
    const out = new CappedBuffer(o.maxBytes);
    const err = new CappedBuffer(o.maxBytes);
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    let timedOut = false;
    let grace: NodeJS.Timeout | undefined;
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, o.timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('exit', () => {
      clearTimeout(timer);
      killGroup(); // leftovers that kept running after the main process ended
      // A descendant that left the group (setsid) may still hold the pipes open: stop waiting for their end a moment
      // after the script itself ended (time to read what it wrote last), or the run would never return.
      grace = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, PIPE_GRACE_MS);
    });
    child.on('close', (code, signal) => {
      clearTimeout(grace);
      if (child.pid) running.delete(child.pid);
      resolve({
        exitCode: code,
        signal: signal ?? null,
        stdout: out.text(),
        stderr: err.text(),
        durationMs: Math.round(performance.now() - started),
        truncated: out.dropped > 0 || err.dropped > 0,
        timedOut,
      });
    });
  });
}

class CappedBuffer {
  private chunks: Buffer[] = [];
  private kept = 0;
  dropped = 0;
  constructor(private readonly max: number) {}
  push(chunk: Buffer): void {
    const room = this.max - this.kept;
    if (room > 0) {
      const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
      this.chunks.push(part);
      this.kept += part.length;
    }
    this.dropped += Math.max(0, chunk.length - Math.max(0, room));
  }
  text(): string {
    const s = Buffer.concat(this.chunks).toString('utf8');
    return this.dropped > 0 ? `${s}\n[... output truncated: ${this.dropped} more bytes not shown]` : s;
  }
}
