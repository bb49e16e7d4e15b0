// bwrap's command line for a run: the mounts (system read-only, private /tmp and /dev/shm, the copy bound read-only
// and copied into a sized /skill tmpfs, interpreters' install prefixes), the environment, then prlimit and the script.
// The environment is the one every script gets, sandboxed or not.
import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { UserError } from '../errors.js';
import { bwrapHasSize } from './bwrap-version.js';
import { isInside } from './copy.js';
import { findExecutable, installPrefix } from './executables.js';
import { MIB, prlimitPrefix, type ResourceLimits } from './limits.js';

/** Where the copy of the skill folder appears inside the bwrap sandbox (and the script's working directory). */
export const SANDBOX_SKILL_DIR = '/skill';

/** Where the prepared copy is bound read-only inside bwrap, to be copied into the /skill tmpfs. */
export const SANDBOX_SOURCE_DIR = '/.skillbench-copy';

/** bwrap's arguments: the mounts, then a shell that fills /skill from the copy and execs prlimit, then argv. */
export async function bwrapCommandArgs(copy: string, argv: string[], limits: ResourceLimits): Promise<string[]> {
  const sh = findExecutable('sh');
  const cpPath = findExecutable('cp');
  if (!sh || !cpPath) throw new UserError('cannot run skill scripts: sh or cp is missing', 'install coreutils and dash (or any sh)');
  // cp as $0 and the command as "$@": passed on as they are, never parsed by the shell.
  const fill = [sh, '-c', `"$0" -a ${SANDBOX_SOURCE_DIR}/. ${SANDBOX_SKILL_DIR}/ && exec "$@"`, cpPath];
  return [...(await bwrapArgs(copy, [argv[0]!], limits, await treeBytes(copy))), ...fill, ...prlimitPrefix(limits), ...argv];
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

export function sandboxEnv(home: string): NodeJS.ProcessEnv {
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
