// The token audit: what each level of progressive disclosure costs, against loading everything up front.
// Offline by default (an o200k estimate); exact with a provider's count-tokens API through `auditCatalogueWith`.
import Table from 'cli-table3';
import { readResourceText } from './catalogue.js';
import { renderCatalogue, renderLoadAll, renderSkillContent, visible } from './prompt.js';
import { countTokens, TOKENIZER_NAME } from './tokenizer.js';
import { allProfileToolDeclarations, skillToolDeclarations } from './tools.js';
import type { Catalogue, CatalogueFormat, TokenAudit, ToolDeclaration } from './types.js';

/** The texts an audit measures, rendered exactly as the agent harness sends them. */
export interface AuditTexts {
  level1: string;
  /** Each skill's listing alone, and the listing of no skill: their difference is the skill's own entry. */
  listing: { name: string; text: string }[];
  emptyListing: string;
  /** A JSON roster with no bodies and no files: level 2, level 3 and load-all say nothing about it. */
  roster: boolean;
  level2: { name: string; text: string }[];
  level3: { name: string; path: string; text: string }[];
  loadAll: string;
  baseTools: ToolDeclaration[];
  allTools: ToolDeclaration[];
}

export function auditTexts(catalogue: Catalogue, format: CatalogueFormat): AuditTexts {
  const skills = visible(catalogue.skills);
  const baseTools = skillToolDeclarations(catalogue.skills);
  return {
    level1: renderCatalogue(catalogue.skills, format),
    listing: skills.map((s) => ({ name: s.name, text: renderCatalogue([s], format) })),
    emptyListing: renderCatalogue([], format),
    roster: isRoster(catalogue),
    level2: skills.map((s) => ({ name: s.name, text: renderSkillContent(s) })),
    level3: skills.flatMap((s) => s.resources.map((path) => ({ name: s.name, path, text: readResourceText(s, path) }))),
    loadAll: renderLoadAll(catalogue.skills, readResourceText),
    baseTools,
    allTools: [...baseTools, ...allProfileToolDeclarations(catalogue)],
  };
}

/** A tool roster (MetaTool's tools.json): a JSON list whose entries have no body, so nothing is disclosed later. */
export function isRoster(catalogue: Catalogue): boolean {
  return catalogue.kind === 'json' && catalogue.skills.every((s) => s.body.trim() === '' && s.resources.length === 0);
}

/** Tool schemas as counted offline: the JSON the declarations serialise to. */
export function toolsText(tools: ToolDeclaration[]): string {
  return tools.length === 0 ? '' : JSON.stringify(tools);
}

/** Offline audit with the o200k tokenizer (an estimate for non-OpenAI models). */
export function auditCatalogue(catalogue: Catalogue, format: CatalogueFormat): TokenAudit {
  const t = auditTexts(catalogue, format);
  return assemble(t, format, TOKENIZER_NAME, false, {
    text: countTokens,
    tools: (tools) => countTokens(toolsText(tools)),
  });
}

/** A counter backed by a provider (exact counts); `tools` measures a tool list's share of a request. */
export interface AsyncCounter {
  name: string;
  text(text: string): Promise<number>;
  tools(tools: ToolDeclaration[]): Promise<number>;
}

/** The same audit with a provider's counts (every text counted once, in parallel as the counter allows). */
export async function auditCatalogueWith(catalogue: Catalogue, format: CatalogueFormat, counter: AsyncCounter): Promise<TokenAudit> {
  const t = auditTexts(catalogue, format);
  const texts = [t.level1, t.loadAll, t.emptyListing, ...t.listing.map((x) => x.text), ...t.level2.map((x) => x.text), ...t.level3.map((x) => x.text)];
  const counts = new Map<string, number>();
  await Promise.all([...new Set(texts)].map(async (x) => counts.set(x, await counter.text(x))));
  const [base, all] = await Promise.all([counter.tools(t.baseTools), counter.tools(t.allTools)]);
  const toolCounts = new Map<ToolDeclaration[], number>([
    [t.baseTools, base],
    [t.allTools, all],
  ]);
  return assemble(t, format, counter.name, true, { text: (x) => counts.get(x)!, tools: (x) => toolCounts.get(x)! });
}

