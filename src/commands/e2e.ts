// `skillbench e2e`: one request through the agent loop, in progressive and/or load-all mode, with the full trace:
// each model call, each tool call with its arguments and result size, tokens per call and cumulated.
import { Command, Option } from 'commander';
import { addCacheOptions, addHostOptions, addModelOptions, addOutputOption, addJsonOption, addSkillsOption, addSandboxOptions, jsonSwitch, legacyOutputs, outputFiles, parseNonNegative, parsePositiveInt, THINKING_HELP, sandboxSettings, type HostCliOptions, type ProviderOptions, type SandboxCliOptions } from '../options.js';
import { UserError } from '../errors.js';
import type { CatalogueFormat } from '../types.js';

type ModeChoice = 'progressive' | 'load-all' | 'both';

interface Options extends ProviderOptions, SandboxCliOptions, HostCliOptions {
  scenario?: string;
  mode?: ModeChoice;
  skills?: string;
  format?: CatalogueFormat;
  maxTurns: number;
  output?: string[];
  json?: boolean | string;
}

interface Scenario {
  request: string;
  skill?: string;
  mode?: ModeChoice;
}

const MODES: ModeChoice[] = ['progressive', 'load-all', 'both'];

export function register(program: Command): void {
  const cmd = program
    .command('e2e')
    .description('run one request through the agent loop (progressive disclosure and/or load-all) and print the trace and its token cost')
    .argument('[request]', 'the user request (or use --scenario)')
    .option('--scenario <file>', 'JSON scenario {"request": ..., "skill"?: expected skill, "mode"?: progressive|load-all|both}')
    .addOption(new Option('--mode <mode>', 'progressive (three levels), load-all (everything in the system prompt), or both (default)').choices(MODES))
    .addOption(new Option('--format <format>', "the generic host's listing: lines (the default), xml (skills-ref form), hermes, markdown").choices(['lines', 'xml', 'hermes', 'markdown']))
    .option('--max-turns <n>', 'model calls per run before giving up', parsePositiveInt, 10);
  addSkillsOption(cmd);
  addHostOptions(cmd);
  addOutputOption(cmd, 'JSON only: every call, tool call and result of the runs', 'write the trace');
  addJsonOption(cmd, 'the trace (every call, tool call and result)');
  addSandboxOptions(cmd);
  addModelOptions(cmd);
  addCacheOptions(cmd);
  // One request, its calls one after another: -j would do nothing here.
  cmd
    .option('--max-cost <usd>', 'stop before spending more than this many dollars', parseNonNegative)
    .option('--thinking <level>', THINKING_HELP);
  cmd
    .addHelpText(
      'after',
      '\nScripts run in a throwaway copy of the skill folder under bwrap (no network, read-only system, private /tmp),\n' +
        'else not at all unless --unsafe-no-sandbox. The trace names the sandbox that ran each script.\n' +
        '\nExample:\n  $ skillbench e2e "Check the demo expense report in the expense-report-checker skill: what is reimbursable?"\n' +
        '  $ skillbench e2e --scenario scenario.json --mode progressive --provider anthropic -o trace.json',
    )
    .allowExcessArguments() // only for the old `-o a.json b.json`: see legacyOutputs
    .action(async (request: string | undefined, opts: Options, command: Command) => {
      opts.output = legacyOutputs(command, opts.output);
      await run(request, opts);
    });
}

