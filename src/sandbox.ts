// Runs a skill's script isolated: in a throwaway copy of the skill folder, without network, with a timeout, capped
// output and resource limits (processes, file size, memory: setrlimit through prlimit, see ResourceLimits). bwrap only
// (read-only system, private /tmp, every writable mount a size-limited tmpfs with bwrap >= 0.8, only the copy
// writable); else scripts are refused unless the caller explicitly accepts running them unsandboxed. `unshare` alone
// is refused: it leaves the host's unix sockets reachable and its /tmp shared (see SandboxKind).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { chmod, chown, cp, lchown, lstat, mkdir, mkdtemp, readdir, readlink, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, extname, isAbsolute, join, posix, sep } from 'node:path';
import { UserError } from './errors.js';
import { refusedName, unservableEntry } from './skill-files.js';

/**
 * bwrap: new namespaces for everything (no network: only a private loopback, its own PIDs, no host unix socket: none
 * of the host's folders where sockets live is mounted), system folders read-only, a private /tmp, only the copy
 * writable, the original skill folder not even visible; as `nobody` when skillbench runs as root and nobody can use
 * bwrap.
 * none: no isolation at all (only with --unsafe-no-sandbox).
 * There is no `unshare` fallback any more: a network namespace alone left every unix socket file of the host
 * connectable (a world-writable one answered) and /tmp shared by every script (one skill's script rewrote another's
 * copy, and planted modules for later scripts to import); rebuilding bwrap's private mounts with unshare is not done.
 */
export type SandboxKind = 'bwrap' | 'none';