function assemble(
  t: AuditTexts,
  format: CatalogueFormat,
  tokenizer: string,
  exact: boolean,
  count: { text: (s: string) => number; tools: (t: ToolDeclaration[]) => number },
): TokenAudit {
  const level1 = count.text(t.level1);
  const loadAll = count.text(t.loadAll);
  const base = count.tools(t.baseTools);
  const allProfiles = count.tools(t.allTools);
  const empty = count.text(t.emptyListing);
  return {
    tokenizer,
    exact,
    format,
    level1,
    // What each skill's entry adds to the listing: the line an author edits, in the tokens it costs every request.
    listing: t.listing.map((x) => ({ name: x.name, tokens: Math.max(0, count.text(x.text) - empty) })),
    ...(t.roster ? { roster: true } : {}),
    level2: t.level2.map((x) => ({ name: x.name, tokens: count.text(x.text) })),
    level3: t.level3.map((x) => ({ name: x.name, path: x.path, tokens: count.text(x.text) })),
    loadAll,
    saving: loadAll - level1,
    ratio: level1 === 0 ? 0 : round(loadAll / level1, 2),
    tools: { base, allProfiles, reductionPercent: allProfiles === 0 ? 0 : round(((allProfiles - base) / allProfiles) * 100, 1) },
  };
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

// ---------------------------------------------------------------- terminal tables

const n = (x: number) => x.toLocaleString('en-US');
const TABLE_STYLE = { head: [], border: [] };
// No rule between rows: the tables stay short enough to read at a glance.
const COMPACT = { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' };

/** The audit as JSON: for a roster, without the level 2, level 3, load-all, saving and ratio it has no use for. */
export function auditJson(audit: TokenAudit): Record<string, unknown> {
  if (!audit.roster) return { ...audit };
  const { level2: _l2, level3: _l3, loadAll: _all, saving: _saving, ratio: _ratio, ...rest } = audit;
  return rest;
}

/** The audit as terminal tables: a summary, then one line per skill (and per resource with perResource). */
export function renderAuditTables(audit: TokenAudit, opts: { source: string; perResource: boolean }): string {
  const label = audit.exact ? `exact (${audit.tokenizer})` : `estimate (${audit.tokenizer})`;
  const out: string[] = [`Token audit of ${opts.source}, catalogue format ${audit.format}: ${label}`];
  const listing = new Map((audit.listing ?? []).map((l) => [l.name, l.tokens]));
  if (audit.roster) return [...out, ...rosterTables(audit, listing)].join('\n');

  const summary = new Table({ head: ['what', 'tokens'], colAligns: ['left', 'right'], style: TABLE_STYLE, chars: COMPACT });
  const bodies = audit.level2.map((s) => s.tokens);
  summary.push(
    ['level 1: catalogue listing (every request)', n(audit.level1)],
    [`level 2: skill bodies, one per activation (each ${bodies.length ? `${n(Math.min(...bodies))}-${n(Math.max(...bodies))}` : '0'}; all ${bodies.length})`, n(sum(bodies))],
    [`level 3: resources, read on demand (${audit.level3.length} files)`, n(sum(audit.level3.map((r) => r.tokens)))],
    ['load-all: every body and resource up front', n(audit.loadAll)],
    ['saving on a request that needs no skill (load-all - level 1)', n(audit.saving)],
    ['ratio load-all / level 1', `${audit.ratio.toFixed(2)}x`],
    ['tool schemas: skill tools only', n(audit.tools.base)],
    ['tool schemas: every tool profile expanded', n(audit.tools.allProfiles)],
    ['tool schema reduction', `${audit.tools.reductionPercent.toFixed(1)}%`],
  );
  out.push(summary.toString());

  const perSkill = new Table({ head: ['skill', 'level 1 (own entry)', 'level 2', 'resources', 'level 3'], colAligns: ['left', 'right', 'right', 'right', 'right'], style: TABLE_STYLE, chars: COMPACT });
  for (const s of audit.level2) {
    const res = audit.level3.filter((r) => r.name === s.name);
    perSkill.push([s.name, n(listing.get(s.name) ?? 0), n(s.tokens), String(res.length), n(sum(res.map((r) => r.tokens)))]);
  }
  out.push(perSkill.toString());

  if (opts.perResource && audit.level3.length > 0) {
    const perRes = new Table({ head: ['skill', 'resource', 'level 3'], colAligns: ['left', 'left', 'right'], style: TABLE_STYLE, chars: COMPACT });
    for (const r of audit.level3) perRes.push([r.name, r.path, n(r.tokens)]);
    out.push(perRes.toString());
  }
  return out.join('\n');
}

/** A roster has only a listing and tool schemas: no body is ever loaded, so no level 2, load-all or ratio. */
function rosterTables(audit: TokenAudit, listing: Map<string, number>): string[] {
  const summary = new Table({ head: ['what', 'tokens'], colAligns: ['left', 'right'], style: TABLE_STYLE, chars: COMPACT });
  const entries = [...listing.values()];
  summary.push(
    [`level 1: catalogue listing (every request; ${entries.length} entries, each ${entries.length ? `${n(Math.min(...entries))}-${n(Math.max(...entries))}` : '0'})`, n(audit.level1)],
    ['tool schemas: skill tools', n(audit.tools.base)],
  );
  const perEntry = new Table({ head: ['entry', 'level 1 (own entry)'], colAligns: ['left', 'right'], style: TABLE_STYLE, chars: COMPACT });
  for (const [name, tokens] of [...listing.entries()].sort((a, b) => b[1] - a[1])) perEntry.push([name, n(tokens)]);
  return [
    summary.toString(),
    'A JSON list with no bodies or files (a tool roster): nothing is disclosed after level 1, so level 2, load-all and their ratio do not apply.',
    perEntry.toString(),
  ];
}

function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}
