// Live progress of a run: one lane per selector or arm, whose counters the callers mutate.
// On a terminal an ink view redraws the lanes; elsewhere (CI, a pipe, --no-progress) plain lines are printed at a
// steady interval. ink and react are imported only in the live case, so nothing that needs a TTY loads otherwise.
import type { Lane, Progress } from './types.js';

export interface ProgressOptions {
  /** false: plain lines (non-TTY or --no-progress); true: live ink view. */
  live: boolean;
  title?: string;
  /** Where progress goes (default process.stderr, so that tables and JSON on stdout stay clean). */
  stream?: NodeJS.WritableStream;
  /** Plain mode: milliseconds between two reports (default 2000). */
  intervalMs?: number;
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
  const addLane = (name: string, total: number): Lane => {
    const lane: Lane = { name, total, done: 0, inFlight: 0, cacheHits: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, errors: 0 };
    lanes.push({ lane, startedAt: Date.now() });
    return lane;
  };
  // A live view asked for on a stream that is not a terminal would fill a log with escape codes, and one on a
  // terminal that reports no width (some pseudo-terminals) would wrap every character: use lines there.
  const tty = stream as { isTTY?: boolean; columns?: number };
  const live = options.live && tty.isTTY === true && (tty.columns ?? 0) > 0;
  return live ? liveProgress(stream, lanes, addLane, options.title) : plainProgress(stream, lanes, addLane, options);
}

// ---------------------------------------------------------------- plain lines

function plainProgress(
  stream: NodeJS.WritableStream,
  lanes: LaneState[],
  addLane: (name: string, total: number) => Lane,
  options: ProgressOptions,
): Progress {
  let titled = false;
  let stopped = false;
  const report = (final: boolean) => {
    const lines: string[] = [];
    for (const state of lanes) {
      const line = plainLine(state, Date.now(), final);
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

/** `[similarity] 12/30 (40%) in flight 2 cache 10 errors 0 tokens 1,234 $0.0000 eta 3s`: plain text, one lane. */
function plainLine(state: LaneState, now: number, final = false): string {
  const { lane } = state;
  const parts = [
    `[${lane.name}]`,
    `${lane.done}/${lane.total}`,
    `(${percent(lane.done, lane.total)})`,
  ];
  if (lane.inFlight > 0 && !final) parts.push(`in flight ${lane.inFlight}`);
  parts.push(
    `cache ${formatInt(lane.cacheHits)}`,
    `errors ${formatInt(lane.errors)}`,
    `tokens ${formatInt(lane.inputTokens + lane.outputTokens)}`,
    formatUsd(lane.costUsd),
  );
  // The finishing moment is only seen at a report, up to an interval late: say "done" rather than a wrong duration.
  if (lane.done >= lane.total) parts.push('done');
  else if (!final) parts.push(`eta ${eta(state, now)}`);
  else parts.push('stopped');
  return parts.join(' ');
}

// ---------------------------------------------------------------- live view (ink)

function liveProgress(
  stream: NodeJS.WritableStream,
  lanes: LaneState[],
  addLane: (name: string, total: number) => Lane,
  title: string | undefined,
): Progress {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let instance: { rerender(node: unknown): void; clear(): void; unmount(): void } | undefined;
  let view: (() => unknown) | undefined;

  // ink is ESM and heavy: load it in the background; the lanes count from the first call on regardless.
  void loadInk().then((ink) => {
    if (stopped) return;
    view = () => ink.view(title, lanes, Date.now());
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
  view(title: string | undefined, lanes: LaneState[], now: number): unknown;
}

async function loadInk(): Promise<InkModule> {
  const [inkMod, reactMod] = await Promise.all([import('ink'), import('react')]);
  const React = reactMod.default ?? reactMod;
  const { Box, Text } = inkMod;
  const h = React.createElement;
  const BAR = 24;

  const laneRow = (state: LaneState, now: number, nameWidth: number) => {
    const { lane } = state;
    const filled = lane.total > 0 ? Math.min(BAR, Math.round((lane.done / lane.total) * BAR)) : 0;
    const finished = lane.done >= lane.total;
    return h(
      Box,
      { key: lane.name, flexDirection: 'row', gap: 1 },
      h(Text, { bold: true }, lane.name.padEnd(nameWidth)),
      h(Text, { color: finished ? 'green' : 'cyan' }, '█'.repeat(filled) + h0('░', BAR - filled)),
      h(Text, null, `${lane.done}/${lane.total}`.padStart(9), ` ${percent(lane.done, lane.total).padStart(4)}`),
      h(Text, { dimColor: lane.inFlight === 0 }, `in flight ${lane.inFlight}`),
      h(Text, null, `cache ${formatInt(lane.cacheHits)}`),
      h(Text, null, `tokens ${formatInt(lane.inputTokens + lane.outputTokens)}`),
      h(Text, null, formatUsd(lane.costUsd)),
      h(Text, { color: lane.errors > 0 ? 'red' : undefined, dimColor: lane.errors === 0 }, `errors ${lane.errors}`),
      h(Text, { dimColor: true }, finished ? `done in ${formatDuration((state.finishedAt ??= now) - state.startedAt)}` : `eta ${eta(state, now)}`),
    );
  };

  return {
    render: inkMod.render as unknown as InkModule['render'],
    view(title, lanes, now) {
      const nameWidth = Math.max(4, ...lanes.map((s) => s.lane.name.length));
      return h(
        Box,
        { flexDirection: 'column' },
        title ? h(Text, { bold: true }, title) : null,
        ...lanes.map((s) => laneRow(s, now, nameWidth)),
      );
    },
  };
}

function h0(char: string, n: number): string {
  return char.repeat(Math.max(0, n));
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