export interface SandboxOptions {
  /** Wall-clock limit in milliseconds; the whole process group is killed when it passes. Default 30 000. */
  timeoutMs?: number;
  /** Bytes kept per stream (stdout, stderr); the rest is counted and dropped. Default 256 KiB. */
  maxOutputBytes?: number;
  /** Run without isolation when bwrap does not work (never chosen silently). */
  unsafeNoSandbox?: boolean;
  /** Force a mechanism instead of detecting one (tests; 'none' still requires unsafeNoSandbox). */
  kind?: SandboxKind;
  /** Processes and threads the script may have at once (RLIMIT_NPROC). Default 256. */
  maxProcs?: number;
  /** Largest file the script may write, in MiB (RLIMIT_FSIZE); under bwrap >= 0.8 also what it may add to its copy, to
   *  /tmp and to /dev/shm (each a tmpfs of that much room; /dev itself is read-only). Default 64. */
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
  /** What isolated the run, for traces and reports: e.g. "bwrap 0.8.0 as nobody", "none (--unsafe-no-sandbox)". */
  isolation: string;
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

let detected: Promise<Probe> | undefined;

interface Probe {
  kind: SandboxKind | null;
  /** Why bwrap does not work here (installed but failing), for the warning and the refusal. */
  reason?: string;
}

/** The warning a command prints before a run whose scripts would all be refused; null when scripts can run. */
export async function noSandboxWarning(unsafeNoSandbox: boolean | undefined): Promise<string | null> {
  if (unsafeNoSandbox) return null;
  const probe = await probeSandbox();
  if (probe.kind !== null) return null;
  return `skillbench: warning: bwrap cannot isolate scripts here (${probe.reason}): run_skill_script calls will be refused (install bubblewrap, or pass --unsafe-no-sandbox)`;
}

/** Which isolation works on this machine: bwrap, else null. Probed once (a command run inside); cached. */
export async function detectSandbox(): Promise<SandboxKind | null> {
  return (await probeSandbox()).kind;
}

function probeSandbox(): Promise<Probe> {
  detected ??= (async (): Promise<Probe> => {
    if (!findExecutable('bwrap')) return { kind: null, reason: 'bwrap is not installed' };
    const runAs = await bwrapRunAs();
    return runAs.ok ? { kind: 'bwrap' } : { kind: null, reason: runAs.reason };
  })();
  return detected;
}

export async function bwrapWorks(): Promise<boolean> {
  return (await bwrapRunAs()).ok;
}

type RunAs = { ok: true; uid?: number } | { ok: false; reason: string };
let bwrapVariant: Promise<RunAs> | undefined;

/**
 * Who bwrap runs as, probed once with the interpreter skillbench itself runs on. As root, as `nobody` first: root
 * inside the sandbox could read the root-only files of the read-only /etc (/etc/shadow, ssh host keys). Else as
 * ourselves (as root when nobody cannot use bwrap, e.g. no unprivileged user namespaces: every trace then says
 * "as root"). When bwrap fails, the reason is its own message.
 */
function bwrapRunAs(): Promise<RunAs> {
  bwrapVariant ??= (async (): Promise<RunAs> => {
    const bwrap = findExecutable('bwrap');
    if (!bwrap) return { ok: false, reason: 'bwrap is not installed' };
    const candidates = process.getuid?.() === 0 ? [{ uid: NOBODY }, {}] : [{}];
    let reason = '';
    for (const runAs of candidates) {
      const work = await mkdtemp(join(tmpdir(), 'skillbench-probe-'));
      try {
        // The same command line as a real run (the copy filled in, the limits set), with an empty skill.
        const copy = await stageDir(work);
        await mkdir(copy, { mode: 0o755 });
        const node = process.execPath;
        const r = await quickRun(bwrap, await bwrapCommandArgs(copy, [node, '-e', ''], limitsOf({})), runAs.uid);
        if (r.code === 0) return { ok: true, ...runAs };
        reason = r.stderr.trim().split('\n').pop() || `exit code ${r.code}`;
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    }
    return { ok: false, reason: `bwrap fails: ${reason}` };
  })();
  return bwrapVariant;
}

/** uid/gid the script runs as under bwrap when skillbench runs as root. */
export const NOBODY = 65534;

/** "bwrap 0.8.0 as nobody", "bwrap 0.6.1 as root (writes not size-limited)": what every trace and report shows. */
async function bwrapLabel(uid: number | undefined): Promise<string> {
  const version = await bwrapVersion();
  const who = uid === NOBODY ? 'nobody' : (process.getuid?.() ?? 0) === 0 ? 'root' : `uid ${process.getuid?.()}`;
  return `bwrap ${version ?? '(unknown version)'} as ${who}${(await bwrapHasSize()) ? '' : ' (writes not size-limited: bubblewrap < 0.8)'}`;
}

function quickRun(cmd: string, args: string[], uid?: number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], ...(uid === undefined ? {} : { uid, gid: uid }) });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ code: null, stderr: e.message });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
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
    const copy = await stageDir(work);
    await copySkill(skillDir, copy);
    const copyReal = await realpath(copy);
    const real = await realpath(join(copy, rel)).catch(() => null);
    if (!real || !isInside(real, copyReal) || !(await stat(real)).isFile()) throw new UserError(`script "${rel}" not found in the skill folder`);
    const { cmd, cmdArgs, cwd, env, uid, isolation } = await sandboxCommand(kind, copy, [interpreter, rel, ...args], limits);
    const result = await spawnCapped(cmd, cmdArgs, {
      cwd,
      env,
      uid,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxBytes: options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    });
    return { ...result, sandbox: kind, isolation };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * A fresh folder for the copy of the skill inside the throwaway folder `work`, under a random name. Run as root (the
 * script as nobody), `work` is opened for traversal only (0711) and the copy made world-readable, never handed to
 * nobody: bwrap, started as nobody, must reach it to bind it read-only, but no other process of nobody on the host
 * may change it, and nobody else can find it (its name cannot be listed).
 */
async function stageDir(work: string): Promise<string> {
  const copy = join(work, randomBytes(12).toString('hex'));
  if (process.getuid?.() === 0) await chmod(work, 0o711);
  return copy;
}

interface Command {
  cmd: string;
  cmdArgs: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Run as this uid (and gid): nobody, when skillbench runs as root. */
  uid?: number;
  isolation: string;
}

/**
 * Resource limits, set with setrlimit (util-linux `prlimit`, run inside the sandbox right before the interpreter, so
 * that they bind the script and all its descendants, which cannot raise them: soft and hard are both set).
 * procs: RLIMIT_NPROC counts the tasks (processes and threads) of the script's user: the kernel does not enforce it for
 * root (CAP_SYS_RESOURCE), one more reason scripts run as nobody. Under bwrap as nobody it counts the sandbox's own
 * user namespace, so concurrent scripts do not share it. fileBytes: RLIMIT_FSIZE (a write past it fails with EFBIG,
 * or SIGXFSZ ends a process that does not ignore it). memoryBytes: RLIMIT_DATA, not RLIMIT_AS: node reserves far more
 * address space than it uses (a wasm memory alone reserves gigabytes), and RLIMIT_DATA only counts writable private
 * mappings.
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

/** Where the prepared copy is bound read-only inside bwrap, to be copied into the /skill tmpfs. */
export const SANDBOX_SOURCE_DIR = '/.skillbench-copy';

