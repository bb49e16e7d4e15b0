// What every command says about a host's listing: which skills it dropped, listed by name only or shortened to fit
// its budget, which its own per-description cut shortened; the requests whose gold skill the model could not see in
// full (eval-trigger reports them apart); and validate's warning when a catalogue is over a host's budget.
import { skillFieldLine } from '../catalogue.js';
import { ruleId } from '../rules.js';
import { wrap } from '../text-width.js';
import type { EvalRequest, HostSummary, ListingSummary, Problem, ResultsFile, SelectorMetrics, SelectorRun, Skill } from '../types.js';
import { withStatus, type Listing } from './listing.js';
import type { Host } from './profile.js';
import { hostFrame } from './request.js';

export function listingSummary(host: Host, listing: Listing): ListingSummary {
  const budget = listing.budget;
  return {
    chars: listing.chars,
    fullChars: listing.fullChars,
    budget: budget
      ? { chars: budget.chars, from: host.budgetFrom === 'option' ? '--listing-budget' : 'profile', step: budget.step, over: budget.over, ...(budget.shortenedTo !== undefined ? { shortenedTo: budget.shortenedTo } : {}) }
      : null,
    dropped: withStatus(listing, 'dropped'),
    namesOnly: withStatus(listing, 'name-only'),
    shortened: withStatus(listing, 'shortened'),
    cut: withStatus(listing, 'cut'),
    ...(host.catalogue.listing.cut ? { cutChars: host.catalogue.listing.cut.chars } : {}),
  };
}

/** How a load is read, in a few words (the results file and the prompt command show it). */
export function loadingLabel(host: Host): string {
  const l = host.loading;
  if (l.kind === 'file-read') return `${l.tool.name}(${l.argument}) reading a listed SKILL.md`;
  return `${l.tool.name}(${l.tool.argument}: ${l.tool.enum ? 'enum of the listed names' : 'free string'})`;
}

export function hostSummary(host: Host, listing: Listing): HostSummary {
  return {
    name: host.name,
    title: host.title,
    origin: host.origin,
    ...(host.systemFrom ? { systemFrom: host.systemFrom } : {}),
    placement: host.catalogue.placement,
    loading: loadingLabel(host),
    listing: listingSummary(host, listing),
  };
}

const n = (x: number) => x.toLocaleString('en-US');
const plural = (k: number, word: string) => `${n(k)} ${word}${k === 1 ? '' : 's'}`;

/** Names, the first `max` of them and how many more. */
export function nameList(names: string[], max = 12): string {
  return names.length <= max ? names.join(', ') : `${names.slice(0, max).join(', ')} and ${n(names.length - max)} more`;
}

/** Lines saying what the listing did to the catalogue (empty when every skill is listed in full). */
export function listingNotes(hostName: string, s: ListingSummary): string[] {
  const out: string[] = [];
  const b = s.budget;
  if (b && b.step !== 'fits') {
    const from = b.from === '--listing-budget' ? ' (--listing-budget)' : '';
    out.push(`${hostName}: the listing (${n(s.fullChars)} characters) is over the ${n(b.chars)}-character budget${from}; ${overflowSentence(s)}`);
  }
  if (s.dropped.length) out.push(`  dropped (the model cannot see them): ${nameList(s.dropped)}`);
  if (s.namesOnly.length) out.push(`  listed by name only (no description): ${nameList(s.namesOnly)}`);
  if (s.shortened.length) out.push(`  description shortened to ${n(b?.shortenedTo ?? 0)} characters: ${nameList(s.shortened)}`);
  if (b?.over) out.push(`  still over the budget: the listing sent is ${n(s.chars)} characters`);
  if (s.cut.length) out.push(`${hostName}: cuts each description at ${n(s.cutChars ?? 0)} characters: ${plural(s.cut.length, 'description')} cut (${nameList(s.cut, 6)})`);
  return out;
}

