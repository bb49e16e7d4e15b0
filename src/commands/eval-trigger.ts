// `skillbench eval-trigger`: does the right skill load? Runs the selectors (model, fused, similarity, hybrid, keyword,
// explicit) over a request set, prints the tables, writes the results file, and applies the CI gates.
import { Command, Option } from 'commander';
import { addAnnotationsOption, addBatchOptions, addHostOptions, addOutputOptions, addProviderOptions, addSkillsOption, jsonSwitch, legacyOutputs, outputFiles, parseNonNegative, parsePositiveInt, parseRate, type BatchCliOptions, type HostCliOptions, type OutputOptions, type ProviderOptions } from '../options.js';
import { GateFailure, UserError } from '../errors.js';
import type { CatalogueFormat, GateVerdict } from '../types.js';

interface Options extends ProviderOptions, OutputOptions, HostCliOptions, BatchCliOptions {
  shard?: string;
  skills?: string;
  requests?: string;
  skill?: string;
  format?: CatalogueFormat;
  selectors?: string;
  k: number;
  threshold?: string;
  calibrate?: string;
  cv?: string;
  prefilter?: 'fused' | 'similarity' | 'keyword';
  runs: number;
  maxWrongLoad?: number;
  maxNeedlessLoad?: number;
  baseline?: string;
  gateAlpha: number;
  gateMinEffect: number;
  gateMinRequests: number;
  githubAnnotations?: boolean;
  gateSkillLoss: number;
}

export function register(program: Command): void {
  const cmd = program
    .command('eval-trigger')
    .description('measure whether the right skill loads: model, fused, similarity, hybrid, keyword and explicit selectors, with wrong/needless load rates')
    .option('--requests <path>', 'request set: [{id?, text, gold, kind?, candidates?}], skill-creator\'s [{query|prompt, should_trigger}] or {skill_name, evals|queries}, or a folder whose skills keep <skill>/evals/trigger-evals.json (default: ./requests.json, else the catalogue\'s per-skill eval sets)')
    .option('--skill <name>', 'the skill a skill-creator eval set is about: scored against it (trigger rate, false-trigger rate; other skills\' loads apart)')
    .addOption(new Option('--format <format>', "the generic host's listing: lines (name: description, the default), xml (skills-ref form), hermes, markdown").choices(['lines', 'xml', 'hermes', 'markdown']))
    .option('--selectors <list>', 'comma-separated: model,fused,similarity,hybrid,keyword,explicit (default: every one that can run here)')
    .option('--k <n>', 'hybrid: shortlist size from the --prefilter ranking', parsePositiveInt, 3)
    .addOption(new Option('--prefilter <selector>', 'hybrid: the offline ranking its shortlist comes from').choices(['fused', 'similarity', 'keyword']).default('fused'))
    .option('--threshold <x>', 'similarity and keyword: load the top skill at score >= x; one number, similarity=0.6,keyword=0.3, or baseline: the thresholds (and fused\'s fitted decision) the --baseline file applied (default: cross-validated, see --cv)')
    .option('--calibrate <file>', 'fit the score selectors\' thresholds (and fused\'s decision) on this other request set, report on --requests')
    .option('--cv <k>', 'fit the score selectors\' thresholds and fused\'s decision on k-1 folds of --requests and decide each held-out fold with them; off: fit on the same requests (optimistic) (default: 5 when every fold can hold a covered and an uncovered request, else off)')
    .option('--runs <n>', 'repeat every model request n times (separate cache keys): trigger rate per request, flaky requests', parsePositiveInt, 1)
    .option('--max-wrong-load <rate>', 'gate: fail (exit 1) when a selector\'s wrong load is above this rate (0..1)', parseRate)
    .option('--max-needless-load <rate>', 'gate: fail (exit 1) when a selector\'s needless load is above this rate (0..1)', parseRate)
    .option('--baseline <file>', 'gate: fail (exit 1) on a significant regression against this earlier results file (paired, exact McNemar)')
    .option('--gate-alpha <p>', 'baseline gate: significance level', parseRate, 0.05)
    .option('--gate-min-effect <rate>', 'baseline gate: minimum net worsening as a share of the paired requests', parseRate, 0.05)
    .option('--gate-min-requests <n>', 'baseline gate: minimum net number of requests that got worse (globally, and for one skill)', parseNonNegative, 2)
    .option('--gate-skill-loss <rate>', 'baseline gate, per skill: fail when a skill lost more than this share of the requests it loaded correctly in the baseline', parseRate, 0.5)
    .option('--shard <i/n>', 'run the i-th of n slices of the requests (by request id hash: stable when requests are added), for a CI matrix; join the shards with report --merge');
  addSkillsOption(cmd);
  addHostOptions(cmd);
  addProviderOptions(cmd);
  addBatchOptions(cmd);
  addOutputOptions(cmd);
  addAnnotationsOption(cmd, 'a failed gate and each request that got worse against the baseline');
  cmd
    .addHelpText(
      'after',
      '\nWithout a model API key, the offline selectors run (fused, similarity with the bundled `use` model, keyword, explicit).\n' +
        '\nExample:\n  $ skillbench eval-trigger --skills skills --requests requests.json -o results.json -o report.html\n' +
        '  $ skillbench eval-trigger --selectors model --provider openai --base-url http://localhost:11434/v1 --model qwen3:8b\n' +
        '  $ skillbench eval-trigger --baseline results.json --threshold baseline --max-needless-load 0.2\n' +
        '  $ skillbench eval-trigger --requests evals/trigger-evals.json --skill pdf --max-wrong-load 0.2   # a skill-creator set\n' +
        '  $ skillbench eval-trigger --selectors model --provider anthropic --host claude-code --listing-budget 4000\n' +

        '  $ skillbench eval-trigger --selectors model --batch -o results.json           # half price, resumable\n' +
        '  $ skillbench eval-trigger --shard 2/4 -o shard-2.json                          # then: skillbench report --merge shard-*.json -o results.json',
    )
    .allowExcessArguments() // only for the old `-o a.html b.md`: see legacyOutputs
    .action(async (opts: Options, command: Command) => {
      opts.output = legacyOutputs(command, opts.output);
      await run(opts, program.version() ?? '0.0.0');
    });
}

