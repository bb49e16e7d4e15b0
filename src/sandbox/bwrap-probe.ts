// Whether bwrap works here and as whom (nobody first when skillbench runs as root), probed once with a real command
// line and an empty skill; and the label every trace and report shows of it.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bwrapCommandArgs } from './bwrap-args.js';
import { bwrapHasSize, bwrapVersion } from './bwrap-version.js';
import { stageDir } from './copy.js';
import { findExecutable } from './executables.js';
import { limitsOf } from './limits.js';

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
export function bwrapRunAs(): Promise<RunAs> {
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
export async function bwrapLabel(uid: number | undefined): Promise<string> {
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
