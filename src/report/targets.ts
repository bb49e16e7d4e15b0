// What the terminal report says about the shape of a request set: skill-creator requests scored against their
// target skill (each target's trigger and false-trigger rates, loads that went to another skill apart, the pooled
// view), and the rates a one-sided set leaves undefined, each with the one line that says why.
import { POOLED } from '../metrics.js';
import { effectiveNText } from './format.js';
import { terminalTable } from './table.js';
import type { EvalRequest, Rate, SelectorMetrics } from '../types.js';

export interface SetShape {
  covered: number;
  uncovered: number;
  /** Requests with a target (skill-creator), and whether every request has one. */
  targeted: number;
  allTargeted: boolean;
  withCandidates: number;
  /** No covered or no uncovered request: accuracy and separability are undefined. */
  oneSided: boolean;
}

export function setShape(requests: EvalRequest[]): SetShape {
  const covered = requests.filter((r) => r.gold !== null).length;
  const targeted = requests.filter((r) => r.target !== undefined).length;
  return {
    covered,
    uncovered: requests.length - covered,
    targeted,
    allTargeted: targeted > 0 && targeted === requests.length,
    withCandidates: requests.filter((r) => r.candidates !== undefined).length,
    oneSided: requests.length > 0 && (covered === 0 || covered === requests.length),
  };
}

/**
 * One line per undefined figure: accuracy and separability of a one-sided set, and a rate with no decision behind it
 * (no request of that side, or every call on them failed).
 */
export function undefinedRateLines(shape: SetShape, metrics: SelectorMetrics[]): string[] {
  const lines: string[] = [];
  const [pos, neg] = shape.allTargeted ? ['positives (should_trigger: true)', 'negatives (should_trigger: false)'] : ['covered requests (gold set)', 'uncovered requests (gold null)'];
  const [wrong, needless] = shape.allTargeted ? ['missed trigger', 'false trigger'] : ['wrong load', 'needless load'];
  if (shape.uncovered === 0) {
    lines.push(`${needless} undefined: the set has no ${neg}; accuracy and separability are undefined too (loading a skill on every request would score 100%): add requests that should load nothing to measure them`);
  } else if (shape.covered === 0) {
    lines.push(`${wrong} undefined: the set has no ${pos}; accuracy and separability are undefined too (loading nothing would score 100%): add requests that should load a skill to measure them`);
  }
  for (const m of metrics) {
    if (shape.covered > 0 && m.wrongLoad.n === 0 && m.decisions > 0) lines.push(`${m.selector}: ${wrong} undefined: every call on the ${pos} failed (errors)`);
    if (shape.uncovered > 0 && m.needlessLoad.n === 0 && m.decisions > 0) lines.push(`${m.selector}: ${needless} undefined: every call on the ${neg} failed (errors)`);
  }
  return lines;
}

/** "62.5% [30.6-86.3] 5/8", or "undefined 0/0". */
function cell(r: Rate): string {
  if (r.rate === null) return 'undefined 0/0';
  return `${(100 * r.rate).toFixed(1)}% [${(100 * r.low!).toFixed(1)}-${(100 * r.high!).toFixed(1)}] ${r.k}/${r.n}${effectiveNText(r)}`;
}

/** The target-skill table (skill-creator requests), or undefined when no run has target figures. */
export function targetSection(metrics: SelectorMetrics[], opts: { color?: boolean } = {}): string | undefined {
  const rows = metrics.filter((m) => m.targets?.length);
  if (!rows.length) return undefined;
  const t = terminalTable(
    ['selector', 'target skill', 'trigger rate on positives [95% CI] k/n', 'false triggers on negatives [95% CI] k/n', 'went to another skill (pos, neg)', 'errors'],
    { color: opts.color, align: ['left', 'left', 'left', 'left', 'right', 'right'] },
  );
  for (const m of rows) {
    for (const x of m.targets!) {
      t.push([m.selector, x.skill === POOLED ? '(pooled: every set)' : x.skill, cell(x.trigger), cell(x.falseTrigger), `${x.otherOnPositives}, ${x.otherOnNegatives}`, x.errorsOnPositives + x.errorsOnNegatives]);
    }
  }
  return [
    'Scored against the target skill (skill-creator sets): a positive passes when its target loads; a negative is a near miss for its target,',
    'passing unless the target loads: another skill loading there is counted apart (went to another skill), never as a false trigger.',
    t.toString(),
  ].join('\n');
}
