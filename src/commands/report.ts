// `skillbench report`: re-renders a saved results file in any format (terminal tables, .json .html .md .xml .csv)
// with no provider call, and compares it with a baseline results file side by side, with the same gates as
// eval-trigger.
import { Command } from 'commander';
import { addAnnotationsOption, addJsonOption, addOutputOption, jsonSwitch, legacyOutputs, outputFiles, parseNonNegative, parseRate } from '../options.js';
import { GateFailure, UserError } from '../errors.js';
import type { GateVerdict, ResultsFile } from '../types.js';

interface Options {
  merge?: string[];
  output?: string[];
  json?: boolean | string;
  baseline?: string;
  maxWrongLoad?: number;
  maxNeedlessLoad?: number;
  gateAlpha: number;
  gateMinEffect: number;
  gateMinRequests: number;
  githubAnnotations?: boolean;
}

export function register(program: Command): void {
  const cmd = program
    .command('report')
    .description('re-render a results file (terminal tables, or .json .html .md .xml .csv files) with no provider call; compare it with a baseline')
    .argument('[results]', 'a results file written by -o FILE.json')
    .option('--merge <files...>', 'join the results files of the shards of one run (eval-trigger --shard I/N) into one run; write it with -o merged.json');
  addOutputOption(cmd, 'format by extension: .json .html .md .xml (JUnit) .csv; without -o: tables on the terminal', 'write the report');
  addJsonOption(cmd, 'the results file (with the gate verdict of this comparison)');
  addAnnotationsOption(cmd, 'a failed gate and each request that got worse against the baseline');
  cmd
    .option('--baseline <file>', 'compare with this earlier results file side by side, and gate: fail (exit 1) on a significant regression (paired, exact McNemar)')
    .option('--max-wrong-load <rate>', 'gate: fail (exit 1) when a selector\'s wrong load is above this rate (0..1)', parseRate)
    .option('--max-needless-load <rate>', 'gate: fail (exit 1) when a selector\'s needless load is above this rate (0..1)', parseRate)
    .option('--gate-alpha <p>', 'baseline gate: significance level', parseRate, 0.05)
    .option('--gate-min-effect <rate>', 'baseline gate: minimum net worsening as a share of the paired requests', parseRate, 0.05)
    .option('--gate-min-requests <n>', 'baseline gate: minimum net number of requests that got worse', parseNonNegative, 2)
    .addHelpText(
      'after',
      '\nExample:\n  $ skillbench report results.json -o report.html -o summary.md -o junit.xml -o decisions.csv\n' +
        '  $ skillbench report results.json --baseline .skillbench/baseline.json -o summary.md\n' +
        '  $ skillbench report --merge shard-1.json shard-2.json shard-3.json -o results.json -o summary.md',
    )
    .allowExcessArguments() // only for the old `-o a.html b.md`: see legacyOutputs
    .action(async (file: string | undefined, opts: Options, command: Command) => {
      opts.output = legacyOutputs(command, opts.output);
      await run(file, opts);
    });
}