async function run(requestArg: string | undefined, opts: Options): Promise<void> {
  // `e2e --json "the request"`: commander gave the request to --json's old optional file name; it is given back.
  const json = jsonSwitch(opts.json, { missing: requestArg === undefined && !opts.scenario });
  requestArg ??= json.positional;
  const outputs = outputFiles(opts.output, json);
  const bad = outputs.find((f) => !f.toLowerCase().endsWith('.json'));
  if (bad) throw new UserError(`-o ${bad}: e2e writes its trace as JSON only`, 'name the file FILE.json');
  const scenario = await readScenario(requestArg, opts.scenario);
  const modeChoice = opts.mode ?? scenario.mode ?? 'both';
  const modes = modeChoice === 'both' ? (['progressive', 'load-all'] as const) : ([modeChoice] as const);

  const [{ loadUsableCatalogue }, harness, { createChatClient }, { noSandboxWarning }] = await Promise.all([
    import('../catalogue.js'),
    import('../harness.js'),
    import('../client.js'),
    import('../sandbox.js'),
  ]);
  const { resolveHost } = await import('../hosts/profile.js');
  const host = await resolveHost(opts);
  const { catalogue, path: skillsPath } = await loadUsableCatalogue(opts.skills, (line) => console.error(line));
  const { hostNotice } = await import('../hosts/notes.js');
  const notice = hostNotice(host, catalogue.skills);
  if (notice) console.error(notice);
  if (scenario.skill && !catalogue.skills.some((s) => s.name === scenario.skill)) {
    throw new UserError(`${opts.scenario ?? 'scenario'}: field "skill": "${scenario.skill}" is not in the catalogue ${skillsPath}`, 'name a skill of the catalogue, or leave "skill" out');
  }
  // A dry run needs no key: with no provider at all it is estimated for the default one (and says so).
  const { dryRunProvider, describeDryRun } = await import('../dryrun.js');
  const dry = dryRunProvider(opts, Boolean((await import('../client.js')).availableChatProvider()));
  const client = await createChatClient(dry.opts);
  const warning = await noSandboxWarning(opts.unsafeNoSandbox);
  if (warning) console.error(warning);

  // With --json the trace goes to stdout as JSON: the readable trace is left out so that stdout parses.
  const print = json.stdout ? () => undefined : (line: string) => console.log(line);
  const runs = [];
  for (const mode of modes) {
    const r = await harness.runAgent(client, catalogue, scenario.request, {
      mode,
      host,
      maxTurns: opts.maxTurns,
      sandbox: sandboxSettings(opts),
    });
    runs.push(r);
    print(harness.formatTrace(r));
    if (scenario.skill && mode === 'progressive') {
      const first = r.activated[0] ?? null;
      print(first === scenario.skill ? `expected skill loaded: ${first}` : `expected skill ${scenario.skill}, loaded: ${first ?? 'none'}`);
    }
    print('');
  }
  const comparison = harness.formatComparison(runs);
  if (comparison) print(comparison);
  if (opts.dryRun) {
    // Nothing was called: the estimate, and no summary of calls, tokens and dollars that would read as a result.
    console.log(describeDryRun(client.dryRunReport(), ['(the first turn of each mode; each skill the model loads adds a turn)', ...(dry.note ? [dry.note] : [])]));
  } else {
    console.error(client.summary());
  }
  const { hostSummary } = await import('../hosts/notes.js');
  const { hostFrame } = await import('../hosts/request.js');
  const summary = hostSummary(host, hostFrame(host, catalogue.skills).listing);
  const trace = JSON.stringify({ schema: 'skillbench.e2e', version: 1, request: scenario.request, expectedSkill: scenario.skill ?? null, host: summary, runs }, null, 2) + '\n';
  if (json.stdout && !opts.dryRun) process.stdout.write(trace);
  if (outputs.length) {
    const { writeOutputFile } = await import('../fsutil.js');
    for (const file of outputs) {
      await writeOutputFile(file, trace);
      console.error(`skillbench: wrote ${file}`);
    }
  }
  // A --cache-only miss is the user's to fix (exit 2); a run a provider failure cut short is incomplete (exit 4).
  const failed = runs.filter((r) => r.stop === 'error' && r.errorKind !== 'dry-run');
  const missed = failed.find((r) => r.errorKind === 'cache-miss');
  if (missed) throw new UserError(`the ${missed.mode} run stopped: ${missed.error}`, 'run once without --cache-only (with a key) to fill the cache');
  if (failed.length) {
    const { IncompleteRun } = await import('../errors.js');
    const first = failed[0]!;
    throw new IncompleteRun(failed.length, runs.length, `the ${first.mode} run stopped: ${first.error}${first.errorKind === 'budget' ? ' (raise --max-cost)' : ''}`);
  }
}

async function readScenario(requestArg: string | undefined, file: string | undefined): Promise<Scenario> {
  if (requestArg !== undefined && file) throw new UserError('give either a request or --scenario, not both');
  if (!file) {
    if (requestArg === undefined || requestArg.trim() === '') {
      throw new UserError('no request given', 'pass the request as an argument (skillbench e2e "check my expense report") or --scenario FILE');
    }
    return { request: requestArg };
  }
  const { readJsonFile } = await import('../jsonfile.js');
  const data = await readJsonFile(file, { what: 'the scenario', fix: 'write {"request": "...", "skill": "...", "mode": "both"}' });
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new UserError(`${file}: the scenario must be a JSON object`, 'write {"request": "...", "skill"?: "...", "mode"?: "both"}');
  const s = data as Record<string, unknown>;
  if (typeof s.request !== 'string' || s.request.trim() === '') throw new UserError(`${file}: field "request" is missing or not a non-empty string`, 'give the user request as text');
  if (s.skill !== undefined && s.skill !== null && typeof s.skill !== 'string') throw new UserError(`${file}: field "skill" must be a skill name`, 'name the skill the request needs, or leave it out');
  if (s.mode !== undefined && !MODES.includes(s.mode as ModeChoice)) throw new UserError(`${file}: field "mode" must be one of ${MODES.join(', ')}`, 'fix or remove "mode"');
  return { request: s.request, skill: (s.skill as string | null | undefined) ?? undefined, mode: s.mode as ModeChoice | undefined };
}
