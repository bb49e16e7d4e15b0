// Which sandbox a run uses: bwrap when it works here (probed once per process), else none only when the caller
// explicitly accepts running scripts unsandboxed; every other choice is refused.
import { UserError } from '../errors.js';
import { bwrapRunAs } from './bwrap-probe.js';
import { findExecutable } from './executables.js';
import type { SandboxKind, SandboxOptions } from './types.js';

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

export async function chooseKind(options: SandboxOptions): Promise<SandboxKind> {
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
