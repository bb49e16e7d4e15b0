// The programs a run uses: the interpreter of a script by its extension, and executables found on PATH (or in the
// system folders) with the install prefix a sandbox must mount for one installed elsewhere.
import { statSync, realpathSync } from 'node:fs';
import { delimiter, dirname, extname, join } from 'node:path';

const INTERPRETERS: Record<string, string> = { '.mjs': 'node', '.js': 'node', '.cjs': 'node', '.py': 'python3', '.sh': 'bash' };

/** The interpreter family a script runs with, by extension, or null when the extension is not supported. */
export function interpreterFor(scriptPath: string): 'node' | 'python3' | 'bash' | null {
  return (INTERPRETERS[extname(scriptPath).toLowerCase()] as 'node' | 'python3' | 'bash' | undefined) ?? null;
}

export const SUPPORTED_SCRIPT_EXTENSIONS = Object.keys(INTERPRETERS);

/** node: the running node binary; python3 and bash: the system one first, else the first on PATH. */
export function resolveInterpreter(family: 'node' | 'python3' | 'bash'): string | null {
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

/** `/x/y/bin/node` -> `/x/y` (the folder holding bin/ and lib/). */
export function installPrefix(exe: string): string | null {
  try {
    return dirname(dirname(realpathSync(exe)));
  } catch {
    return null;
  }
}
