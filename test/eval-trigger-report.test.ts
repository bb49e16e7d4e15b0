// The terminal report: plain text for a CI log (colours only when asked), a row per selector with rates, intervals
// and counts, the threshold's provenance, a compact sweep, failures truncated with their count.
import { describe, expect, it } from 'vitest';
import { renderTerminalReport, rateCell } from '../src/report/terminal.js';
import { computeMetrics, wilson } from '../src/metrics.js';
import type { EvalRequest, ResultsFile } from '../src/types.js';

const requests: EvalRequest[] = Array.from({ length: 30 }, (_, i) => ({ id: `q${i}`, text: `request number ${i} `.repeat(i % 3 ? 1 : 8), gold: i < 20 ? 'A' : null }));

function results(): ResultsFile {
  return {
    schema: 'skillbench.results', version: 1, command: 'eval-trigger', createdAt: '', skillbenchVersion: '0', settings: {},
    catalogue: { source: 'cat', format: 'xml', skills: [{ name: 'A', hash: 'h', category: '' }, { name: 'B', hash: 'h', category: '' }] },
    requests,
    runs: [
      {
        selector: 'similarity',
        kind: 'score',
        threshold: { value: 0.5, source: 'calibrated', calibrationFile: 'other.json' },
        // Every request ranks A first with score i/30 (q0: a tie at 0, no top): q15..q19 load A (right), q20..q29 load A (needless).
        decisions: requests.map((r, i) => ({ requestId: r.id, run: 0, chosen: i / 30 >= 0.5 ? 'A' : null, scores: [{ name: 'A', score: i / 30 }, { name: 'B', score: 0 }] })),
      },
      {
        selector: 'model',
        kind: 'decision',
        decisions: requests.map((r, i) => ({
          requestId: r.id, run: 0, chosen: r.gold, ...(i === 3 ? { error: 'openai: HTTP 500', chosen: null } : {}),
          usage: { inputTokens: 1200, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 10, thinkingTokens: 0 }, costUsd: 0.0002,
        })),
      },
    ],
  };
}

describe('terminal report', () => {
  const r = results();
  const metrics = r.runs.map((run) => computeMetrics(run, r.requests));
  const text = renderTerminalReport(r, metrics);

  it('has one row per selector with rate, interval and counts, errors and tokens', () => {
    expect(text).toMatch(/│ similarity │\s+30 │ 16\.7% 5\/30\s+│ 75\.0% 15\/20 \[53\.1-88\.8\]\s+│ 100\.0% 10\/10 \[72\.2-100\.0\]/); // 15..19 right; 20..29 needless
    expect(text).toMatch(/│ model\s+│\s+30 │ 100\.0% 29\/29 .*│\s+1 │\s+1,200 │\s+\$0\.00600 │/);
    expect(text).toContain('threshold applied: 0.500 (calibrated on other.json)');
    expect(text).toMatch(/lowest score of a correctly ranked positive 0\.033; highest score of a negative 0\.967: NOT separable/);
  });
  it('keeps the sweep compact around the best threshold and truncates failures with a count', () => {
    const sweepRows = text.split('sweep (')[1]!.split('Recall')[0]!.split('\n').filter((l) => l.startsWith('│'));
    expect(sweepRows.length).toBeLessThanOrEqual(12);
    expect(text).toMatch(/similarity: 25 failures \(first 10 shown\)/);
    expect(text).toContain('error: openai: HTTP 500');
  });
  it('is plain text unless colours are asked for', () => {
    expect(text).not.toMatch(/\x1b\[/);
    expect(renderTerminalReport(r, metrics, { color: true })).toMatch(/\x1b\[/);
  });
  it('says when explicit loaded nothing because no request names a skill, and only then', () => {
    const note = /explicit: no request names a skill/;
    expect(text).not.toMatch(note);
    const withExplicit = (decide: (i: number) => { chosen: string | null; rawChoice?: string; detail?: Record<string, unknown> }): string => {
      const x = results();
      x.runs.push({ selector: 'explicit', kind: 'decision', decisions: requests.map((q, i) => ({ requestId: q.id, run: 0, ...decide(i) })) });
      return renderTerminalReport(x, x.runs.map((run) => computeMetrics(run, x.requests)));
    };
    expect(withExplicit(() => ({ chosen: null }))).toMatch(/explicit\s+no request names a skill/);
    expect(withExplicit((i) => ({ chosen: i === 0 ? 'A' : null }))).not.toMatch(note);
    expect(withExplicit((i) => (i === 0 ? { chosen: null, rawChoice: 'nope' } : { chosen: null }))).not.toMatch(note);
    expect(withExplicit((i) => (i === 0 ? { chosen: null, detail: { unresolved: 'nope' } } : { chosen: null }))).not.toMatch(note);
  });
  it('cuts a long request id in the failure table and prints the gate notes', () => {
    const x = results();
    const longId = 'r-' + 'x'.repeat(80);
    x.requests = x.requests.map((q, i) => (i === 0 ? { ...q, id: longId } : q));
    for (const run of x.runs) for (const d of run.decisions) if (d.requestId === requests[0]!.id) d.requestId = longId;
    x.gate = { passed: true, reasons: [], flips: [], notes: ['the request sets differ: compared on the 28 requests ...'] };
    const out = renderTerminalReport(x, x.runs.map((run) => computeMetrics(run, x.requests)));
    expect(out).not.toContain(longId);
    expect(out).toContain('r-' + 'x'.repeat(37) + '…');
    expect(out).toMatch(/gate: passed\n  note: the request sets differ/);
  });
  it('says where a fixed threshold came from: --threshold, or the baseline file', () => {
    const x = results();
    x.runs[0]!.threshold = { value: 0.5, source: 'fixed' };
    expect(renderTerminalReport(x, metrics)).toContain('threshold applied: 0.500 (fixed by --threshold)');
    x.runs[0]!.threshold = { value: 0.5, source: 'fixed', calibrationFile: 'main.json' };
    expect(renderTerminalReport(x, metrics)).toContain('threshold applied: 0.500 (fixed by --threshold baseline: the threshold main.json applied)');
  });
  it('writes a rate with its interval and counts, or a dash for none', () => {
    expect(rateCell(wilson(3, 4))).toBe('75.0% [30.1-95.4] 3/4');
    expect(rateCell(wilson(0, 0))).toBe('undefined 0/0');
    // --runs N: the effective sample size behind a widened interval is shown; a design effect of 1 changes nothing.
    expect(rateCell({ ...wilson(3, 4), effectiveN: 6.4, designEffect: 1.875 })).toBe('75.0% [30.1-95.4] 3/4 (eff. n 6.4)');
    expect(rateCell({ ...wilson(3, 4), effectiveN: 4, designEffect: 1 })).toBe('75.0% [30.1-95.4] 3/4');
  });
});
