// The skillbench command line. Each command registers itself from src/commands/<name>.ts; those files import
// only light modules at the top and load SDKs, models and renderers inside their action, so --help stays instant.
import { Command, CommanderError } from 'commander';
import { createRequire } from 'node:module';
import path from 'node:path';
import { UserError, GateFailure, IncompleteRun, formatUserError } from './errors.js';
import { optionTerm } from './options.js';
import { register as registerValidate } from './commands/validate.js';
import { register as registerInit } from './commands/init.js';
import { register as registerTokens } from './commands/tokens.js';
import { register as registerEvalTrigger } from './commands/eval-trigger.js';
import { register as registerEvalQuality } from './commands/eval-quality.js';
import { register as registerE2e } from './commands/e2e.js';
import { register as registerSuggest } from './commands/suggest.js';
import { register as registerReport } from './commands/report.js';
import { register as registerPrompt } from './commands/prompt.js';
import { register as registerImprove } from './commands/improve.js';
import { register as registerCache } from './commands/cache.js';

export const VERSION: string = createRequire(import.meta.url)('../package.json').version;

export function buildProgram(): Command {
  const program = new Command('skillbench')
    .version(VERSION)
    .description('Author, evaluate and benchmark agent skill catalogues: does the agent load the right skill, and what does the catalogue cost?')
    .showHelpAfterError('(run with --help for usage)')
    .configureHelp({ optionTerm }) // inherited by every command registered below
    .option('-c, --config <file>', 'the config file (default: skillbench.config.json or .yaml in this folder or the nearest one above it, up to the project root)')
    .option('--no-config', 'read no config file')
    .exitOverride();
  for (const register of [
    registerEvalTrigger,
    registerTokens,
    registerValidate,
    registerInit,
    registerEvalQuality,
    registerE2e,
    registerSuggest,
    registerImprove,
    registerReport,
    registerPrompt,
    registerCache,
  ]) {
    register(program);
  }
  program.commands.forEach((c) => c.exitOverride());
  program.hook('preAction', async (_program, command) => applyConfigFile(program, command));
  return program;
}

/** The config file's settings, under the flags given on the command line. Loaded only when a command runs. */
async function applyConfigFile(program: Command, command: Command): Promise<void> {
  if (command.name() === 'init') return; // creates files; takes nothing a config holds
  const given = program.opts().config as string | false | undefined;
  if (given === false) return;
  const { findConfig, loadConfig, applyConfig } = await import('./config.js');
  const file = given ?? findConfig();
  if (!file) return;
  const config = await loadConfig(file, given ?? path.relative(process.cwd(), file));
  const { used, unused } = applyConfig(config, command, program.commands);
  const shown = path.relative(process.cwd(), config.file) || config.file;
  if (used.length) console.error(`skillbench: settings from ${shown}: ${used.join(', ')} (flags on the command line win)`);
  if (unused.length) console.error(`skillbench: note: ${shown}: ${unused.join(', ')}: no command of this skillbench version reads ${unused.length === 1 ? 'it' : 'them'}; ignored`);
}

/** Runs the CLI and returns the exit code: 0 ok, 1 a gate or validation failed, 2 bad input, 3 internal error,
 * 4 incomplete (more calls failed than --max-error-rate allows; outputs were written). */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    return exitCodeFor(err);
  }
}

function exitCodeFor(err: unknown): number {
  if (err instanceof CommanderError) {
    // --help and --version end through here with exit code 0; usage mistakes are bad input.
    return err.exitCode === 0 ? 0 : 2;
  }
  if (err instanceof UserError) {
    console.error(formatUserError(err));
    return 2;
  }
  if (err instanceof IncompleteRun) {
    console.error(`skillbench: ${err.message}`);
    return 4;
  }
  if (err instanceof GateFailure) {
    console.error(`skillbench: gate failed: ${err.message}`);
    return 1;
  }
  console.error('skillbench: internal error (please report it with the command you ran):');
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  return 3;
}
