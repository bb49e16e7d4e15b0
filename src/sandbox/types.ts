// What a script run is asked for and what it returns: the sandbox kinds, the options, the result.

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