function overflowSentence(s: ListingSummary): string {
  const parts: string[] = [];
  if (s.shortened.length) parts.push(`${plural(s.shortened.length, 'description')} shortened to ${n(s.budget?.shortenedTo ?? 0)} characters`);
  if (s.namesOnly.length) parts.push(`${plural(s.namesOnly.length, 'skill')} listed by name only`);
  if (s.dropped.length) parts.push(`${plural(s.dropped.length, 'skill')} dropped`);
  return parts.length ? `${parts.join(', ')}.` : 'nothing could be removed.';
}

export interface Visibility {
  /** Requests whose gold skill was dropped from the listing. */
  invisible: EvalRequest[];
  /** Requests whose gold skill was listed by name only. */
  nameOnly: EvalRequest[];
  /** Requests whose gold skill's description was shortened to fit the budget. */
  shortened: EvalRequest[];
}

export function visibility(requests: EvalRequest[], s: ListingSummary): Visibility {
  const of = (names: string[]) => {
    const set = new Set(names);
    return requests.filter((r) => r.gold !== null && set.has(r.gold));
  };
  return { invisible: of(s.dropped), nameOnly: of(s.namesOnly), shortened: of(s.shortened) };
}

/** eval-trigger's lines on requests whose gold skill the model could not see in full (empty when there are none). */
export function visibilityNotes(requests: EvalRequest[], s: ListingSummary): string[] {
  const v = visibility(requests, s);
  const ids = (rs: EvalRequest[]) => nameList(rs.map((r) => r.id), 10);
  const out: string[] = [];
  if (v.invisible.length) out.push(`invisible to the model: ${plural(v.invisible.length, 'request')} whose gold skill was dropped from the listing (${ids(v.invisible)}); their misses are the listing budget's, not the description's`);
  if (v.nameOnly.length) out.push(`gold skill listed by name only: ${plural(v.nameOnly.length, 'request')} (${ids(v.nameOnly)})`);
  if (v.shortened.length) out.push(`gold skill's description shortened: ${plural(v.shortened.length, 'request')} (${ids(v.shortened)})`);
  return out;
}

/** The host's listing notes for a catalogue, for a command to print before any call ('' when there are none). */
export function hostNotice(host: Host, skills: Skill[]): string {
  return hostNotes(hostSummary(host, hostFrame(host, skills).listing));
}

/** The whole block a command prints about the host (nothing for the generic host with every skill listed). */
export function hostNotes(summary: HostSummary, requests?: EvalRequest[]): string {
  const lines = listingNotes(summary.name, summary.listing);
  if (requests) lines.push(...visibilityNotes(requests, summary.listing));
  return lines.join('\n');
}

/**
 * validate --host: a catalogue over the host's budget is a warning naming what the host will do and the descriptions
 * that cost the most; each skill that loses its description or its place gets its own warning on its SKILL.md.
 */
export function budgetProblems(host: Host, listing: Listing, skills: Skill[], source: string): Problem[] {
  const b = listing.budget;
  if (!b || b.step === 'fits') return [];
  const s = listingSummary(host, listing);
  const byName = new Map(skills.map((x) => [x.name, x]));
  const costliest = [...listing.entries].sort((x, y) => y.fullChars - x.fullChars || x.name.localeCompare(y.name)).slice(0, 5);
  const over = listing.fullChars - b.chars;
  const problems: Problem[] = [
    {
      file: source,
      line: 1,
      severity: 'warning',
      message:
        `the ${host.name} listing is ${n(listing.fullChars)} characters, ${n(over)} over its ${n(b.chars)}-character budget${host.budgetFrom === 'option' ? ' (--listing-budget)' : ''}: ` +
        `${overflowSentence(s)} The costliest descriptions: ${costliest.map((e) => `${e.name} (${n(e.fullChars)})`).join(', ')}`,
      fix: `shorten the costliest descriptions by ${n(over)} characters in all${host.name.startsWith('claude-code') ? ', or raise the budget in Claude Code\'s settings and measure with --listing-budget' : ', or measure another budget with --listing-budget'}`,
      rule: ruleId('listing-over-host-budget'),
    },
  ];
  const lost: [string[], string][] = [
    [s.dropped, `is left out of the ${host.name} listing (over its budget): the model cannot see it`],
    [s.namesOnly, `is listed by name only by ${host.name} (over its budget): the model does not see its description`],
  ];
  for (const [names, what] of lost) {
    for (const name of names) {
      const skill = byName.get(name);
      problems.push({ file: skill?.file ?? source, line: skill ? skillFieldLine(skill, 'description') : 1, severity: 'warning', message: `skill "${name}" ${what}`, fix: 'shorten the other descriptions, or this one, until the listing fits', rule: ruleId('listing-over-host-budget') });
    }
  }
  return problems;
}

