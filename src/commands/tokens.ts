// `skillbench tokens`: the token audit of a catalogue (progressive disclosure against loading everything).
import { Command, Option } from 'commander';
import { addCacheOptions, addHostOptions, addModelOptions, addSkillsOption, parsePositiveInt, type HostCliOptions, type ProviderOptions } from '../options.js';
import { ProviderError, UserError } from '../errors.js';
import type { CatalogueFormat, ToolDeclaration } from '../types.js';

interface TokensOptions extends ProviderOptions, HostCliOptions {
  skills?: string;
  format?: CatalogueFormat;
  json?: boolean;
  perResource?: boolean;
}

export function register(program: Command): void {
  const cmd = program
    .command('tokens')
    .description('token audit of a catalogue: level 1 listing (and each skill\'s own line), level 2 bodies, level 3 resources, load-all, saving, tool schemas');
  addSkillsOption(cmd)
    .addOption(new Option('--format <format>', "the generic host's listing: lines (the default), xml (skills-ref form), hermes, markdown").choices(['lines', 'xml', 'hermes', 'markdown']))
    .option('--json', 'print the audit as JSON on stdout')
    .option('--per-resource', 'list level 3 per resource (default: one line per skill)');
  addHostOptions(cmd);
  // Counting is free and asks nothing of a model: no --thinking, --max-cost, --dry-run or embeddings here.
  addModelOptions(cmd, { providers: ['gemini', 'anthropic'], what: 'count exactly with this provider\'s count-tokens API (default: the offline estimate)' });
  addCacheOptions(cmd, { dryRun: false });
  cmd
    .option('-j, --concurrency <n>', 'parallel count-tokens calls (with --provider)', parsePositiveInt)
    .addHelpText(
      'after',
      '\nOffline counts are an estimate with the o200k tokenizer (tiktoken); --provider gemini|anthropic asks the\n' +
        "provider's count-tokens API for exact figures (needs its API key). A skill's own entry is its listing line alone\n" +
        'less the empty listing: what shortening its description saves on every request. With --host, level 1 is that\n' +
        "host's listing (under its budget: the skills it drops or shortens are named) and its tools; \"one decision\" is\n" +
        'the whole first turn without the request, against the bare minimum.\n\nExample:\n  $ skillbench tokens --skills skills --format xml\n  $ skillbench tokens --host claude-code --listing-budget 4000\n  $ skillbench tokens --json',
    )
    .action(async (opts: TokensOptions) => {
      const { resolveHost } = await import('../hosts/profile.js');
      const host = await resolveHost(opts);
      const { loadUsableCatalogue, displayPath } = await import('../catalogue.js');
      const { catalogue } = await loadUsableCatalogue(opts.skills, (line) => console.error(line));
      const { auditCatalogue, auditCatalogueWith, auditJson, renderAuditTables } = await import('../audit.js');
      const audit = opts.provider ? await auditCatalogueWith(catalogue, host, await providerCounter(opts)) : auditCatalogue(catalogue, host);
      if (opts.json) {
        console.log(JSON.stringify({ source: displayPath(catalogue.source), skills: catalogue.skills.length, ...auditJson(audit) }, null, 2));
        return;
      }
      console.log(renderAuditTables(audit, { source: displayPath(catalogue.source), perResource: Boolean(opts.perResource) }));
      for (const line of await promptCacheLines(catalogue, host, opts)) console.log(line);
    });
}

/** Exact counts through the provider core (src/client.ts, cached like every call): a text is counted as one user
 *  message, less the message overhead measured on a one-token message ("."); tools as the difference they make to
 *  that minimal request. */
async function providerCounter(opts: TokensOptions) {
  if (opts.provider !== 'gemini' && opts.provider !== 'anthropic') {
    throw new UserError(`--provider ${opts.provider} has no count-tokens API`, 'use --provider gemini or --provider anthropic, or leave --provider out for the offline estimate');
  }
  const { createChatClient } = await import('../client.js');
  const client = await createChatClient(opts);
  const count = async (content: string, tools: ToolDeclaration[] = []): Promise<number> => {
    let n: number | null;
    try {
      n = await client.countTokens({ system: [], messages: [{ role: 'user', content }], tools });
    } catch (err) {
      // A refused key, an unreachable --base-url: the user's setup, not a bug (the message says which, after retries).
      if (err instanceof ProviderError) throw new UserError(`count-tokens failed: ${err.message}`, 'check the API key, --base-url and the network, or leave --provider out for the offline estimate');
      throw err;
    }
    if (n === null) throw noCount(opts, `${client.provider} (${client.model})`);
    return n;
  };
  const overhead = (await count('.')) - 1;
  return {
    name: `${client.provider} count-tokens API (${client.model})`,
    text: async (text: string) => (text === '' ? 0 : Math.max(0, (await count(text)) - overhead)),
    tools: async (tools: ToolDeclaration[]) => (tools.length === 0 ? 0 : (await count('.', tools)) - (overhead + 1)),
  };
}

/** Whether the level-1 prefix can be cached: on the model asked for, else on each provider's default model. */
async function promptCacheLines(catalogue: import('../types.js').Catalogue, host: import('../hosts/profile.js').Host, opts: TokensOptions): Promise<string[]> {
  const [{ hostFrame }, { estimatePrefixTokens }, { findModel, defaultModel }, { promptCacheNote }] = await Promise.all([
    import('../hosts/request.js'),
    import('../client.js'),
    import('../providers/models.js'),
    import('../providers/params.js'),
  ]);
  const { selectableSkills } = await import('../selectors/index.js');
  // The host's first turn without a request: its stable prefix (for hosts that list skills in the user's turn, the
  // listing is not part of the cacheable system prefix).
  const prefix = await estimatePrefixTokens(hostFrame(host, selectableSkills(catalogue.skills)).request(''));
  const provider = opts.provider as import('../types.js').ProviderId | undefined;
  const targets = provider
    ? [{ provider, model: opts.model ?? defaultModel(provider)?.id ?? '' }]
    : (['gemini', 'anthropic', 'openai'] as const).map((p) => ({ provider: p, model: defaultModel(p)?.id ?? '' }));
  return targets.map((t) => promptCacheNote(t.provider, t.model, findModel(t.provider, t.model), prefix));
}

/** Why a count is missing: --cache-only and --dry-run never call the API; else the provider gave none. */
function noCount(opts: TokensOptions, who: string): UserError {
  const offline = 'or leave --provider out for the offline estimate';
  if (opts.cacheOnly) return new UserError(`${who}: a token count is not in the cache (--cache-only)`, `run once without --cache-only (with the API key set) to fill the cache, ${offline}`);
  return new UserError(`${who} did not return a token count`, 'leave --provider out for the offline estimate');
}
