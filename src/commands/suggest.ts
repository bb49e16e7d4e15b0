// `skillbench suggest "request"`: the two-stage skill suggester for large catalogues (wide: rank + action gate;
// narrow: fit of the shortlist), and `skillbench suggest --eval`: its three-arm evaluation (baseline, suggest,
// oracle) on a Hermes-style index.
import { Command, Option } from 'commander';
import { UserError } from '../errors.js';
import { addHostOptions, addJsonOption, addOutputOption, addProviderOptions, addSkillsOption, jsonSwitch, legacyOutputs, outputFiles, parsePositiveInt, parseRate } from '../options.js';
import type { SuggestCliOptions } from '../suggest/run.js';

export function register(program: Command): void {
  const cmd = program
    .command('suggest')
    .description(
      'suggest at most one skill for a request (two cheap model steps before the turn), or measure what the suggestion does to an agent with --eval',
    )
    .argument('[request]', 'the user request to suggest a skill for (not with --eval)');
  addSkillsOption(cmd)
    .addOption(
      new Option('--wide <mode>', 'stage 1 ranking: model (one structured call, chunked for large catalogues), or offline: fused (words, character n-grams and embeddings; the recommended offline ranking) or similarity (embeddings alone); offline, the model answers only the gate')
        .choices(['model', 'fused', 'similarity'])
        .default('model'),
    )
    .option('--gate <rate>', 'gate threshold on the mean of the three action questions (below it: no skill)', parseRate, 0.3)
    .option('--fit <rate>', 'fit threshold of the narrow stage (best fit below it: nothing suggested)', parseRate, 0.3)
    .option('--shortlist <n>', 'candidates shown to the narrow stage', parsePositiveInt, 3)
    .option('--excerpt <chars>', 'characters of each candidate\'s body shown to the narrow stage', parsePositiveInt, 700)
    .option('--chunk-size <n>', 'skills per ranking call with --wide model; larger catalogues are ranked in chunks, then the chunk winners together', parsePositiveInt, 60)
    .option('--suggester-model <id>', 'model for the suggester\'s own calls (default: --model)')
    .option('--rank-only', 'print the offline ranking (--wide fused unless --wide similarity is given) and stop (no model, no key)')
    .option('--eval', 'three-arm evaluation: baseline (index only), suggest (index + suggestion), oracle (index + the gold answer)')
    .option('--requests <file>', 'with --eval: request set [{"id", "text", "gold": skill or null}]')
    .option('--preamble <file>', 'with --eval: text put above the agent\'s skill index (default: a preamble urging to load skills; same as --system-prompt)');
  addHostOptions(cmd, 'hermes, with the preamble above');
  addProviderOptions(cmd);
  addOutputOption(cmd, 'with --eval by extension: .json .html .md .xml (JUnit) .csv; without --eval: .json (the suggestion)', 'write the results');
  addJsonOption(cmd, 'the suggestion (with --eval: the results file)');
  cmd
    .option('--no-progress', 'no live view: plain progress lines (the default when output is not a terminal)')
    .addHelpText(
      'after',
      [
        '',
        'The block for the agent\'s system prompt goes after the stable catalogue, for this turn only.',
        '',
        'Example:',
        '  $ skillbench suggest "open a pull request for my branch" --skills ../shared/data/hermes',
        '  $ skillbench suggest "convert this video to a gif" --skills ../shared/data/hermes --wide fused --rank-only',
        '  $ skillbench suggest --eval --skills ../shared/data/hermes --requests requests.json -o results.json -o report.html',
        '  $ skillbench suggest --eval --host claude-code --skills ../shared/data/hermes --requests requests.json',
      ].join('\n'),
    )
    .allowExcessArguments() // only for the old `-o a.html b.md`: see legacyOutputs
    .action(async (requestArg: string | undefined, opts: SuggestCliOptions & { json?: boolean | string }, command: Command) => {
      opts.output = legacyOutputs(command, opts.output);
      // --rank-only ranks offline: without an explicit --wide it takes the recommended offline ranking, fused.
      if (opts.rankOnly && cmd.getOptionValueSource('wide') === 'default') opts.wide = 'fused';
      const { runSuggest, runSuggestEvalCommand } = await import('../suggest/run.js');
      // `suggest --json "request"`: commander gave the request to --json's old optional file name; it is given back.
      const json = jsonSwitch(opts.json, opts.eval ? undefined : { missing: requestArg === undefined });
      const request = requestArg ?? json.positional;
      opts.output = outputFiles(opts.output, json);
      opts.json = json.stdout;
      if (!opts.skills) opts.skills = await (await import('../skill-folders.js')).defaultSkillsPath();
      if (opts.eval) {
        if (request !== undefined) {
          throw new UserError(`--eval takes its requests from --requests FILE, not from the argument "${request}"`, 'drop the argument');
        }
        await runSuggestEvalCommand(opts);
      } else {
        await runSuggest(request, opts);
      }
    });
}