/**
 * The host section of a terminal report: which host's prompt was measured, what its listing did to the catalogue,
 * the requests whose gold skill the model could not see in full (apart), and each model-based selector's wrong load
 * on the requests whose gold skill it could see. Empty for the generic host when every skill was listed in full.
 */
export function renderHostReport(results: ResultsFile, metricsOf: (run: SelectorRun, requests: EvalRequest[]) => SelectorMetrics, width = 120): string {
  const report = hostReport(results, metricsOf);
  if (!report) return '';
  const out = [report.header, ...report.lines.map((l) => `  ${l}`)];
  return `${out.flatMap((line) => fit(line, width)).join('\n')}\n`;
}

/**
 * What a results file says about its host, for every report format: a header (the host, where its catalogue goes,
 * what counts as a load) and lines (what its listing dropped, cut or shortened, the requests that could not see
 * their skill, and the model runs' wrong load on the requests that could). Null for the generic host with nothing
 * to say.
 */
export function hostReport(results: ResultsFile, metricsOf: (run: SelectorRun, requests: EvalRequest[]) => SelectorMetrics): { header: string; lines: string[] } | null {
  const h = results.host;
  if (!h) return null;
  const notes = [...listingNotes(h.name, h.listing), ...visibilityNotes(results.requests, h.listing)];
  if (h.name === 'generic' && notes.length === 0) return null;
  const where = { system: 'the system prompt', 'tool-description': "the loading tool's description", 'user-message': "the user's turn" }[h.placement];
  const header = `host ${h.name} (${h.title}${h.origin === 'built-in' ? '' : `, ${h.origin}`}): catalogue in ${where}, a load is ${h.loading}${h.systemFrom ? `, system prompt from ${h.systemFrom}` : ''}`;
  const lines = [...notes];
  const v = visibility(results.requests, h.listing);
  const hidden = new Set([...v.invisible, ...v.nameOnly, ...v.shortened].map((r) => r.id));
  if (hidden.size > 0) {
    const seen = results.requests.filter((r) => !hidden.has(r.id));
    // The runs that saw the whole listing (hybrid sees its own shortlist, listed apart per request).
    for (const run of results.runs.filter((r) => r.kind === 'decision' && r.provider !== undefined && r.selector !== 'hybrid')) {
      const m = metricsOf({ ...run, decisions: run.decisions.filter((d) => !hidden.has(d.requestId)) }, seen);
      const rate = m.wrongLoad.rate === null ? '-' : `${(100 * m.wrongLoad.rate).toFixed(1)}%`;
      lines.push(`${run.selector}: wrong load ${rate} (${m.wrongLoad.k}/${m.wrongLoad.n}) on the requests whose gold skill was listed in full`);
    }
  }
  return { header, lines };
}

/** One report line in `width` columns: wrapped at words, continuation lines indented under it. */
function fit(line: string, width: number): string[] {
  const indent = /^ */.exec(line)![0];
  return wrap(line.slice(indent.length), Math.max(20, width - indent.length - 2)).map((l, i) => `${indent}${i ? '  ' : ''}${l}`);
}
