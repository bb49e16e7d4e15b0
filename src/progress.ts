// Live progress of a run: one lane per selector or arm, whose counters the callers mutate.
// On a terminal an ink view redraws the lanes; elsewhere (CI, a pipe, --no-progress) plain lines are printed at a
// steady interval. ink and react are imported only in the live case, so nothing that needs a TTY loads otherwise.
import { colorEnabled } from './colors.js';
import { displayWidth, padTo, truncate } from './text-width.js';
import type { Lane, Progress } from './types.js';

export interface ProgressOptions {
  /** false: plain lines (non-TTY or --no-progress); true: live ink view. */
  live: boolean;
  title?: string;
  /** Where progress goes (default process.stderr, so that tables and JSON on stdout stay clean). */
  stream?: NodeJS.WritableStream;
  /** Plain mode: milliseconds between two reports (default 2000). */
  intervalMs?: number;
  /**
   * --dry-run: nothing is called. Lanes then say how many requests were estimated and how many the cache answers,
   * never "done", errors, tokens or dollars: nothing there is a result.
   */
  dryRun?: boolean;
}

interface LaneState {
  lane: Lane;
  startedAt: number;
  /** Live view: when the lane was first seen complete (the view redraws every 200 ms). */
  finishedAt?: number;
  /** Plain mode: the line printed last, so an unchanged lane is not printed again. */
  lastLine?: string;
}

export function createProgress(options: ProgressOptions): Progress {
  const stream = options.stream ?? process.stderr;
  const lanes: LaneState[] = [];
  const addLane = (name: string, total: number, opts: { offline?: boolean } = {}): Lane => {
    const lane: Lane = { name, total, done: 0, inFlight: 0, cacheHits: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, errors: 0 };
    if (opts.offline) lane.offline = true;
    lanes.push({ lane, startedAt: Date.now() });
    return lane;
  };
  // A live view asked for on a stream that is not a terminal would fill a log with escape codes, and one on a
  // terminal that reports no width (some pseudo-terminals) would wrap every character: use lines there.
  const tty = stream as { isTTY?: boolean; columns?: number };
  const live = options.live && tty.isTTY === true && (tty.columns ?? 0) > 0;
  return live ? liveProgress(stream, lanes, addLane, options) : plainProgress(stream, lanes, addLane, options);
}

// ---------------------------------------------------------------- what a lane line says

type Style = 'name' | 'bar' | 'dim' | 'error' | 'plain';

/** One piece of a lane's line. `keep`: how long it stays as the line narrows (higher stays longer; 100: always). */
interface Field {
  text: string;
  keep: number;
  style: Style;
  /** The bar: its two parts (filled, empty) are drawn in the live view only. */
  bar?: { filled: number; finished: boolean };
}

interface LineMode {
  final: boolean;
  dryRun: boolean;
  live: boolean;
  now: number;
}

/** The pieces of a lane's line, in display order; the live view drops the least needed ones to fit its width. */
function laneFields(state: LaneState, mode: LineMode): Field[] {
  const { lane } = state;
  const finished = lane.done >= lane.total;
  const fields: Field[] = [{ text: mode.live ? lane.name : `[${lane.name}]`, keep: 100, style: 'name' }];
  if (mode.live) fields.push({ text: '', keep: 40, style: 'bar', bar: { filled: lane.total > 0 ? lane.done / lane.total : 1, finished } });
  fields.push({ text: `${lane.done}/${lane.total}`, keep: 100, style: 'plain' });
  fields.push({ text: mode.live ? percent(lane.done, lane.total) : `(${percent(lane.done, lane.total)})`, keep: 30, style: 'plain' });
  if (mode.dryRun) {
    // Nothing was called: what was estimated and what the cache answers, never a result.
    fields.push({ text: lane.offline ? 'ranked offline' : `estimated, ${formatInt(lane.cacheHits)} in the cache`, keep: 95, style: 'plain' });
    return fields;
  }
  if (!lane.offline) {
    if (mode.live || (lane.inFlight > 0 && !mode.final)) fields.push({ text: `in flight ${lane.inFlight}`, keep: 20, style: lane.inFlight ? 'plain' : 'dim' });
    fields.push({ text: `cache ${formatInt(lane.cacheHits)}`, keep: 50, style: 'plain' });
    if (!mode.live) fields.push({ text: `errors ${formatInt(lane.errors)}`, keep: 90, style: lane.errors ? 'error' : 'plain' });
    fields.push({ text: `tokens ${formatInt(lane.inputTokens + lane.outputTokens)}`, keep: 60, style: 'plain' });
    fields.push({ text: formatUsd(lane.costUsd), keep: 70, style: 'plain' });
    if (mode.live) fields.push({ text: `errors ${lane.errors}`, keep: lane.errors ? 90 : 10, style: lane.errors ? 'error' : 'dim' });
  } else if (lane.errors) {
    fields.push({ text: `errors ${formatInt(lane.errors)}`, keep: 90, style: 'error' });
  }
  fields.push({ text: tail(state, mode), keep: 100, style: mode.live ? 'dim' : 'plain' });
  return fields;
}

