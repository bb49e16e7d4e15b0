// A catalogue's problems: duplicates found while loading, their order, their one-line form, and the error that
// stops a command when a skill cannot be loaded.
import { UserError } from '../errors.js';
import { ruleId, ruleLabel } from '../rules.js';
import type { Catalogue, Problem, Skill } from '../types.js';
import { compareStrings } from './order.js';
import { skillFieldLine } from './origins.js';
import { displayPath } from './paths.js';

/** Throws a UserError listing the fatal problems (skills that could not be loaded), if any. */
export function assertUsable(catalogue: Catalogue): void {
  const fatal = catalogue.problems.filter((p) => p.fatal);
  if (fatal.length === 0) return;
  const lines = fatal.map((p) => `  ${formatProblem(p)}`);
  throw new UserError(
    `${displayPath(catalogue.source)}: ${fatal.length} skill${fatal.length === 1 ? '' : 's'} cannot be loaded:\n${lines.join('\n')}`,
    `fix ${fatal.length === 1 ? 'it' : 'them'} (see \`skillbench validate ${displayPath(catalogue.source)}\`)`,
  );
}

/** `file:line: severity SB012 rule-name: message (fix)` with the file relative to the working directory. */
export function formatProblem(p: Problem, cwd = process.cwd()): string {
  const rule = ruleLabel(p.rule);
  return `${displayPath(p.file, cwd)}:${p.line}: ${p.severity}${rule ? ` ${rule}` : ''}: ${p.message}${p.fix ? ` (${p.fix})` : ''}`;
}

export function sortProblems(problems: Problem[]): Problem[] {
  return [...problems].sort(
    (a, b) => compareStrings(a.file, b.file) || a.line - b.line || compareStrings(a.severity, b.severity) || compareStrings(a.message, b.message),
  );
}

/** Keeps the first skill of each name (in file order) and reports the others as fatal duplicates. */
export function dropDuplicates(skills: Skill[], problems: Problem[], lineOf?: (s: Skill) => number): Skill[] {
  const seen = new Map<string, Skill>();
  const kept: Skill[] = [];
  for (const s of skills) {
    const first = seen.get(s.name);
    if (!first) {
      seen.set(s.name, s);
      kept.push(s);
      continue;
    }
    const where = first.file === s.file ? 'earlier in the same file' : `already used by ${displayPath(first.file)}`;
    problems.push({
      file: s.file,
      line: lineOf ? lineOf(s) : skillFieldLine(s, 'name'),
      severity: 'error',
      message: `duplicate name "${s.name}" (${where}); this copy is ignored`,
      fix: 'give each skill a unique name and rename its folder to match',
      fatal: true,
      rule: ruleId('duplicate-name'),
    });
  }
  return kept;
}
