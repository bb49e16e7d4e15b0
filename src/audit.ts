// The token audit: what each level of progressive disclosure costs, against loading everything up front.
// Offline by default (an o200k estimate); exact with a provider's count-tokens API through `auditCatalogueWith`.
import Table from 'cli-table3';
import { readResourceText } from './catalogue.js';
import { bareMinimumTokens, decisionTokens } from './hosts/minimum.js';
import { listingNotes, listingSummary } from './hosts/notes.js';
import { genericHost, type Host } from './hosts/profile.js';
import { renderListing } from './hosts/listing.js';
import { hostFrame, type HostFrame } from './hosts/request.js';
import { renderAlwaysBlock, renderLoadAll, renderSkillContent, visible } from './prompt.js';
import { countTokens, TOKENIZER_NAME } from './tokenizer.js';
import { allProfileToolDeclarations, skillToolDeclarations } from './tools.js';
import type { Catalogue, CatalogueFormat, TokenAudit, ToolDeclaration } from './types.js';

/** A host, or (the generic host with) one of the listing presets. */
export type AuditHost = Host | CatalogueFormat;

function asHost(h: AuditHost): Host {
  return typeof h === 'string' ? genericHost(h) : h;
}

/** The audit's label of a host's listing: its preset, or 'template' for a host's own form. */
function formatOf(host: Host): TokenAudit['format'] {
  return host.catalogue.listing.format ?? 'template';
}

/** The texts an audit measures, rendered exactly as the agent harness sends them. */
export interface AuditTexts {
  level1: string;
  /** Each skill's listing alone, and the listing of no skill: their difference is the skill's own entry. */
  entries: { name: string; text: string }[];
  emptyListing: string;
  /** A JSON roster with no bodies and no files: level 2, level 3 and load-all say nothing about it. */
  roster: boolean;
  level2: { name: string; text: string }[];
  level3: { name: string; path: string; text: string }[];
  loadAll: string;
  baseTools: ToolDeclaration[];
  allTools: ToolDeclaration[];
}

