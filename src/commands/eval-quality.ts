// `skillbench eval-quality`: a quality set run through the agent loop in progressive and load-all mode: pass rate of
// the answers' checks (with a Wilson interval), input tokens and calls per request, and the token ratio of the modes.
import { Command, Option } from 'commander';
import { addCacheOptions, addHostOptions, addModelOptions, addOutputOptions, addSandboxOptions, addSkillsOption, addSpendingOptions, jsonSwitch, legacyOutputs, outputFiles, parsePositiveInt, parseRate, sandboxSettings, type HostCliOptions, type OutputOptions, type ProviderOptions, type SandboxCliOptions } from '../options.js';
import { GateFailure } from '../errors.js';
import type { CatalogueFormat } from '../types.js';

type ModeChoice = 'progressive' | 'load-all' | 'both';

interface Options extends ProviderOptions, OutputOptions, SandboxCliOptions, HostCliOptions {
  cases: string;
  skills?: string;
  mode: ModeChoice;
  format?: CatalogueFormat;
  maxTurns: number;
  judge?: boolean;
  judgeThreshold: number;
  minPassRate?: number;
}

export function register(program: Command): void {
  const cmd = program
    .command('eval-quality')
    .description('check the answers of the agent loop on a quality set, in progressive and load-all mode: pass rate, tokens and calls per request')
    .option('--cases <file>', 'quality set: [{id, request, skill, checks: {contains?, regex?, forbidden?}, rubric?}]', 'fixtures/quality.json')
    .addOption(new Option('--mode <mode>', 'which modes to run').choices(['progressive', 'load-all', 'both']).default('both'))
    .addOption(new Option('--format <format>', "the generic host's listing: lines (the default), xml (skills-ref form), hermes, markdown").choices(['lines', 'xml', 'hermes', 'markdown']))
    .option('--max-turns <n>', 'model calls per request before giving up', parsePositiveInt, 10)
    .option('--judge', 'also grade each answer that has a "rubric" with the model (structured 0-1 score and reason)')
    .option('--judge-threshold <x>', 'a judged answer passes at score >= x', parseRate, 0.7)
    .option('--min-pass-rate <rate>', 'gate: fail (exit 1) when a mode\'s pass rate is below this (0..1)', parseRate);
  addSkillsOption(cmd);
  addHostOptions(cmd);
  addSandboxOptions(cmd);
  addModelOptions(cmd);
  addCacheOptions(cmd);
  addSpendingOptions(cmd, { concurrency: 'cases run in parallel (default depends on the provider)' });
  addOutputOptions(cmd);
  cmd
    .addHelpText(
      'after',
      '\nA case passes when its answer contains every "contains" string (case and spacing ignored), matches every "regex",\n' +
        'contains no "forbidden" string, and (with --judge) scores at least --judge-threshold.\n' +
        '\nExample:\n  $ skillbench eval-quality --cases fixtures/quality.json -o quality.json\n' +
        '  $ skillbench eval-quality --mode progressive --provider anthropic --judge --min-pass-rate 0.8',
    )
    .allowExcessArguments() // only for the old `-o a.html b.md`: see legacyOutputs
    .action(async (opts: Options, command: Command) => {
      opts.output = legacyOutputs(command, opts.output);
      await run(opts, program.version() ?? '0.0.0');
    });
}

