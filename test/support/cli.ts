// Runs the skillbench CLI in process, through main() from src/cli.ts, and captures what it prints.
//
//   const r = await runCli(['validate', 'fixtures/broken'], { cwd: root, env: { GEMINI_API_KEY: undefined } });
//   r.code    the exit code main() returns (0, 1 gate failed, 2 user error, 3 internal error)
//   r.stdout  every process.stdout.write chunk and every console.log line, in order
//   r.stderr  every process.stderr.write chunk and every console.error line, in order
//
// Output format: chunks written to a stream are kept as they are; a console.log/console.error call becomes its
// arguments, each through String(), joined with ' ' plus '\n', as a terminal would show it. So the text ends with
// '\n' when the last thing printed was a console line (callers that want "lines joined with '\n'" drop that '\n').
// The console is captured as well as the streams because vitest routes console.* around process.stdout/stderr.
//
// Options: `args` are the arguments after the program name. `cwd` runs the command from that folder; `env` sets
// variables for the run (undefined deletes one). Everything is put back in a finally: the streams, the console,
// the working folder, each variable touched (restored, or deleted when it was absent), and process.exitCode is
// reset before and after (commands set it and main() reads it, so a stale value would leak into the next run).
// The streams and the console are replaced by assignment, not vi.spyOn, so a test's vi.restoreAllMocks() neither
// undoes nor is undone by this capture. The capture is process-wide: one run at a time (no it.concurrent).
import { main } from '../../src/cli.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
}

export async function runCli(args: string[], opts: CliOptions = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const saved = { out: process.stdout.write, err: process.stderr.write, log: console.log, error: console.error };
  const savedEnv = Object.fromEntries(Object.keys(opts.env ?? {}).map((k) => [k, process.env[k]]));
  const cwd = process.cwd();
  process.stdout.write = ((chunk: string | Uint8Array) => ((stdout += String(chunk)), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => ((stderr += String(chunk)), true)) as typeof process.stderr.write;
  console.log = (...a: unknown[]) => void (stdout += a.map(String).join(' ') + '\n');
  console.error = (...a: unknown[]) => void (stderr += a.map(String).join(' ') + '\n');
  try {
    setEnv(opts.env ?? {});
    if (opts.cwd) process.chdir(opts.cwd);
    process.exitCode = undefined;
    const code = await main(['node', 'skillbench', ...args]);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
    console.log = saved.log;
    console.error = saved.error;
    process.chdir(cwd);
    setEnv(savedEnv);
    process.exitCode = undefined;
  }
}

function setEnv(vars: Record<string, string | undefined>): void {
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
}
