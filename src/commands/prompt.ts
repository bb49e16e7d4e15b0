// `skillbench prompt`: what the model would receive for a request under a host: system blocks, tools with their
// schemas, messages, the listing notes (budget, dropped or shortened skills) and a token estimate. The counterpart of
// skills-ref's `to-prompt`, and the first thing to read when a figure surprises.
import { Command, Option } from 'commander';
import { addHostOptions, addSkillsOption, type HostCliOptions } from '../options.js';
import type { CatalogueFormat } from '../types.js';

interface PromptOptions extends HostCliOptions {
  skills?: string;
  request?: string;
  format?: CatalogueFormat;
  json?: boolean;
}

export function register(program: Command): void {
  const cmd = program
    .command('prompt')
    .description("print exactly what the model receives for a request under a host: system, tools, messages, the listing's budget notes, tokens")
    .option('--request <text>', 'the user request (default: a placeholder)')
    .addOption(new Option('--format <format>', "the generic host's listing: lines (the default), xml (skills-ref form), hermes, markdown").choices(['lines', 'xml', 'hermes', 'markdown']))
    .option('--json', 'print it as JSON on stdout (the request as skillbench sends it to the provider core)');
  addSkillsOption(cmd);
  addHostOptions(cmd);
  cmd
    .addHelpText(
      'after',
      '\nThe hosts reproduce each agent\'s mechanics (where the catalogue goes, the loading tool, the listing form and\n' +
        'budget, what counts as a load); their own long instructions are not shipped: give them with --system-prompt FILE.\n' +
        '\nExample:\n  $ skillbench prompt --request "check my expense report"\n' +
        '  $ skillbench prompt --host claude-code --listing-budget 2000 --json\n  $ skillbench prompt --host codex --skills ../shared/data/hermes',
    )
    .action(async (opts: PromptOptions) => {
      const { resolveHost } = await import('../hosts/profile.js');
      const host = await resolveHost(opts);
      const { loadUsableCatalogue, displayPath } = await import('../catalogue.js');
      const { catalogue } = await loadUsableCatalogue(opts.skills, (line) => console.error(line));
      const { selectableSkills } = await import('../selectors/index.js');
      const { promptView, renderPromptView } = await import('../hosts/show.js');
      const view = promptView(host, selectableSkills(catalogue.skills), displayPath(catalogue.source), opts.request);
      process.stdout.write(opts.json ? `${JSON.stringify(view, null, 2)}\n` : renderPromptView(view));
    });
}