/** What the lane is doing: a status before the first count, else the time left, done, or stopped. */
function tail(state: LaneState, mode: LineMode): string {
  const { lane } = state;
  if (lane.done >= lane.total) {
    // Plain lines see the finishing moment only at a report, up to an interval late: "done" rather than a wrong duration.
    return mode.live ? `done in ${formatDuration((state.finishedAt ??= mode.now) - state.startedAt)}` : 'done';
  }
  if (mode.final) return 'stopped';
  if (lane.done === 0) return lane.status ?? 'starting';
  return `eta ${eta(state, mode.now)}`;
}

// ---------------------------------------------------------------- plain lines

function plainProgress(
  stream: NodeJS.WritableStream,
  lanes: LaneState[],
  addLane: (name: string, total: number, opts?: { offline?: boolean }) => Lane,
  options: ProgressOptions,
): Progress {
  let titled = false;
  let stopped = false;
  const report = (final: boolean) => {
    const lines: string[] = [];
    for (const state of lanes) {
      const line = plainLine(state, { final, dryRun: Boolean(options.dryRun), live: false, now: Date.now() });
      if (line === state.lastLine) continue;
      state.lastLine = line;
      lines.push(line);
    }
    if (lines.length === 0) return;
    if (!titled && options.title) lines.unshift(options.title);
    titled = true;
    stream.write(lines.join('\n') + '\n');
  };
  const timer = setInterval(() => report(false), options.intervalMs ?? 2000);
  // Progress must never keep a finished process alive.
  timer.unref();
  return {
    lane: addLane,
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      report(true);
    },
  };
}

/**
 * `[model] 12/30 (40%) in flight 2 cache 10 errors 0 tokens 1,234 $0.0012 eta 3s`; an offline lane says only its
 * count and time (`[keyword] 30/30 (100%) done`); a dry run says what was estimated.
 */
function plainLine(state: LaneState, mode: LineMode): string {
  return laneFields(state, mode).map((f) => f.text).join(' ');
}

// ---------------------------------------------------------------- live view (ink)

const BAR_MAX = 24;
const BAR_MIN = 8;

/** The fields of a lane fitted to `width` columns: the bar narrows, then the least needed fields go, then text is cut. */
export function fitFields(fields: Field[], width: number, nameWidth: number): Field[] {
  let bar = BAR_MAX;
  let kept = fields.map((f) => (f.style === 'name' ? { ...f, text: padTo(f.text, nameWidth) } : f));
  const size = () => kept.reduce((sum, f) => sum + (f.bar ? bar : displayWidth(f.text)), 0) + kept.length - 1;
  while (size() > width && bar > BAR_MIN) bar--;
  while (size() > width) {
    const droppable = kept.filter((f) => f.keep < 100);
    if (!droppable.length) break;
    const least = droppable.reduce((a, b) => (b.keep < a.keep ? b : a));
    kept = kept.filter((f) => f !== least);
  }
  // Still too wide (a very narrow terminal): cut the last field, then the name.
  for (const i of [kept.length - 1, 0]) {
    const over = size() - width;
    if (over > 0 && kept[i]) kept[i] = { ...kept[i]!, text: truncate(kept[i]!.text, Math.max(1, displayWidth(kept[i]!.text) - over)) };
  }
  return kept.map((f) => (f.bar ? { ...f, text: bar.toString() } : f));
}

