// `skillbench improve`: rewrite one skill's description until it loads when it should, judged on requests the
// rewriter never saw. Splits the skill's requests (stratified, seeded), asks a model for candidate descriptions from
// the train failures, scores each with the model selector in the whole catalogue, keeps the best on test with its
// interval and a paired comparison with the original, and prints a diff of SKILL.md (or writes it with --write).
import { Command, Option } from 'commander';
import { addHostOptions, addOutputOptions, addProviderOptions, addSkillsOption, jsonSwitch, legacyOutputs, outputFiles, parseNonNegative, parsePositiveInt, parseRate, type OutputOptions } from '../options.js';
import { UserError } from '../errors.js';
import type { ImproveOptions } from '../improve/run.js';

/** The loop's options, as commander gives them: --skill may be missing (checked in the action). */
interface Options extends Omit<ImproveOptions, 'skill'>, OutputOptions {
  skill?: string;
}

export function register(program: Command): void {
  const cmd = program
    .command('improve')
    .description('rewrite a skill\'s description until the right requests load it: candidates from the train failures, scored by the model in the whole catalogue, the best kept on held-out requests')
    .option('--skill <name>', 'the skill whose description to improve (required)')
    .option('--requests <file>', 'request set: [{id?, text, gold, kind?}] or skill-creator\'s [{query, should_trigger}] about --skill (default: ./requests.json)')
    .addOption(new Option('--format <format>', "the generic host's listing: lines (the default), xml (skills-ref form), hermes (60 characters of each description), markdown").choices(['lines', 'xml', 'hermes', 'markdown']))
    .option('--iterations <n>', 'rewriting rounds (each rewrites the best description on train so far)', parseNonNegative, 3)
    .option('--candidates <n>', 'candidate descriptions asked for per round', parsePositiveInt, 3)
    .option('--holdout <share>', 'share of each kind of request held out for the test part, never shown to the rewriter', parseRate, 0.4)
    .option('--seed <n>', 'seed of the split (written to the results)', parseNonNegative, 42)
    .option('--rewriter-model <id>', 'model that writes the candidates (default: --model)')
    .addOption(new Option('--prescreen <selector>', 'rank the candidates offline on train first and score only the best with the model').choices(['keyword', 'similarity']))
    .option('--prescreen-keep <n>', 'with --prescreen: candidates per round scored by the model', parsePositiveInt, 2)
    .option('--write', 'replace the description in SKILL.md with the one kept (every other byte of the file unchanged); without it, print the diff');
  addSkillsOption(cmd);
  addHostOptions(cmd);
  addProviderOptions(cmd);
  addOutputOptions(cmd);
  cmd
    .addHelpText(
      'after',
      '\nThe score of a description is the accuracy of the whole catalogue on each part: a candidate that makes the skill\n' +
        'take another skill\'s requests, or lose its own to one, scores worse, and the report says which.\n' +
        '\nExample:\n  $ skillbench improve --skill csv-data-profiler --dry-run\n' +
        '  $ skillbench improve --skill csv-data-profiler --skills skills --requests requests.json -o improve.html\n' +
        '  $ skillbench improve --skill csv-data-profiler --provider openai --base-url http://localhost:11434/v1 --model qwen3:8b --write',
    )
    .allowExcessArguments() // only for the old `-o a.html b.md`: see legacyOutputs
    .action(async (opts: Options, command: Command) => {
      opts.output = legacyOutputs(command, opts.output);
      await run(opts, program.version() ?? '0.0.0');
    });
}

