// Terminal text of `skillbench suggest`: one suggestion, the offline ranking, and the arms' extra sections (cost per
// arm and per request, fixed and broken requests) printed after the shared terminal report.
import { truncate } from '../report/terminal.js';
import { usd } from '../report/format.js';
import type { ResultsFile, ScoredSkill, SelectorMetrics } from '../types.js';
import { requestCost, type ArmComparison } from './arms.js';
import type { Suggestion } from './suggester.js';
import type { GateAnswers } from './wide.js';

/** Dollars as every report format prints them. */
export const money = usd;

const f2 = (x: number) => x.toFixed(2);

export function gateLine(g: GateAnswers): string {
  return (
    `acts on the user's things ${f2(g.actsOnUserThings)}, expert procedure ${f2(g.expertProcedure)}, ` +
    `prose alone ${f2(g.proseAlone)} (counts against) -> ${f2(g.score)} ${g.open ? '>=' : '<'} ${f2(g.threshold)}: ` +
    (g.open ? 'open' : 'closed')
  );
}

function verdict(s: Suggestion, fitThreshold: number): string {
  if (s.exit === 'suggested') return s.skill!;
  if (s.exit === 'gate-closed') return `nothing (the request needs no skill: gate ${f2(s.gate.score)} < ${f2(s.gate.threshold)})`;
  const best = Math.max(0, ...s.shortlist.map((c) => c.fit ?? 0));
  return s.shortlist.length === 0
    ? 'nothing (no candidate in the ranking)'
    : `nothing (no candidate does the thing asked: best fit ${f2(best)} < ${f2(fitThreshold)})`;
}

export function renderSuggestion(s: Suggestion, info: { model: string; wide: string; fit: number }): string {
  const out: string[] = [];
  out.push(`request    ${JSON.stringify(s.request)}`);
  out.push(`suggests   ${verdict(s, info.fit)}`);
  out.push(`gate       ${gateLine(s.gate)}`);
  out.push(`shortlist  (wide: ${info.wide}; fit: narrow stage${s.exit === 'gate-closed' ? ', not run: gate closed' : ''})`);
  if (s.shortlist.length === 0) out.push('  (empty)');
  s.shortlist.forEach((c, i) => {
    const marks = [c.name === s.skill ? 'suggested' : '', c.name === s.pick && c.name !== s.skill ? 'picked, fit too low' : '']
      .filter(Boolean)
      .join(', ');
    out.push(
      `  ${i + 1}. ${c.name.padEnd(32)} wide ${f2(c.wideScore)}  fit ${c.fit === null ? '  - ' : f2(c.fit)}${marks ? `  <- ${marks}` : ''}`,
    );
  });
  out.push('block for the agent\'s system prompt (after the catalogue):');
  out.push(s.block.replace(/^/gm, '  '));
  const cached = s.calls.filter((c) => c.cached).length;
  out.push(`cost       ${money(s.costUsd)}: ${s.calls.length} call${s.calls.length === 1 ? '' : 's'} (${cached} cached) to ${info.model}`);
  return out.join('\n') + '\n';
}

export function renderRanking(ranking: ScoredSkill[], top: number, title: string): string {
  const lines = [title];
  ranking.slice(0, top).forEach((r, i) => lines.push(`  ${String(i + 1).padStart(2)}. ${r.name.padEnd(32)} ${r.score.toFixed(3)}`));
  return lines.join('\n') + '\n';
}

/** Cost per arm (agent turns, suggester calls) and per request; then the fixed and broken covered requests. */
export function renderArms(results: ResultsFile, metrics: SelectorMetrics[], comparison: ArmComparison, max = 20): string {
  const out: string[] = ['Cost per arm (the suggest arm includes the suggester\'s own calls)'];
  for (const run of results.runs) {
    const m = metrics.find((x) => x.selector === run.selector);
    const agent = run.decisions.reduce((s, d) => s + (d.costUsd ?? 0), 0);
    const total = run.decisions.reduce((s, d) => s + requestCost(d), 0);
    const n = run.decisions.length;
    out.push(
      `  ${(run.selector + (run.ceiling ? ' (ceiling)' : '')).padEnd(18)} total ${money(total).padStart(11)}  ` +
        `agent ${money(agent).padStart(11)}  suggester ${money(run.extraCostUsd ?? 0).padStart(11)}  ` +
        `per request ${money(n ? total / n : 0)}` +
        (m && Math.abs(m.costUsd - total) > 1e-12 ? `  (metrics: ${money(m.costUsd)})` : ''),
    );
  }
  const covered = results.requests.filter((r) => r.gold !== null).length;
  out.push(
    '',
    `Suggest against baseline, ${covered} covered requests: ${comparison.fixed.length} fixed, ${comparison.broken.length} broken`,
  );
  const list = (label: string, flips: ArmComparison['fixed']) => {
    for (const f of flips.slice(0, max)) {
      out.push(`  ${label} ${f.requestId}: gold ${f.gold}; baseline ${f.baseline ?? '(none)'} -> suggest ${f.suggest ?? '(none)'}  "${truncate(f.text, 60)}"`);
    }
    if (flips.length > max) out.push(`  ... and ${flips.length - max} more ${label.trim()}`);
  };
  list('fixed ', comparison.fixed);
  list('broken', comparison.broken);
  return out.join('\n') + '\n';
}