async function run(opts: Options, version: string): Promise<void> {
  const [quality, { loadUsableCatalogue }, { createChatClient, cacheMissFailure }, { noSandboxWarning }, { createProgress }, { writeOutputs }, { renderQualityTerminal }] =
    await Promise.all([
      import('../quality.js'),
      import('../catalogue.js'),
      import('../client.js'),
      import('../sandbox.js'),
      import('../progress.js'),
      import('../report/index.js'),
      import('../report/quality.js'),
    ]);
  const json = jsonSwitch(opts.json);
  const outputs = outputFiles(opts.output, json);
  const { formatOf } = await import('../report/index.js');
  for (const file of outputs) formatOf(file); // a typo in a name is reported before anything is paid for
  const { resolveHost } = await import('../hosts/profile.js');
  const host = await resolveHost(opts);
  const cases = await quality.loadQualityCases(opts.cases);
  const { catalogue, path: skillsPath } = await loadUsableCatalogue(opts.skills, (line) => console.error(line));
  opts.skills = skillsPath;
  quality.assertCaseSkills(cases, catalogue, opts.cases);
  const { hostNotice } = await import('../hosts/notes.js');
  const notice = hostNotice(host, catalogue.skills);
  if (notice) console.error(notice);
  quality.assertGradable(cases, Boolean(opts.judge), opts.cases);
  if (opts.judge && !cases.some((c) => c.rubric)) console.error(`skillbench: note: --judge: no case in ${opts.cases} has a "rubric"; nothing will be judged`);
  // A dry run needs no key: with no provider at all it is estimated for the default one (and says so).
  const { dryRunProvider, describeDryRun, cacheOnlyNotice } = await import('../dryrun.js');
  const dry = dryRunProvider(opts, Boolean((await import('../client.js')).availableChatProvider()));
  const client = await createChatClient(dry.opts);
  const warning = await noSandboxWarning(opts.unsafeNoSandbox);
  if (warning) console.error(warning);

  const modes = opts.mode === 'both' ? (['progressive', 'load-all'] as const) : ([opts.mode] as const);
  const progress = createProgress({ live: Boolean(process.stderr.isTTY && opts.progress), title: opts.dryRun ? 'eval-quality --dry-run (nothing is called)' : 'eval-quality', dryRun: opts.dryRun });
  const lanes = Object.fromEntries(modes.map((m) => [m, progress.lane(m, cases.length)]));
  let evaluated;
  try {
    evaluated = await quality.evalQuality(client, catalogue, cases, {
      modes: [...modes],
      host,
      maxTurns: opts.maxTurns,
      sandbox: sandboxSettings(opts),
      parallel: opts.concurrency,
      judge: opts.judge,
      judgeThreshold: opts.judgeThreshold,
      lanes,
      casesFile: opts.cases,
      skillbenchVersion: version,
      settings: { provider: client.provider, model: client.model, skills: opts.skills, thinking: opts.thinking, minPassRate: opts.minPassRate },
    });
  } finally {
    progress.stop();
  }
  if (opts.dryRun) {
    console.log(describeDryRun(client.dryRunReport(), ['(the agent loop: the first turn of each case and mode; each skill the model loads adds a turn)', ...(dry.note ? [dry.note] : [])]));
    return;
  }
  if (opts.cacheOnly) {
    const notice = cacheOnlyNotice(client.stats(), opts.cacheDir, 'model requests');
    if (notice) console.error(notice);
  }
  const { results } = evaluated;
  const { completenessOf, incompleteFailure } = await import('../completeness.js');
  results.completeness = completenessOf(results.runs, opts.maxErrorRate ?? 0, client.stats().runStopped);
  // The same renderer as `skillbench report FILE`, from the results file alone: the two print the same tables.
  if (json.stdout) process.stdout.write(JSON.stringify(results, null, 2) + '\n');
  else process.stdout.write(renderQualityTerminal(results, (await import('../colors.js')).layoutFor()));
  console.error(client.summary());
  if (outputs.length) await writeOutputs(results, outputs);
  for (const file of outputs) console.error(`skillbench: wrote ${file}`);
  const missing = cacheMissFailure([client.stats()]) ?? incompleteFailure(results.completeness);
  if (missing) throw missing;
  if (opts.minPassRate !== undefined) {
    const low = results.quality!.modes.filter((m) => (m.pass.rate ?? 0) < opts.minPassRate!);
    if (low.length) {
      throw new GateFailure(low.map((m) => `${m.mode} pass rate ${((m.pass.rate ?? 0) * 100).toFixed(1)}% is below --min-pass-rate ${(opts.minPassRate! * 100).toFixed(1)}%`).join('; '));
    }
  }
}
