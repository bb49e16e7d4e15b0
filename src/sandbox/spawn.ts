// Spawning a script: in its own process group, output capped per stream, the group killed at the timeout (and when
// skillbench exits first).
import { spawn } from 'node:child_process';
import type { ScriptResult } from './types.js';

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
export function spawnCapped(cmd: string, args: string[], o: SpawnOptions): Promise<Omit<ScriptResult, 'sandbox' | 'isolation'>> {
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