async function run(fileArg: string | undefined, opts: Options): Promise<void> {
  // `report --json results.json`: commander gave the file to --json's old optional value; it is given back.
  const json = jsonSwitch(opts.json, { missing: fileArg === undefined && !opts.merge?.length });
  const file = fileArg ?? json.positional;
  const [{ readResults }, { computeMetrics }, gate, { writeOutputs, formatOf }] = await Promise.all([
    import('../results.js'),
    import('../metrics.js'),
    import('../gate.js'),
    import('../report/index.js'),
  ]);
  const outputs = outputFiles(opts.output, json);
  // Check every output name before reading anything, so a typo is reported first and alone.
  for (const out of outputs) formatOf(out);
  const results = await resultsOf(file, opts.merge, readResults);
  const { incompleteText, incompleteFailure } = await import('../completeness.js');
  const baseline = opts.baseline ? await readResults(opts.baseline) : undefined;
  if (results.command === 'improve' && (baseline || opts.maxWrongLoad !== undefined || opts.maxNeedlessLoad !== undefined)) {
    throw new UserError(`${file}: the gates compare selectors; an improve results file compares descriptions`, 'drop --baseline and the --max-* gates (the file already says whether the kept description beats the original)');
  }
  const metrics = results.runs.map((r) => computeMetrics(r, results.requests));

  // The same gates as eval-trigger: rate gates, then the paired baseline comparison. A gate asked for here replaces
  // the verdict stored in the file; without one the stored verdict is shown as it was.
  const rateGateAsked = opts.maxWrongLoad !== undefined || opts.maxNeedlessLoad !== undefined;
  if (baseline || rateGateAsked) {
    const reasons = gate.rateGateReasons(metrics, results.runs, { maxWrongLoad: opts.maxWrongLoad, maxNeedlessLoad: opts.maxNeedlessLoad });
    const verdict: GateVerdict = baseline
      ? gate.compareToBaseline(results, baseline, {
          alpha: opts.gateAlpha,
          minRate: opts.gateMinEffect,
          minRequests: opts.gateMinRequests,
          baselineFile: opts.baseline,
        })
      : { passed: true, reasons: [], flips: [] };
    verdict.reasons = [...reasons, ...verdict.reasons];
    // As in eval-trigger: no gate passes on figures with holes in them (a merged run with an incomplete shard too).
    const incomplete = incompleteText(results.completeness);
    if (incomplete) verdict.reasons.unshift(`${incomplete}: no gate passes on an incomplete run`);
    verdict.passed = verdict.reasons.length === 0;
    results.gate = verdict;
  }

  if (json.stdout) process.stdout.write(JSON.stringify(results, null, 2) + '\n');
  if (outputs.length) {
    await writeOutputs(results, outputs, baseline && opts.baseline ? { baseline: { file: opts.baseline, results: baseline } } : {});
    for (const out of outputs) console.error(`skillbench: wrote ${out}`);
  } else if (!json.stdout) {
    const [{ isQuality }, { layoutFor }] = await Promise.all([import('../report/format.js'), import('../colors.js')]);
    if (results.command === 'improve' && results.improve) {
      const { renderImproveTerminal } = await import('../report/improve.js');
      process.stdout.write(renderImproveTerminal(results, layoutFor()));
    } else if (isQuality(results)) {
      const { renderQualityTerminal } = await import('../report/quality.js');
      process.stdout.write(renderQualityTerminal(results, layoutFor()));
    } else {
      const { renderTerminalReport } = await import('../report/terminal.js');
      process.stdout.write(renderTerminalReport(results, metrics, layoutFor()));
      const { renderHostReport } = await import('../hosts/notes.js');
      process.stdout.write(renderHostReport(results, computeMetrics, layoutFor().width));
    }
    if (baseline) process.stdout.write(await comparisonTable(results, baseline, opts.baseline!, layoutFor().width));
  }
  if (opts.githubAnnotations) {
    const { printGateAnnotations } = await import('../annotations.js');
    const requests = typeof results.settings.requests === 'string' ? results.settings.requests : undefined;
    await printGateAnnotations(results, requests, json.stdout ? process.stderr : process.stdout);
  }
  // Shards merged into one run: the run is as incomplete as its shards were (exit 4, after the outputs).
  const incompleteMerge = opts.merge?.length ? incompleteFailure(results.completeness) : null;
  if (incompleteMerge) throw incompleteMerge;
  if (results.gate && !results.gate.passed) throw new GateFailure(results.gate.reasons.join('; '));
}

/** Side by side on the terminal: wrong and needless load of each selector in the baseline and now. */
async function comparisonTable(results: ResultsFile, baseline: ResultsFile, baselineFile: string, width: number): Promise<string> {
  const { renderComparisonTable } = await import('../report/compare.js');
  return renderComparisonTable(results, baseline, baselineFile, width);
}

/** The results file given, or the shards given to --merge joined into one run (exactly one of the two). */
async function resultsOf(file: string | undefined, merge: string[] | undefined, read: (f: string) => Promise<ResultsFile>): Promise<ResultsFile> {
  if (merge?.length) {
    if (file !== undefined) {
      throw new UserError(`report: a results file (${file}) and --merge both given`, 'pass the results file alone, or every shard to --merge: report --merge a.json b.json -o merged.json');
    }
    const { mergeShards } = await import('../merge.js');
    return mergeShards(await Promise.all(merge.map(async (f) => ({ file: f, results: await read(f) }))));
  }
  if (file === undefined) throw new UserError('report: no results file given', 'pass a results file written by -o FILE.json, or the shards of one run to --merge');
  return read(file);
}