async function run(opts: Options, version: string): Promise<void> {
  if (!opts.skill) throw new UserError('--skill: which skill\'s description to improve?', 'pass --skill NAME (a skill of the catalogue)');
  if (!Number.isInteger(opts.iterations)) throw new UserError(`--iterations ${opts.iterations}: must be a whole number`, 'use e.g. --iterations 3');
  const [{ improve }, { writeOutputs, formatOf }, { renderImproveTerminal }, { createProgress }, { editDiff }] = await Promise.all([
    import('../improve/run.js'),
    import('../report/index.js'),
    import('../report/improve.js'),
    import('../progress.js'),
    import('../skillfile.js'),
  ]);
  const json = jsonSwitch(opts.json);
  const outputs = outputFiles(opts.output, json);
  for (const file of outputs) formatOf(file); // a typo must not throw away a paid run
  opts.skills ??= await (await import('../skill-folders.js')).defaultSkillsPath();
  const progress = createProgress({ live: Boolean(process.stderr.isTTY && opts.progress), title: opts.dryRun ? `improve ${opts.skill} --dry-run (nothing is called)` : `improve ${opts.skill}`, dryRun: opts.dryRun });
  const outcome = await improve({ ...opts, skill: opts.skill }, { progress, notice: (line) => console.error(line), skillbenchVersion: version });
  if (outcome.dryRun) {
    console.log(outcome.dryRun);
    return;
  }
  const { results } = outcome;
  const { layoutFor } = await import('../colors.js');
  const layout = layoutFor();
  const color = layout.color;
  const summary = results.improve!;
  // Written before the outputs, so the results file records it.
  let writeError: UserError | undefined;
  if (opts.write && outcome.edit) {
    try {
      await writeSkillFile(outcome.edit.file, outcome.edit.shown, outcome.edit.before, outcome.edit.edit.text);
      summary.written = true;
    } catch (err) {
      if (!(err instanceof UserError)) throw err;
      writeError = err; // the report and the outputs are still written; the error ends the run
    }
  }
  if (outcome.cacheNotice) console.error(outcome.cacheNotice);
  // --json: the results file on stdout, and nothing else there (the diff and the notes go to stderr).
  const print = json.stdout ? (line: string) => console.error(line) : (line: string) => console.log(line);
  if (json.stdout) process.stdout.write(JSON.stringify(results, null, 2) + '\n');
  else process.stdout.write(renderImproveTerminal(results, layout));
  const chosen = summary.candidates.find((c) => c.id === summary.chosen)!;
  if (outcome.edit) {
    const { shown, edit, before } = outcome.edit;
    if (summary.written) {
      print(`\nwrote ${shown}: description replaced by ${chosen.id}, every other line unchanged${summary.comparison.withinNoise ? ' (the gain is within noise: check it with another --seed)' : ''}`);
    } else {
      print(`\n${editDiff(edit, before, { from: shown, to: `${shown} (${chosen.id})` }, 3, color).trimEnd()}`);
      print('(rerun with --write to apply it: the answers are cached, the rerun is free)');
    }
  } else if (chosen.id !== 'original') {
    if (outcome.editProblem) console.error(`skillbench: ${outcome.editProblem}`);
    print(`\nThe description kept (${chosen.id}), to copy by hand:\n${chosen.description}`);
  }
  for (const line of outcome.clientSummaries) console.error(line);
  if (outputs.length) await writeOutputs(results, outputs);
  for (const file of outputs) console.error(`skillbench: wrote ${file}`);
  const { cacheMissFailure } = await import('../client.js');
  const { incompleteFailure } = await import('../completeness.js');
  const failure = writeError ?? cacheMissFailure([{ cacheMisses: outcome.cacheMisses }]) ?? outcome.failure ?? incompleteFailure(results.completeness);
  if (failure) throw failure;
}

/** Writes SKILL.md in place (a temporary file renamed over it, its mode kept), unless it changed since it was read. */
async function writeSkillFile(file: string, shown: string, before: string, text: string): Promise<void> {
  const { readFile, rename, stat, writeFile, chmod, rm } = await import('node:fs/promises');
  const now = await readFile(file, 'utf8');
  if (now !== before) {
    throw new UserError(`${shown} changed while improve ran: not written`, 'rerun improve (its answers are cached) to write the description into the new file');
  }
  const tmp = `${file}.skillbench-${process.pid}.tmp`;
  try {
    const { mode } = await stat(file);
    await writeFile(tmp, text);
    await chmod(tmp, mode);
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw new UserError(`${shown}: cannot write it (${(err as NodeJS.ErrnoException).code ?? String(err)})`, 'check the file and folder permissions, or drop --write and apply the diff by hand');
  }
}
