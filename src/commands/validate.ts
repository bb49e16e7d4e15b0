// `skillbench validate [path]`: Agent Skills spec checks and lint warnings, one line per problem.
import { Command } from 'commander';

interface ValidateOptions {
  warnings: boolean;
  json?: boolean;
}

export function register(program: Command): void {
  program
    .command('validate')
    .description('check a catalogue against the Agent Skills spec and lint its descriptions (exit 1 on errors, 2 on unreadable input)')
    .argument('[path]', 'catalogue folder (every SKILL.md below it) or JSON list of skills', 'skills')
    .option('--no-warnings', 'print errors only (the summary still counts warnings)')
    .option('--json', 'print the problems and the summary as JSON')
    .addHelpText(
      'after',
      '\nEach problem is printed as `file:line: error|warning: message (fix)`.\n\nExample:\n  $ skillbench validate skills\n  $ skillbench validate ../shared/data/hermes --no-warnings',
    )
    .action(async (catPath: string, opts: ValidateOptions) => {
      const { loadCatalogue, formatProblem, displayPath } = await import('../catalogue.js');
      const { validateCatalogue, summarise } = await import('../validate.js');
      const catalogue = await loadCatalogue(catPath);
      const problems = validateCatalogue(catalogue);
      const s = summarise(catalogue, problems);
      if (opts.json) {
        const shown = problems.map((p) => ({ ...p, file: displayPath(p.file) }));
        console.log(JSON.stringify({ source: displayPath(catalogue.source), ...s, problems: shown }, null, 2));
      } else {
        for (const p of problems) if (opts.warnings || p.severity === 'error') console.log(formatProblem(p));
        const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
        const unusable = s.unusable ? ` (${s.unusable} could not be loaded)` : '';
        console.log(`${displayPath(catalogue.source)}: ${plural(s.skills, 'skill')} checked${unusable}: ${plural(s.errors, 'error')}, ${plural(s.warnings, 'warning')}`);
      }
      if (s.errors > 0) process.exitCode = 1;
    });
}
