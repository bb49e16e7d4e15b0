import { describe, expect, it, vi } from 'vitest';
import { Writable } from 'node:stream';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProgress, fitFields } from '../src/progress.js';
import { displayWidth } from '../src/text-width.js';
import { runCli, type CliRun } from './support/cli.js';

// Records whether ink was ever imported: the plain mode must not load anything that needs a terminal.
const loaded = vi.hoisted(() => ({ ink: 0 }));
vi.mock('ink', async (importOriginal) => {
  loaded.ink++;
  return importOriginal();
});

/** A writable stream that keeps what was written; `tty` makes it look like a terminal. */
function captureStream(tty: boolean): Writable & { text(): string; isTTY?: boolean; columns?: number; rows?: number } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  }) as Writable & { text(): string; isTTY?: boolean; columns?: number; rows?: number };
  stream.text = () => chunks.join('');
  if (tty) {
    stream.isTTY = true;
    stream.columns = 160;
    stream.rows = 40;
  }
  return stream;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Drives two lanes the way a selector loop does: calls in flight, cache hits, tokens, cost, one error. */
async function simulateRun(progress: ReturnType<typeof createProgress>) {
  const similarity = progress.lane('similarity', 30);
  const model = progress.lane('model', 12);
  for (let i = 0; i < 30; i++) {
    similarity.inFlight = 1;
    if (i < 12) model.inFlight = 2;
    await sleep(4);
    similarity.inFlight = 0;
    similarity.done++;
    similarity.cacheHits += i % 3 === 0 ? 1 : 0;
    similarity.inputTokens += 40;
    if (i < 12) {
      model.inFlight = 0;
      model.done++;
      model.inputTokens += 1000;
      model.outputTokens += 12;
      model.costUsd += 0.00015;
      if (i === 5) model.errors++;
    }
  }
  progress.stop();
}

describe('plain progress (not a terminal)', () => {
  it('prints readable lines, one lane per line, with no escape codes and a final state', async () => {
    const stream = captureStream(false);
    const progress = createProgress({ live: false, title: 'eval-trigger: 30 requests', stream: stream as unknown as NodeJS.WriteStream, intervalMs: 25 });
    await simulateRun(progress);
    const text = stream.text();

    expect(text).not.toMatch(/\u001b/);
    expect(text).not.toMatch(/\r/);
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe('eval-trigger: 30 requests');
    const laneLines = lines.slice(1);
    // Several reports were made during the run, not only the final one.
    expect(laneLines.length).toBeGreaterThan(2);
    const shape = /^\[(similarity|model)\] \d+\/\d+ \(\d+%\)( in flight \d+)? cache \d+ errors \d+ tokens [\d,]+ \$\d+\.\d{4} (eta (\d+s|\d+m\d\ds)|starting|done)$/;
    for (const line of laneLines) expect(line).toMatch(shape);

    // The last line of each lane is its final state.
    const last = (name: string) => laneLines.filter((l) => l.startsWith(`[${name}]`)).at(-1);
    expect(last('similarity')).toMatch(/^\[similarity\] 30\/30 \(100%\) cache 10 errors 0 tokens 1,200 \$0\.0000 done$/);
    expect(last('model')).toMatch(/^\[model\] 12\/12 \(100%\) cache 0 errors 1 tokens 12,144 \$0\.0018 done$/);
    expect(loaded.ink).toBe(0);
  });

  it('prints nothing again for a lane that did not change, and stop() is idempotent', async () => {
    const stream = captureStream(false);
    const progress = createProgress({ live: false, stream: stream as unknown as NodeJS.WriteStream, intervalMs: 10 });
    const lane = progress.lane('keyword', 4);
    lane.done = 2;
    await sleep(60);
    progress.stop();
    progress.stop();
    const lines = stream.text().trimEnd().split('\n');
    // One report while it worked (2/4, eta) and one final report (stopped): unchanged ticks print nothing.
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[keyword\] 2\/4 \(50%\) cache 0 errors 0 tokens 0 \$0\.0000 eta \d+s$/);
    expect(lines[1]).toMatch(/^\[keyword\] 2\/4 \(50%\) cache 0 errors 0 tokens 0 \$0\.0000 stopped$/);
  });

  it('asking for a live view on a stream that is not a terminal still gives plain lines', async () => {
    const stream = captureStream(false);
    const progress = createProgress({ live: true, stream: stream as unknown as NodeJS.WriteStream, intervalMs: 10 });
    const lane = progress.lane('explicit', 1);
    lane.done = 1;
    progress.stop();
    expect(stream.text()).toMatch(/^\[explicit\] 1\/1 \(100%\) cache 0 errors 0 tokens 0 \$0\.0000 done\n$/);
    expect(loaded.ink).toBe(0);
  });
});

