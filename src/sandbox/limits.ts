// The limits of a script run: wall-clock time and output kept (enforced by spawn.ts), and the resource limits
// (processes, file size, memory) set with setrlimit through prlimit inside the sandbox.
import { UserError } from '../errors.js';
import { findExecutable } from './executables.js';
import type { SandboxOptions } from './types.js';

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_OUTPUT_BYTES = 256 * 1024;
export const DEFAULT_MAX_PROCS = 256;
export const DEFAULT_MAX_FILE_MB = 64;
/** 2 GiB: Node 24's V8 reserves about 560 MiB per isolate (its code range) that RLIMIT_DATA counts, so under 1 GiB a
 *  node script could not start a single worker thread (Node 20 and 22 reserve it outside the limit). */
export const DEFAULT_MAX_MEMORY_MB = 2048;
export const MIB = 1024 * 1024;

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
export interface ResourceLimits {
  procs: number;
  fileBytes: number;
  memoryBytes: number;
}

export function limitsOf(o: SandboxOptions): ResourceLimits {
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
export function prlimitPrefix(l: ResourceLimits): string[] {
  const prlimit = findExecutable('prlimit');
  if (!prlimit) throw new UserError('cannot run skill scripts: prlimit is not installed, so their resources cannot be limited', 'install util-linux (apt-get install util-linux)');
  return [prlimit, `--nproc=${l.procs}`, `--fsize=${l.fileBytes}`, `--data=${l.memoryBytes}`, '--'];
}