async function run(opts: Options, version: string): Promise<void> {
  if (opts.batchStatus || opts.batchCancel) {
    if (opts.batchStatus && opts.batchCancel) throw new UserError('--batch-status and --batch-cancel both given', 'give one of them');
    const { manageBatches } = await import('../batch/manage.js');
    for (const line of await manageBatches(opts, opts.batchCancel ? 'cancel' : 'status')) console.log(line);
    return;
  }
  const shard = opts.shard === undefined ? undefined : (await import('../shard.js')).parseShard(opts.shard);
  const [{ evalTrigger, parseSelectors, parseThreshold }, { parseCv }, { computeMetrics }, { readResults }, gate, { renderTerminalReport }, { writeOutputs, formatOf }, { createProgress }] =
    await Promise.all([
      import('../selectors/run.js'),
      import('../selectors/thresholds.js'),
      import('../metrics.js'),
      import('../results.js'),
      import('../gate.js'),
      import('../report/terminal.js'),
      import('../report/index.js'),
      import('../progress.js'),
    ]);
  const { incompleteText, incompleteFailure } = await import('../completeness.js');
  const selectors = opts.selectors === undefined ? undefined : parseSelectors(opts.selectors);
  // --threshold baseline: measure this run at the thresholds the baseline applied (resolved before any call).
  const fromBaseline = opts.threshold?.trim() === 'baseline';
  if (fromBaseline && !opts.baseline) {
    throw new UserError('--threshold baseline: no --baseline FILE to take the thresholds from', 'add --baseline FILE (a results file written by -o FILE.json), or give --threshold a number');
  }
  const threshold = opts.threshold === undefined || fromBaseline ? undefined : parseThreshold(opts.threshold);
  const cv = opts.cv === undefined ? undefined : parseCv(opts.cv);
  // Read the baseline first: a bad baseline file should fail before any call is paid for.
  const baseline = opts.baseline ? await readResults(opts.baseline) : undefined;
  const thresholdBaseline = fromBaseline && baseline ? { file: opts.baseline!, results: baseline } : undefined;
  const json = jsonSwitch(opts.json);
  const outputs = outputFiles(opts.output, json);
  // Check the output names before the run, so a typo does not throw away a paid run.
  for (const file of outputs) formatOf(file);

  const { wrapNotice } = await import('../colors.js');
  const progress = createProgress({ live: Boolean(process.stderr.isTTY && opts.progress), title: opts.dryRun ? 'eval-trigger --dry-run (nothing is called)' : 'eval-trigger', dryRun: opts.dryRun });
  let outcome: Awaited<ReturnType<typeof evalTrigger>>;
  try {
    outcome = await evalTrigger({ ...opts, selectors, threshold, thresholdBaseline, cv, shard }, { progress, notice: (line) => console.error(wrapNotice(line)), skillbenchVersion: version });
  } finally {
    progress.stop(); // also when loading fails: a live view must not stay mounted
  }
  const { results, clientSummary, dryRun } = outcome;
  if (baseline) {
    // A baseline measured in another host's prompt (or another listing) compares prompts, not only descriptions.
    const was = `${String(baseline.settings.host ?? 'generic')} ${String(baseline.settings.format ?? 'xml')}`;
    const now = `${String(results.settings.host)} ${String(results.settings.format)}`;
    if (was !== now) console.error(`skillbench: note: the baseline was measured with host/listing "${was}", this run with "${now}": flips may come from the prompt, not the descriptions`);
  }
  if (dryRun) {
    // Nothing was called: the model decisions are placeholders, so no tables, files or gates.
    console.log(dryRun);
    return;
  }
  const metrics = results.runs.map((r) => computeMetrics(r, results.requests));
  // A replay that missed says so before its tables: their model rows are errors, not decisions.
  if (opts.cacheOnly) {
    const { cacheOnlyNotice } = await import('../dryrun.js');
    const notice = cacheOnlyNotice(outcome, opts.cacheDir);
    if (notice) console.error(notice);
  }

  const reasons = gate.rateGateReasons(metrics, results.runs, { maxWrongLoad: opts.maxWrongLoad, maxNeedlessLoad: opts.maxNeedlessLoad });
  let verdict: GateVerdict | undefined;
  /** A baseline that cannot be compared (no selector or request in common): reported after the outputs are written. */
  let baselineError: UserError | undefined;
  if (baseline) {
    try {
      verdict = gate.compareToBaseline(results, baseline, {
        alpha: opts.gateAlpha,
        minRate: opts.gateMinEffect,
        minRequests: opts.gateMinRequests,
        maxSkillLoss: opts.gateSkillLoss,
        baselineFile: opts.baseline,
      });
    } catch (err) {
      if (!(err instanceof UserError)) throw err;
      baselineError = err;
    }
  }
  if (verdict || reasons.length || opts.maxWrongLoad !== undefined || opts.maxNeedlessLoad !== undefined) {
    const v: GateVerdict = verdict ?? { passed: true, reasons: [], flips: [] };
    v.reasons = [...reasons, ...v.reasons];
    // No gate passes on figures with holes in them: an error is not a pass.
    const incomplete = incompleteText(results.completeness);
    if (incomplete) v.reasons.unshift(`${incomplete}: no gate passes on an incomplete run`);
    v.passed = v.reasons.length === 0;
    results.gate = v;
  }

  // --json: the results file on stdout (for jq and scripts); the tables otherwise.
  if (json.stdout) process.stdout.write(JSON.stringify(results, null, 2) + '\n');
  else {
    const { layoutFor } = await import('../colors.js');
    process.stdout.write(renderTerminalReport(results, metrics, layoutFor()));
    const { renderHostReport } = await import('../hosts/notes.js');
    process.stdout.write(renderHostReport(results, computeMetrics, layoutFor().width));
  }
  if (clientSummary) console.error(clientSummary);
  if (outputs.length) {
    await writeOutputs(results, outputs, baseline && opts.baseline ? { baseline: { file: opts.baseline, results: baseline } } : {});
  }
  for (const file of outputs) console.error(`skillbench: wrote ${file}`);
  if (baselineError) throw baselineError;
  const { cacheMissFailure } = await import('../client.js');
  const missing = cacheMissFailure([{ cacheMisses: outcome.cacheMisses }]);
  if (missing) throw missing;
  if (opts.githubAnnotations) {
    const { printGateAnnotations } = await import('../annotations.js');
    await printGateAnnotations(results, typeof results.settings.requests === 'string' ? results.settings.requests : undefined, json.stdout ? process.stderr : process.stdout);
  }
  const incomplete = incompleteFailure(results.completeness);
  if (incomplete) throw incomplete;
  if (results.gate && !results.gate.passed) throw new GateFailure(results.gate.reasons.join('; '));
}
