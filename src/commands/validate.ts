// `skillbench validate [path]`: Agent Skills spec checks and lint warnings, one line per problem.
import { Command } from 'commander';
import { HOST_NAMES_HELP, parsePositiveInt } from '../options.js';

interface ValidateOptions {
  warnings: boolean;
  json?: boolean;
  host?: string;
  listingBudget?: number;
}

export function register(program: Command): void {
  program
    .command('validate')
    .description('check a catalogue against the Agent Skills spec and lint its descriptions (exit 1 on errors, 2 on unreadable input)')
    .argument('[path]', 'catalogue folder (every SKILL.md below it) or JSON list of skills', 'skills')
    .option('--no-warnings', 'print errors only (the summary still counts warnings)')
    .option('--json', 'print the problems and the summary as JSON')
    .option('--host <name|file>', `also check the catalogue against a host's listing (${HOST_NAMES_HELP}, or a profile file): over its budget, a warning naming the costliest descriptions`)
    .option('--listing-budget <chars>', "with --host: replace the host's listing budget (characters)", parsePositiveInt)
    .addHelpText(
      'after',
      '\nEach problem is printed as `file:line: error|warning: message (fix)`.\n\nExample:\n  $ skillbench validate skills\n  $ skillbench validate ../shared/data/hermes --no-warnings\n  $ skillbench validate skills --host claude-code',
    )
    .action(async (catPath: string, opts: ValidateOptions) => {
      const { loadCatalogue, formatProblem, displayPath } = await import('../catalogue.js');
      const { validateCatalogue, summarise } = await import('../validate.js');
      const host = opts.host || opts.listingBudget !== undefined ? await (await import('../hosts/profile.js')).resolveHost({ host: opts.host, listingBudget: opts.listingBudget }) : undefined;
      const catalogue = await loadCatalogue(catPath);
      const problems = validateCatalogue(catalogue);
      if (host) {
        const [{ hostFrame }, { budgetProblems }] = await Promise.all([import('../hosts/request.js'), import('../hosts/notes.js')]);
        problems.push(...budgetProblems(host, hostFrame(host, catalogue.skills).listing, catalogue.skills, catalogue.source));
      }
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
