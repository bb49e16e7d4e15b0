// Paths as skillbench shows them: relative to the working directory, with forward slashes.
import path from 'node:path';

export function displayPath(file: string, cwd = process.cwd()): string {
  const rel = path.relative(cwd, path.resolve(cwd, file));
  if (rel === '') return '.';
  // Far away from the working directory, an absolute path reads better than ../../../..
  return toPosix(rel.startsWith(`..${path.sep}..${path.sep}..`) ? path.resolve(cwd, file) : rel);
}

export function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}