export function auditTexts(catalogue: Catalogue, host: AuditHost): AuditTexts & { frame: HostFrame } {
  const skills = visible(catalogue.skills);
  const frame = hostFrame(asHost(host), catalogue.skills);
  const baseTools = skillToolDeclarations(catalogue.skills, frame.tools);
  const always = skills.filter((s) => s.state === 'always');
  const spec = frame.host.catalogue.listing;
  return {
    frame,
    // Level 1 is the listing itself (with the always-loaded bodies); the host's words around it count in `decision`.
    level1: always.length ? `${frame.listing.text}\n\n${renderAlwaysBlock(always)}` : frame.listing.text,
    // An always-loaded skill's entry carries its body: both are sent on every request.
    entries: skills.map((s) => ({ name: s.name, text: s.state === 'always' ? `${renderListing([s], spec).text}\n\n${renderAlwaysBlock([s])}` : renderListing([s], spec).text })),
    emptyListing: renderListing([], spec).text,
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
export function auditCatalogue(catalogue: Catalogue, host: AuditHost): TokenAudit {
  const t = auditTexts(catalogue, host);
  const audit = assemble(t, formatOf(t.frame.host), TOKENIZER_NAME, false, {
    text: countTokens,
    tools: (tools) => countTokens(toolsText(tools)),
  });
  // One decision without a request: what the host sends on every first turn, against the bare minimum.
  const tokens = decisionTokens(t.frame.request('')).total;
  const bare = bareMinimumTokens(catalogue.skills, '');
  return { ...audit, decision: { tokens, bareMinimum: bare, ratio: bare === 0 ? 0 : round(tokens / bare, 2) } };
}

/** A counter backed by a provider (exact counts); `tools` measures a tool list's share of a request. */
export interface AsyncCounter {
  name: string;
  text(text: string): Promise<number>;
  tools(tools: ToolDeclaration[]): Promise<number>;
}

/** The same audit with a provider's counts (every text counted once, in parallel as the counter allows). */
export async function auditCatalogueWith(catalogue: Catalogue, host: AuditHost, counter: AsyncCounter): Promise<TokenAudit> {
  const t = auditTexts(catalogue, host);
  const texts = [t.level1, t.loadAll, t.emptyListing, ...t.entries.map((x) => x.text), ...t.level2.map((x) => x.text), ...t.level3.map((x) => x.text)];
  const counts = new Map<string, number>();
  await Promise.all([...new Set(texts)].map(async (x) => counts.set(x, await counter.text(x))));
  const [base, all] = await Promise.all([counter.tools(t.baseTools), counter.tools(t.allTools)]);
  const toolCounts = new Map<ToolDeclaration[], number>([
    [t.baseTools, base],
    [t.allTools, all],
  ]);
  return assemble(t, formatOf(t.frame.host), counter.name, true, { text: (x) => counts.get(x)!, tools: (x) => toolCounts.get(x)! });
}

function assemble(
  t: AuditTexts & { frame: HostFrame },
  format: TokenAudit['format'],
  tokenizer: string,
  exact: boolean,
  count: { text: (s: string) => number; tools: (t: ToolDeclaration[]) => number },
): TokenAudit {
  const level1 = count.text(t.level1);
  const loadAll = count.text(t.loadAll);
  const base = count.tools(t.baseTools);
  const allProfiles = count.tools(t.allTools);
  const host = t.frame.host;
  const empty = count.text(t.emptyListing);
  return {
    tokenizer,
    exact,
    format,
    ...(host.name !== 'generic' ? { host: host.name } : {}),
    listing: listingSummary(host, t.frame.listing),
    level1,
    // What each skill's entry adds to the listing: the line an author edits, in the tokens it costs every request.
    entries: t.entries.map((x) => ({ name: x.name, tokens: Math.max(0, count.text(x.text) - empty) })),
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
  const host = audit.host ? `host ${audit.host}, ` : '';
  const out: string[] = [`Token audit of ${opts.source}, ${host}catalogue format ${audit.format}: ${label}`];
  if (audit.listing) out.push(...listingNotes(audit.host ?? 'generic', audit.listing));
  const entries = new Map((audit.entries ?? []).map((l) => [l.name, l.tokens]));
  if (audit.roster) return [...out, ...rosterTables(audit, entries)].join('\n');

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
  if (audit.decision) summary.push(...decisionRows(audit.decision));
  out.push(summary.toString());

  const resources = new Map<string, { files: number; tokens: number }>();
  for (const r of audit.level3) {
    const t = resources.get(r.name) ?? { files: 0, tokens: 0 };
    resources.set(r.name, { files: t.files + 1, tokens: t.tokens + r.tokens });
  }
  const rows = audit.level2.map((s) => ({ name: s.name, entry: entries.get(s.name) ?? 0, body: s.tokens, ...(resources.get(s.name) ?? { files: 0, tokens: 0 }) }));
  const shown = heaviest(rows, (r) => r.body + r.tokens);
  const perSkill = new Table({ head: ['skill', 'level 1 (own entry)', 'level 2', 'resources', 'level 3'], colAligns: ['left', 'right', 'right', 'right', 'right'], style: TABLE_STYLE, chars: COMPACT });
  for (const r of shown) perSkill.push([r.name, n(r.entry), n(r.body), String(r.files), n(r.tokens)]);
  out.push(perSkill.toString());
  if (shown.length < rows.length) out.push(notListed(rows.length - shown.length, 'skills'));

  if (opts.perResource && audit.level3.length > 0) {
    const files = heaviest(audit.level3, (r) => r.tokens);
    const perRes = new Table({ head: ['skill', 'resource', 'level 3'], colAligns: ['left', 'left', 'right'], style: TABLE_STYLE, chars: COMPACT });
    for (const r of files) perRes.push([r.name, r.path, n(r.tokens)]);
    out.push(perRes.toString());
    if (files.length < audit.level3.length) out.push(notListed(audit.level3.length - files.length, 'resources'));
  }
  return out.join('\n');
}

/** Rows a terminal table lists at most: past this, the heaviest are listed (cli-table3's layout also takes the
 *  square of the row count: 50,000 rows took 85 s). */
export const MAX_TABLE_ROWS = 500;

/** All rows in their order when they fit, else the MAX_TABLE_ROWS heaviest, heaviest first. */
function heaviest<T>(rows: T[], weight: (r: T) => number): T[] {
  if (rows.length <= MAX_TABLE_ROWS) return rows;
  return [...rows].sort((a, b) => weight(b) - weight(a)).slice(0, MAX_TABLE_ROWS);
}

function notListed(count: number, what: string): string {
  return `... ${n(count)} more ${what} not listed (the ${MAX_TABLE_ROWS} heaviest are, heaviest first; --json lists them all)`;
}

/** One first-turn decision without its request, against the bare minimum. */
function decisionRows(d: NonNullable<TokenAudit['decision']>): string[][] {
  return [
    ['one decision (system, tools, catalogue; without the request)', n(d.tokens)],
    ['bare minimum (name: description lines, tool with enum)', n(d.bareMinimum)],
    ['ratio decision / bare minimum', `${d.ratio.toFixed(2)}x`],
  ];
}

/** A roster has only a listing and tool schemas: no body is ever loaded, so no level 2, load-all or ratio. */
function rosterTables(audit: TokenAudit, listing: Map<string, number>): string[] {
  const summary = new Table({ head: ['what', 'tokens'], colAligns: ['left', 'right'], style: TABLE_STYLE, chars: COMPACT });
  const entries = [...listing.values()];
  summary.push(
    [`level 1: catalogue listing (every request; ${entries.length} entries, each ${entries.length ? `${n(Math.min(...entries))}-${n(Math.max(...entries))}` : '0'})`, n(audit.level1)],
    ['tool schemas: skill tools', n(audit.tools.base)],
  );
  if (audit.decision) summary.push(...decisionRows(audit.decision));
  const perEntry = new Table({ head: ['entry', 'level 1 (own entry)'], colAligns: ['left', 'right'], style: TABLE_STYLE, chars: COMPACT });
  const rows = [...listing.entries()].sort((a, b) => b[1] - a[1]);
  const shown = rows.slice(0, MAX_TABLE_ROWS);
  for (const [name, tokens] of shown) perEntry.push([name, n(tokens)]);
  return [
    summary.toString(),
    'A JSON list with no bodies or files (a tool roster): nothing is disclosed after level 1, so level 2, load-all and their ratio do not apply.',
    perEntry.toString(),
    ...(shown.length < rows.length ? [notListed(rows.length - shown.length, 'entries')] : []),
  ];
}

function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}
