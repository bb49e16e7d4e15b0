// The terminal layout: text measured in terminal columns (string-width), the shared table renderer fitting 80 and
// 120 columns, the terminal report at 80 columns (summary first, nothing wider than the terminal), and the colour
// decision (NO_COLOR, FORCE_COLOR, a terminal or not).
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { terminalTable } from '../src/report/table.js';
import { renderTerminalReport } from '../src/report/terminal.js';
import { colorEnabled, columnsOf, layoutFor, wrapNotice } from '../src/colors.js';
import { displayWidth, padTo, truncate, wrap } from '../src/text-width.js';
import { computeMetrics } from '../src/metrics.js';
import { readResults } from '../src/results.js';
import type { ResultsFile } from '../src/types.js';

const widest = (text: string) => Math.max(...text.split('\n').map(displayWidth));

describe('text in terminal columns', () => {
  it('measures wide and zero-width characters as a terminal shows them', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('日本語')).toBe(6);
    expect(displayWidth('e\u0301')).toBe(1); // e + combining acute
    expect(displayWidth('👍🏽')).toBe(2);
  });
  it('truncates to a width with an ellipsis, never cutting a grapheme or overflowing', () => {
    expect(truncate('hello   world', 20)).toBe('hello world');
    expect(truncate('hello world', 8)).toBe('hello w…');
    expect(truncate('日本語のテキスト', 7)).toBe('日本語…');
    expect(displayWidth(truncate('日本語のテキスト', 7))).toBeLessThanOrEqual(7);
    expect(truncate('👍🏽👍🏽👍🏽', 5)).toBe('👍🏽👍🏽…');
  });
  it('wraps at spaces, then after hyphens, then anywhere; a no-break space holds', () => {
    expect(wrap('the quick brown fox', 10)).toEqual(['the quick', 'brown fox']);
    expect(wrap('leave-balance-calculator', 14)).toEqual(['leave-balance-', 'calculator']);
    expect(wrap('abcdefghijkl', 5)).toEqual(['abcde', 'fghij', 'kl']);
    expect(wrap('[95%\u00a0CI] x', 8)).toEqual(['[95%\u00a0CI]', 'x']);
    expect(wrap('two\nlines', 20)).toEqual(['two', 'lines']);
    for (const line of wrap('日本語のテキストを折り返す', 7)) expect(displayWidth(line)).toBeLessThanOrEqual(7);
  });
  it('pads to an exact width, left or right', () => {
    expect(padTo('ab', 4)).toBe('ab  ');
    expect(padTo('ab', 4, 'right')).toBe('  ab');
    expect(displayWidth(padTo('日本語です', 5))).toBe(5);
  });
});