/**
 * The command line that runs argv under the sandbox `kind`, the copy prepared at `copy`, with the resource limits
 * `limits` (none for kind 'none': no isolation, no limits; RLIMIT_NPROC there would count all the processes of the
 * user running skillbench).
 */
async function sandboxCommand(kind: SandboxKind, copy: string, argv: string[], limits: ResourceLimits): Promise<Command> {
  if (kind === 'none') return { cmd: argv[0]!, cmdArgs: argv.slice(1), cwd: copy, env: sandboxEnv(copy), isolation: 'none (--unsafe-no-sandbox)' };
  const runAs = await bwrapRunAs();
  if (!runAs.ok) throw new UserError(`cannot run skill scripts: ${runAs.reason}`, 'install bubblewrap, or pass --unsafe-no-sandbox to run scripts without isolation');
  const cmdArgs = await bwrapCommandArgs(copy, argv, limits);
  return { cmd: findExecutable('bwrap')!, cmdArgs, cwd: dirname(copy), env: {}, uid: runAs.uid, isolation: await bwrapLabel(runAs.uid) };
}

/** bwrap's arguments: the mounts, then a shell that fills /skill from the copy and execs prlimit, then argv. */
async function bwrapCommandArgs(copy: string, argv: string[], limits: ResourceLimits): Promise<string[]> {
  const sh = findExecutable('sh');
  const cpPath = findExecutable('cp');
  if (!sh || !cpPath) throw new UserError('cannot run skill scripts: sh or cp is missing', 'install coreutils and dash (or any sh)');
  // cp as $0 and the command as "$@": passed on as they are, never parsed by the shell.
  const fill = [sh, '-c', `"$0" -a ${SANDBOX_SOURCE_DIR}/. ${SANDBOX_SKILL_DIR}/ && exec "$@"`, cpPath];
  return [...(await bwrapArgs(copy, [argv[0]!], limits, await treeBytes(copy))), ...fill, ...prlimitPrefix(limits), ...argv];
}

let bwrapSize: Promise<boolean> | undefined;
let bwrapVersionText: Promise<string | null> | undefined;