function liveProgress(
  stream: NodeJS.WritableStream,
  lanes: LaneState[],
  addLane: (name: string, total: number, opts?: { offline?: boolean }) => Lane,
  options: ProgressOptions,
): Progress {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let instance: { rerender(node: unknown): void; clear(): void; unmount(): void } | undefined;
  let view: (() => unknown) | undefined;
  const tty = stream as { columns?: number };

  // ink is ESM and heavy: load it in the background; the lanes count from the first call on regardless.
  void loadInk().then((ink) => {
    if (stopped) return;
    // One column spare: a line that fills the last column makes some terminals wrap, and ink would then erase one
    // row too few on the next frame, leaving a stale line in the scrollback.
    const color = colorEnabled(stream as { isTTY?: boolean });
    view = () => ink.view(options.title, lanes, { now: Date.now(), width: Math.max(20, (tty.columns ?? 80) - 1), dryRun: Boolean(options.dryRun), color });
    // patchConsole prints console output above the view instead of through it; it needs a real console.Console.
    const patchConsole = typeof (console as { Console?: unknown }).Console === 'function';
    instance = ink.render(view(), { stdout: stream as NodeJS.WriteStream, exitOnCtrlC: false, patchConsole });
    timer = setInterval(() => instance?.rerender(view?.()), 200);
    timer.unref();
  }).catch((err: unknown) => {
    // A terminal that ink cannot drive must not fail the run: say so once and go on without a view.
    stream.write(`skillbench: live progress unavailable (${err instanceof Error ? err.message : String(err)})\n`);
  });

  return {
    lane: addLane,
    stop() {
      if (stopped) return;
      stopped = true;
      if (timer) clearInterval(timer);
      if (instance) {
        // The final tables replace the live view.
        instance.clear();
        instance.unmount();
      }
    },
  };
}

interface InkModule {
  render(node: unknown, options: Record<string, unknown>): { rerender(node: unknown): void; clear(): void; unmount(): void };
  view(title: string | undefined, lanes: LaneState[], frame: { now: number; width: number; dryRun: boolean; color: boolean }): unknown;
}

async function loadInk(): Promise<InkModule> {
  const [inkMod, reactMod] = await Promise.all([import('ink'), import('react')]);
  const React = reactMod.default ?? reactMod;
  const { Box, Text } = inkMod;
  const h = React.createElement;

  // Styles only where colour is wanted (ink's colour library does not read NO_COLOR); the bar's glyphs and the
  // words say the same without colour.
  const piece = (f: Field, i: number, color: boolean) => {
    if (f.bar) {
      const width = Number(f.text);
      const filled = Math.min(width, Math.round(f.bar.filled * width));
      return h(Text, { key: i, ...(color ? { color: f.bar.finished ? 'green' : 'cyan' } : {}) }, '█'.repeat(filled) + '░'.repeat(Math.max(0, width - filled)));
    }
    const style = !color ? {} : f.style === 'name' ? { bold: true } : f.style === 'dim' ? { dimColor: true } : f.style === 'error' ? { color: 'red' } : {};
    return h(Text, { key: i, ...style }, f.text);
  };

  return {
    render: inkMod.render as unknown as InkModule['render'],
    view(title, lanes, frame) {
      const nameWidth = Math.min(14, Math.max(4, ...lanes.map((s) => displayWidth(s.lane.name))));
      const rows = lanes.map((state) => {
        const fields = fitFields(laneFields(state, { final: false, dryRun: frame.dryRun, live: true, now: frame.now }), frame.width, nameWidth);
        const children: React.ReactNode[] = [];
        fields.forEach((f, i) => {
          if (i) children.push(' ');
          children.push(piece(f, i, frame.color));
        });
        // truncate-end: a last guard, so that a line never wraps whatever the terminal does.
        return h(Text, { key: state.lane.name, wrap: 'truncate-end' }, ...children);
      });
      return h(
        Box,
        { flexDirection: 'column', width: frame.width },
        title ? h(Text, { bold: frame.color, wrap: 'truncate-end' }, truncate(title, frame.width)) : null,
        ...rows,
      );
    },
  };
}

// ---------------------------------------------------------------- formatting

function eta(state: LaneState, now: number): string {
  const { lane } = state;
  if (lane.done === 0) return '?';
  const perItem = (now - state.startedAt) / lane.done;
  return formatDuration(perItem * (lane.total - lane.done));
}

function percent(done: number, total: number): string {
  return total > 0 ? `${Math.floor((100 * done) / total)}%` : '100%';
}

function formatInt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function formatUsd(n: number): string {
  return `$${n.toFixed(4)}`;
}

/** 3s, 1m05s, 2h03m. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}