describe('the table renderer at 80 columns', () => {
  const head = ['request', 'text', 'expected skill', 'got', 'score'];
  const rows = [
    ['csv-2', 'Quick sanity pass on this before it goes in the board pack, does anything look off?', 'csv-data-profiler', 'expense-report-checker', '0.367'],
    ['日本-1', '経費精算の領収書をチェックしてください。タクシー代と会食の費用が含まれています。', 'expense-report-checker', '(none)', '0.123'],
    ['emoji', 'Can you triage this ticket 🎫🔥 before the standup? The printer on floor 3 is down again', 'ticket-triage', 'ticket-triage', '0.991'],
  ];
  const render = (width: number) => {
    const t = terminalTable(head, { width, fit: ['truncate', 'truncate', 'wrap', 'wrap', 'fixed'], align: ['left', 'left', 'left', 'left', 'right'] });
    t.push(...rows);
    return t.toString();
  };

  it('fits 80 columns exactly or under, every line, with CJK and emoji cells', () => {
    const text = render(80);
    expect(widest(text)).toBeLessThanOrEqual(80);
    // Every line of the table is as wide as the border: the columns line up.
    const widths = new Set(text.split('\n').map(displayWidth));
    expect(widths.size).toBe(1);
    expect(text).toContain('…'); // the request texts were cut
    expect(text).toMatch(/│ +0\.367 │/); // numbers are never cut
    expect(text).toContain('csv-data-'); // a skill name wraps after a hyphen rather than mid-word
  });
  it('uses its natural width when it fits (120 columns) and never breaks a header mid-word', () => {
    const t = terminalTable(['selector', 'wrong load k/n [95%\u00a0CI]', 'errors'], { width: 120 });
    t.push(['similarity', '83.3% 20/24 [64.1-93.3]', '0']);
    const text = t.toString();
    expect(text.split('\n')).toHaveLength(4); // top rule, header, one row, bottom rule: nothing wrapped
    const narrow = terminalTable(['selector', 'wrong load k/n [95%\u00a0CI]', 'errors'], { width: 40, min: [6, 11, 6] });
    narrow.push(['similarity', '83.3% 20/24 [64.1-93.3]', '0']);
    const lines = narrow.toString().split('\n');
    expect(widest(narrow.toString())).toBeLessThanOrEqual(40);
    expect(lines.join('\n')).toContain('[95%\u00a0CI]');
    // The rate and its counts on one line, the interval on the next.
    expect(lines.some((l) => /83\.3% 20\/24 +│/.test(l))).toBe(true);
    expect(lines.some((l) => /\[64\.1-93\.3\] *│/.test(l))).toBe(true);
  });
  it('leaves out the columns it may drop, in order, when even their narrowest is too wide', () => {
    const t = terminalTable(['selector', 'n', 'accuracy', 'wrong load', 'needless load', 'errors'], { width: 50, drop: [1, 2], min: [8, undefined, 8, 8, 8, 6] });
    t.push(['similarity', '30', '33.3% 10/30', '83.3% 20/24', '0.0% 0/6', '0']);
    const text = t.toString();
    expect(widest(text)).toBeLessThanOrEqual(50);
    expect(text).not.toContain('accuracy');
    expect(text).not.toMatch(/│ +n │/);
    expect(text).toContain('needless');
  });
  it('colours the header only when asked', () => {
    const plain = terminalTable(['a', 'b']);
    plain.push(['1', '2']);
    expect(plain.toString()).not.toMatch(/\x1b\[/);
    const coloured = terminalTable(['a', 'b'], { color: true });
    coloured.push(['1', '2']);
    expect(coloured.toString()).toMatch(/\x1b\[36ma\x1b\[39m/);
  });
});

describe('the terminal report at 80 and 120 columns', () => {
  const demo = join(import.meta.dirname, '..', 'fixtures', 'results', 'demo-results.json');
  const render = (r: ResultsFile, width: number) => renderTerminalReport(r, r.runs.map((run) => computeMetrics(run, r.requests)), { width });

  it('leads with the summary, then details; nothing wider than the terminal', async () => {
    const r = await readResults(demo);
    for (const width of [80, 120]) {
      const text = render(r, width);
      expect(widest(text)).toBeLessThanOrEqual(width);
      const summary = text.indexOf('Summary');
      expect(summary).toBeGreaterThan(0);
      expect(summary).toBeLessThan(text.indexOf('Details'));
      // Per selector: its wrong and needless load in the summary, and the most telling thing to look at.
      expect(text.slice(summary, text.indexOf('Details'))).toMatch(/model +wrong load 7\.1% \(1\/14\), needless load 33\.3% \(3\/9\), 1 error/);
      expect(text).toMatch(/- 1 of 24 calls failed, left out of the rates/);
      expect(text).toMatch(/In short: model wrong 7\.1% \(1\/14\)/);
    }
    // At 80 columns the rate's interval goes on its own line; at 120 it stays beside the rate.
    expect(render(r, 80)).toMatch(/│ 7\.1% 1\/14 +│[^\n]*\n│ +│ \[1\.3-31\.5\]/);
    expect(render(r, 120)).toMatch(/│ 7\.1% 1\/14 \[1\.3-31\.5\] +│/);
  });
  it('stays within 80 columns with long names, long ids and CJK request texts', async () => {
    const r = await readResults(demo);
    const long = 'a-skill-name-that-goes-on-and-on-well-past-any-reasonable-length';
    r.catalogue.skills.push({ name: long, hash: 'h', category: '' });
    r.requests = r.requests.map((q, i) => ({ ...q, id: i === 0 ? `request-${'x'.repeat(70)}` : q.id, text: i % 2 ? `经费报销的问题:${q.text}` : q.text }));
    for (const run of r.runs) {
      for (const d of run.decisions) {
        if (d.requestId === 'p01') d.requestId = r.requests[0]!.id;
        if (d.chosen === 'ticket-triage') d.chosen = long;
      }
    }
    const text = render(r, 80);
    expect(widest(text)).toBeLessThanOrEqual(80);
    expect(text).toContain('a-skill-name-that-goes-on-and-on-');
  });
});

describe('colours', () => {
  const tty = { isTTY: true };
  it('follows FORCE_COLOR (Node\'s values), then NO_COLOR, then whether the stream is a terminal', () => {
    expect(colorEnabled(tty, {})).toBe(true);
    expect(colorEnabled({ isTTY: false }, {})).toBe(false);
    expect(colorEnabled(tty, { TERM: 'dumb' })).toBe(false);
    expect(colorEnabled(tty, { NO_COLOR: '1' })).toBe(false);
    expect(colorEnabled(tty, { NO_COLOR: '' })).toBe(true); // an empty NO_COLOR is not set
    expect(colorEnabled({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(colorEnabled({ isTTY: false }, { FORCE_COLOR: '' })).toBe(true);
    expect(colorEnabled(tty, { FORCE_COLOR: '0' })).toBe(false);
    expect(colorEnabled(tty, { FORCE_COLOR: 'false' })).toBe(false);
    expect(colorEnabled({ isTTY: false }, { FORCE_COLOR: '2', NO_COLOR: '1' })).toBe(true); // FORCE_COLOR wins, as in Node
  });
  it('fits the terminal\'s width, else $COLUMNS, else 120', () => {
    expect(columnsOf({ isTTY: true, columns: 80 }, {})).toBe(80);
    expect(columnsOf({ isTTY: false }, { COLUMNS: '100' })).toBe(100);
    expect(columnsOf({ isTTY: false }, {})).toBe(120);
    expect(layoutFor({ isTTY: false }, { FORCE_COLOR: '1', COLUMNS: '80' })).toEqual({ color: true, width: 80 });
  });
  it('the report is plain under NO_COLOR even on a terminal, coloured under FORCE_COLOR even in a pipe', async () => {
    const r = await readResults(join(import.meta.dirname, '..', 'fixtures', 'results', 'demo-results.json'));
    const m = r.runs.map((run) => computeMetrics(run, r.requests));
    expect(renderTerminalReport(r, m, layoutFor({ isTTY: true, columns: 80 }, { NO_COLOR: '1' }))).not.toMatch(/\x1b\[/);
    expect(renderTerminalReport(r, m, layoutFor({ isTTY: false }, { FORCE_COLOR: '1' }))).toMatch(/\x1b\[1msimilarity/);
  });
  it('wraps a notice to a terminal\'s width at word boundaries, and leaves it whole elsewhere', () => {
    const text = 'skillbench: skipped model, hybrid (no model API key found): set GEMINI_API_KEY (or GOOGLE_API_KEY), ANTHROPIC_API_KEY or OPENAI_API_KEY';
    const wrapped = wrapNotice(text, { isTTY: true, columns: 60 });
    expect(widest(wrapped)).toBeLessThan(60);
    expect(wrapped.replace(/\n {2}/g, ' ')).toBe(text);
    expect(wrapNotice(text, { isTTY: false })).toBe(text);
  });
});