/** `bwrap --version`'s number ("0.8.0"), or null. Read once. */
function bwrapVersion(): Promise<string | null> {
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
function bwrapHasSize(): Promise<boolean> {
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
  if (options.kind !== undefined && options.kind !== 'bwrap' && options.kind !== 'none') {
    throw new UserError(
      `sandbox "${String(options.kind)}" is not used: only bwrap isolates scripts${options.kind === 'unshare' ? ' (unshare alone leaves host unix sockets and /tmp reachable)' : ''}`,
      'install bubblewrap',
    );
  }
  if (options.kind === 'none' && !options.unsafeNoSandbox) {
    throw new UserError('refusing to run a skill script without a sandbox', 'pass --unsafe-no-sandbox to accept it');
  }
  if (options.kind) return options.kind;
  const probe = await probeSandbox();
  if (probe.kind) return probe.kind;
  if (options.unsafeNoSandbox) return 'none';
  throw new UserError(
    `cannot run skill scripts: bwrap cannot isolate them on this machine (${probe.reason}; unshare alone is not used: it leaves host unix sockets and /tmp reachable)`,
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
 * Copies the skill folder, keeping relative symlinks that stay inside it and leaving out every other one (a link to
 * ~/.ssh must not smuggle its target into the copy, and an absolute link, even to a file of the skill, would point
 * back into the original folder), and leaving out what is never served (skill-files.ts): hard links (a second name of
 * a file from elsewhere, root-only perhaps), files skillbench cannot read, names with line breaks or backslashes.
 * Run as root, the copy is then made readable (not writable) by everyone: see stageDir.
 */
async function copySkill(skillDir: string, copy: string): Promise<void> {
  const root = await realpath(skillDir);
  await cp(root, copy, {
    recursive: true,
    verbatimSymlinks: true,
    filter: async (src) => {
      if (src !== root && refusedName(src.slice(src.lastIndexOf(sep) + 1))) return false;
      const st = await lstat(src);
      if (!st.isSymbolicLink()) return st.isDirectory() || unservableEntry(src) === null;
      if (isAbsolute(await readlink(src))) return false;
      try {
        return isInside(await realpath(src), root);
      } catch {
        return false; // dangling link
      }
    },
  });
  if (process.getuid?.() === 0) await shareReadOnly(copy);
}

/** Owned by root, readable (and, for folders and executables, traversable) by all, writable by root only. */
async function shareReadOnly(dir: string): Promise<void> {
  await chown(dir, 0, 0);
  await chmod(dir, 0o755);
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isSymbolicLink()) await lchown(p, 0, 0);
    else if (e.isDirectory()) await shareReadOnly(p);
    else {
      await chown(p, 0, 0);
      await chmod(p, (await stat(p)).mode & 0o111 ? 0o755 : 0o644);
    }
  }
}

export function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

function sandboxEnv(home: string): NodeJS.ProcessEnv {
  return { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: home, TMPDIR: home, LANG: 'C.UTF-8', SKILL_DIR: home };
}

/**
 * The bwrap command line up to (not including) the command to run, which must first fill /skill from
 * SANDBOX_SOURCE_DIR (the copy, bound read-only). `extra`: executables whose install prefix must be visible.
 * Mounts, in order (bwrap applies them in order, a later one hiding what an earlier one put at or below its place):
 * the system read-only; /proc; /dev, then /dev/shm as a tmpfs of fileBytes, then /dev made read-only; /tmp a tmpfs of
 * fileBytes; the copy read-only and /skill a tmpfs of the copy's size plus fileBytes; and only then the interpreters'
 * install prefixes, read-only, so that one installed under /tmp is not hidden by the /tmp tmpfs. Without --size
 * (bubblewrap < 0.8) the tmpfs mounts have the kernel's default size (half of the memory) and /dev stays as bwrap
 * makes it.
 */
async function bwrapArgs(copy: string, extra: string[], limits: ResourceLimits, copyBytes: number): Promise<string[]> {
  const sized = await bwrapHasSize();
  const size = (bytes: number) => (sized ? ['--size', String(bytes)] : []);
  const args = ['--unshare-all', '--die-with-parent', '--new-session'];
  const bound: string[] = [];
  for (const dir of ['/usr', '/etc', '/bin', '/sbin', '/lib', '/lib32', '/lib64']) {
    if (!existsSync(dir)) continue;
    const st = lstatSync(dir);
    if (st.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else {
      args.push('--ro-bind', dir, dir);
      bound.push(dir);
    }
  }
  args.push('--proc', '/proc', '--dev', '/dev');
  if (sized) args.push(...size(limits.fileBytes), '--tmpfs', '/dev/shm', '--remount-ro', '/dev');
  args.push(...size(limits.fileBytes), '--tmpfs', '/tmp');
  args.push('--ro-bind', copy, SANDBOX_SOURCE_DIR, ...size(copyBytes + limits.fileBytes + MIB), '--tmpfs', SANDBOX_SKILL_DIR);
  // Interpreters installed outside /usr (nvm, pyenv, a node unpacked under /tmp...): their install prefix, read-only.
  for (const exe of extra) {
    const prefix = installPrefix(exe);
    if (prefix && !bound.some((b) => isInside(prefix, b))) {
      args.push('--ro-bind', prefix, prefix);
      bound.push(prefix);
    }
  }
  args.push('--chdir', SANDBOX_SKILL_DIR);
  args.push('--clearenv');
  for (const [k, v] of Object.entries(sandboxEnv(SANDBOX_SKILL_DIR))) args.push('--setenv', k, v!);
  args.push('--setenv', 'TMPDIR', '/tmp', '--');
  return args;
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
 *  own sandboxes; this covers unsandboxed runs, whose groups are detached from ours). */
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
function spawnCapped(cmd: string, args: string[], o: SpawnOptions): Promise<Omit<ScriptResult, 'sandbox' | 'isolation'>> {
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