describe('a real run whose stderr is not a terminal (a CI log)', () => {
  it('eval-trigger writes readable progress lines: no escape codes, one lane per line, each lane finished', async () => {
    const root = join(import.meta.dirname, '..');
    const dir = await mkdtemp(join(tmpdir(), 'skillbench-progress-'));
    let r: CliRun;
    try {
      expect(process.stderr.isTTY).toBeFalsy();
      r = await runCli(['eval-trigger', '--skills', join(root, 'skills'), '--requests', join(root, 'requests.json'),
        '--selectors', 'similarity,keyword,explicit', '--cache-dir', join(dir, 'cache'), '-o', join(dir, 'r.json')]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(r.code).toBe(0);
    const log = r.stderr;
    expect(log).not.toMatch(/\u001b|\r/);
    const laneLines = log.split('\n').filter((l) => l.startsWith('['));
    // Offline lanes: a count and the time left, or what the lane is doing before its first count; no tokens, no dollars.
    const shape = /^\[(similarity|keyword|explicit)\] \d+\/\d+ \(\d+%\)( errors \d+)? (eta \S+|done|stopped|starting|loading the offline model \(first run only\)|embedding the requests)$/;
    for (const line of laneLines) expect(line).toMatch(shape);
    for (const lane of ['similarity', 'keyword', 'explicit']) {
      expect(laneLines.filter((l) => l.startsWith(`[${lane}]`)).at(-1)).toMatch(/ (\d+)\/\1 \(100%\)( .*)? done$/);
    }
    expect(loaded.ink).toBe(0);
  });
});

describe('live progress (a terminal)', () => {
  it('falls back to plain lines on a terminal that reports no width', () => {
    const stream = captureStream(true);
    stream.columns = 0;
    const progress = createProgress({ live: true, stream: stream as unknown as NodeJS.WriteStream });
    progress.lane('model', 2).done = 2;
    progress.stop();
    expect(stream.text()).toBe('[model] 2/2 (100%) cache 0 errors 0 tokens 0 $0.0000 done\n');
    expect(loaded.ink).toBe(0);
  });

  it('draws each lane with ink and clears the view on stop', async () => {
    const stream = captureStream(true);
    const progress = createProgress({ live: true, title: 'eval-trigger', stream: stream as unknown as NodeJS.WriteStream });
    const lane = progress.lane('similarity', 10);
    lane.done = 3;
    lane.inFlight = 2;
    lane.cacheHits = 1;
    lane.inputTokens = 1234;
    // ink loads in the background; wait for it, then for a few frames (under CI, ink writes only the last one).
    for (let i = 0; i < 100 && loaded.ink === 0; i++) await sleep(50);
    for (let i = 0; i < 20 && !stream.text().includes('similarity'); i++) await sleep(50);
    progress.stop();
    const text = stream.text();
    expect(loaded.ink).toBe(1);
    expect(text).toContain('eval-trigger');
    expect(text).toMatch(/similarity\s+█+░+\s+3\/10\s+30%\s+in flight 2\s+cache 1\s+tokens 1,234\s+\$0\.0000\s+errors 0\s+eta \d+s/);
  });

  it('fits an 80-column terminal: no line wider, offline lanes without tokens or dollars, the model load named', async () => {
    const stream = captureStream(true);
    stream.columns = 80;
    const progress = createProgress({ live: true, title: 'eval-trigger: a title long enough to be cut at eighty columns, which it must be, always', stream: stream as unknown as NodeJS.WriteStream });
    const model = progress.lane('model', 1040);
    Object.assign(model, { done: 517, inFlight: 8, cacheHits: 123_456, inputTokens: 98_765_432, outputTokens: 1_234_567, costUsd: 123.4567, errors: 12 });
    const similarity = progress.lane('similarity', 1040, { offline: true });
    similarity.status = 'loading the offline model (first run only)';
    progress.lane('a-selector-with-a-very-long-name', 1040, { offline: true }).done = 1040;
    for (let i = 0; i < 100 && loaded.ink === 0; i++) await sleep(50);
    for (let i = 0; i < 40 && !stream.text().includes('first run only'); i++) await sleep(50);
    progress.stop();
    // The frames as a terminal shows them: escape sequences (colours, cursor moves, erasures) removed.
    const lines = stream.text().replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').split('\n').filter((l) => l.trim());
    expect(lines.some((l) => /^similarity .*0\/1040 0% loading the offline model \(first run only\)$/.test(l))).toBe(true);
    expect(lines.some((l) => /^model .*517\/1040 .*errors 12/.test(l))).toBe(true);
    for (const line of lines) expect(displayWidth(line)).toBeLessThan(80);
    for (const line of lines.filter((l) => l.startsWith('similarity') || l.startsWith('a-selector'))) expect(line).not.toMatch(/tokens|\$|cache/);
  });

  it('narrows a lane by shrinking the bar, then dropping the least needed fields, never the name, count or state', () => {
    const fields = (errors: number) => [
      { text: 'model', keep: 100, style: 'name' as const },
      { text: '', keep: 40, style: 'bar' as const, bar: { filled: 0.5, finished: false } },
      { text: '517/1040', keep: 100, style: 'plain' as const },
      { text: '49%', keep: 30, style: 'plain' as const },
      { text: 'in flight 8', keep: 20, style: 'plain' as const },
      { text: 'cache 123,456', keep: 50, style: 'plain' as const },
      { text: 'tokens 99,999,999', keep: 60, style: 'plain' as const },
      { text: '$123.4567', keep: 70, style: 'plain' as const },
      { text: `errors ${errors}`, keep: errors ? 90 : 10, style: 'plain' as const },
      { text: 'eta 1m05s', keep: 100, style: 'plain' as const },
    ];
    const width = (fs: ReturnType<typeof fitFields>) => fs.reduce((n, f) => n + (f.bar ? Number(f.text) : displayWidth(f.text)), 0) + fs.length - 1;
    const wide = fitFields(fields(0), 200, 10);
    expect(wide).toHaveLength(10);
    expect(wide[1]!.text).toBe('24');
    const narrow = fitFields(fields(3), 79, 10);
    expect(width(narrow)).toBeLessThanOrEqual(79);
    expect(narrow.map((f) => f.text)).toEqual(expect.arrayContaining(['model     ', '517/1040', 'errors 3', 'eta 1m05s']));
    expect(narrow.map((f) => f.text)).not.toContain('in flight 8');
    const tiny = fitFields(fields(0), 30, 10);
    expect(width(tiny)).toBeLessThanOrEqual(30);
    expect(tiny.map((f) => f.text)).toEqual(['model     ', '517/1040', 'eta 1m05s']);
  });
});

describe('dry-run progress', () => {
  it('says what was estimated and what the cache answers; never done, errors, tokens or dollars', () => {
    const stream = captureStream(false);
    const progress = createProgress({ live: false, dryRun: true, stream: stream as unknown as NodeJS.WriteStream, intervalMs: 1000 });
    const model = progress.lane('model', 30);
    Object.assign(model, { done: 30, cacheHits: 10, errors: 20 });
    progress.stop();
    expect(stream.text()).toBe('[model] 30/30 (100%) estimated, 10 in the cache\n');
  });
});

