// `skillbench cache`: what the cache folder holds and its size; `skillbench cache prune`: make it smaller.
import { Command } from 'commander';
import { parseNonNegative } from '../options.js';

interface CacheCliOptions {
  cacheDir: string;
  json?: boolean;
}

interface PruneCliOptions {
  olderThan?: number;
}

const CACHE_DIR_HELP = 'cache folder (the --cache-dir of the other commands)';

export function register(program: Command): void {
  const cache = program
    .command('cache')
    .description('show what the response and embedding cache holds and its size (prune it with `skillbench cache prune`)')
    .option('--cache-dir <dir>', CACHE_DIR_HELP, '.skillbench/cache')
    .option('--json', 'print the figures as JSON')
    .addHelpText('after', '\nExample:\n  $ skillbench cache\n  $ skillbench cache prune --older-than 30')
    .action(async (opts: CacheCliOptions) => {
      const { cacheUsage } = await import('../cache-usage.js');
      const usage = cacheUsage(opts.cacheDir);
      if (opts.json) console.log(JSON.stringify(usage, null, 2));
      else console.log(await renderUsage(usage, opts.cacheDir));
    });

  cache
    .command('prune')
    .description('compact the embedding vectors into one file per model, remove vector files of earlier versions, and, with --older-than, drop entries written before then')
    .option('--older-than <days>', 'also drop responses and vectors written more than this many days ago', parseNonNegative)
    .addHelpText('after', '\nThe folder is the --cache-dir given to `skillbench cache` (default .skillbench/cache). Do not prune while a run is\nwriting to the same cache folder.\n\nExample:\n  $ skillbench cache prune\n  $ skillbench cache --cache-dir ci-cache prune --older-than 30')
    .action(async (opts: PruneCliOptions, cmd: Command) => {
      const { pruneCache } = await import('../cache-usage.js');
      const { cacheDir } = cmd.parent!.opts<CacheCliOptions>();
      const r = await pruneCache(cacheDir, { olderThanDays: opts.olderThan });
      const { bytes } = await import('../cache-usage-format.js');
      console.log(
        `${cacheDir}: ${bytes(r.before.bytes)} -> ${bytes(r.after.bytes)}; ` +
          `${r.responsesRemoved} responses removed, ${r.vectorsDropped} vector records dropped (superseded, torn or old), ${r.legacyRemoved} legacy vector files removed`,
      );
      console.log(await renderUsage(r.after, cacheDir));
    });
}

async function renderUsage(usage: import('../cache-usage.js').CacheUsage, shown: string): Promise<string> {
  const { renderCacheUsage } = await import('../cache-usage-format.js');
  return renderCacheUsage(usage, shown);
}
