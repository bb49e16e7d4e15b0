// `skillbench validate [path]`: Agent Skills spec checks and lint warnings, one line per problem, each naming its rule.
import { Command } from 'commander';
import { collect, HOST_NAMES_HELP, parsePositiveInt } from '../options.js';
import { UserError } from '../errors.js';
import type { RuleSetting } from '../rules.js';
import type { Problem } from '../types.js';

interface ValidateOptions {
  warnings: boolean;
  json?: boolean;
  host?: string;
  listingBudget?: number;
  strict?: boolean;
  rule?: string[];
  githubAnnotations?: boolean;
}

export function register(program: Command): void {
  program
    .command('validate')
    .description('check a catalogue against the Agent Skills spec and lint its descriptions (exit 1 on errors, 2 on unreadable input)')
    .argument('[path]', 'catalogue folder (every SKILL.md below it), a project root (its .claude/skills, .agents/skills, ..., skills folders), or a JSON list of skills (default: the project\'s skill folders, else ./skills)')
    .option('--strict', 'every warning is an error (exit 1), placeholders left by `skillbench init` included')
    .option('--rule <id=setting>', 'switch a rule: SB013=warning, no-when-to-use=off, ... (off, warning or error; repeatable; also `validate.rules` in the config file)', collect)
    .option('--no-warnings', 'print errors only (the summary still counts warnings)')
    .option('--json', 'print the problems and the summary as JSON on stdout')
    .option('--github-annotations', 'also print each problem as a GitHub Actions annotation (::error file=...,line=...::), shown on the pull request\'s diff')
    .option('--host <name|file>', `also check the catalogue against a host's listing (${HOST_NAMES_HELP}, or a profile file): over its budget, a warning naming the costliest descriptions (SB025); a host that cuts descriptions switches SB013 on`)
    .option('--listing-budget <chars>', "with --host: replace the host's listing budget (characters)", parsePositiveInt)
    .addHelpText(
      'after',
      '\nEach problem is printed as `file:line: error|warning SB012 rule-name: message (fix)`; docs/catalogue.md lists the rules.\n\n' +
        'Example:\n  $ skillbench validate skills\n  $ skillbench validate . --strict --github-annotations\n  $ skillbench validate ../shared/data/hermes --no-warnings --rule no-when-to-use=off\n  $ skillbench validate skills --host claude-code',
    )
    .action(async (catPath: string | undefined, opts: ValidateOptions) => {
      const { loadCatalogue, formatProblem, displayPath, catalogueNote } = await import('../catalogue.js');
      const { validateCatalogue, summarise } = await import('../validate.js');
      const host = opts.host || opts.listingBudget !== undefined ? await (await import('../hosts/profile.js')).resolveHost({ host: opts.host, listingBudget: opts.listingBudget }) : undefined;
      const { defaultSkillsPath } = await import('../skill-folders.js');
      const { checkRuleSetting, findRule } = await import('../rules.js');
      const rules = parseRuleOptions(opts.rule ?? [], checkRuleSetting);
      const catalogue = await loadCatalogue(catPath ?? (await defaultSkillsPath()));
      const note = catalogueNote(catalogue);
      if (note) console.error(note);
      const extra: Problem[] = [];
      if (host) {
        const [{ hostFrame }, { budgetProblems }] = await Promise.all([import('../hosts/request.js'), import('../hosts/notes.js')]);
        extra.push(...budgetProblems(host, hostFrame(host, catalogue.skills).listing, catalogue.skills, catalogue.source));
        // A host that cuts each description (Hermes' index at 60 characters) makes the cut worth a warning.
        const cutRule = findRule('description-cut-in-host-index')!;
        if (host.catalogue.listing.cut && !Object.keys(rules).some((k) => findRule(k) === cutRule)) rules[cutRule.id] = 'warning';
      }
      const problems = validateCatalogue(catalogue, { rules, strict: opts.strict, extra });
      const s = summarise(catalogue, problems);
      if (opts.json) {
        const { ruleLabel } = await import('../rules.js');
        const shown = problems.map((p) => ({ ...p, file: displayPath(p.file), ruleName: ruleLabel(p.rule).split(' ')[1] }));
        console.log(JSON.stringify({ source: displayPath(catalogue.source), strict: Boolean(opts.strict), ...s, problems: shown }, null, 2));
      } else {
        for (const p of problems) if (opts.warnings || p.severity === 'error') console.log(formatProblem(p));
        const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
        const unusable = s.unusable ? ` (${s.unusable} could not be loaded)` : '';
        const strict = opts.strict ? ' (--strict: warnings count as errors)' : '';
        console.log(`${displayPath(catalogue.source)}: ${plural(s.skills, 'skill')} checked${unusable}: ${plural(s.errors, 'error')}, ${plural(s.warnings, 'warning')}${strict}`);
      }
      if (opts.githubAnnotations) {
        const { githubAnnotation } = await import('../annotations.js');
        const { ruleLabel } = await import('../rules.js');
        // Annotations go to stdout, where the runner reads workflow commands; paths relative to the working folder.
        for (const p of problems) {
          const title = ruleLabel(p.rule) || 'skillbench validate';
          process.stdout.write(githubAnnotation({ severity: p.severity, file: displayPath(p.file), line: p.line, title, message: p.fix ? `${p.message} (${p.fix})` : p.message }) + '\n');
        }
      }
      if (s.errors > 0) process.exitCode = 1;
    });
}

/** `--rule SB013=warning`: checked against the rule list, so a typo is a clear error, not a rule silently kept. */
function parseRuleOptions(values: string[], check: (key: string, value: RuleSetting) => string | null): Record<string, RuleSetting> {
  const out: Record<string, RuleSetting> = {};
  for (const v of values) {
    const m = /^([^=\s]+)\s*=\s*(off|warning|error)$/.exec(v.trim());
    if (!m) throw new UserError(`--rule ${v}: expected RULE=off|warning|error`, 'e.g. --rule SB013=warning or --rule no-when-to-use=off');
    const why = check(m[1]!, m[2] as RuleSetting);
    if (why) throw new UserError(`--rule ${v}: ${why}`, 'name a rule by its id or name, as `skillbench validate` prints them');
    out[m[1]!] = m[2] as RuleSetting;
  }
  return out;
}
