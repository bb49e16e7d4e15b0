// Runs a skill's script isolated: in a throwaway copy of the skill folder, without network, with a timeout, capped
// output and resource limits (processes, file size, memory: setrlimit through prlimit, see ResourceLimits). bwrap only
// (read-only system, private /tmp, every writable mount a size-limited tmpfs with bwrap >= 0.8, only the copy
// writable); else scripts are refused unless the caller explicitly accepts running them unsandboxed. `unshare` alone
// is refused: it leaves the host's unix sockets reachable and its /tmp shared (see SandboxKind).
import { mkdtemp, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { UserError } from '../errors.js';
import { bwrapCommandArgs, sandboxEnv } from './bwrap-args.js';
import { bwrapLabel, bwrapRunAs } from './bwrap-probe.js';
import { copySkill, isInside, stageDir } from './copy.js';
import { chooseKind } from './detect.js';
import { findExecutable, interpreterFor, resolveInterpreter, SUPPORTED_SCRIPT_EXTENSIONS } from './executables.js';
import { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS, limitsOf, type ResourceLimits } from './limits.js';
import { spawnCapped } from './spawn.js';
import type { SandboxKind, SandboxOptions, ScriptResult } from './types.js';

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

/** A script path must be relative, normalised, inside scripts/, without NUL bytes. */
function checkScriptPath(scriptPath: string): string {
  if (typeof scriptPath !== 'string' || scriptPath.includes('\0')) throw new UserError('script path must be a string without NUL bytes');
  const rel = posix.normalize(scriptPath.replace(/\\/g, '/'));
  if (posix.isAbsolute(rel) || rel.startsWith('../') || rel === '..' || !rel.startsWith('scripts/')) {
    throw new UserError(`script path "${scriptPath}" must be a file under the skill's scripts/ folder`);
  }
  return rel;
}
