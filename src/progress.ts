// PLACEHOLDER (owned by the reports helper): live progress. This version keeps counters and prints nothing.
import type { Lane, Progress } from './types.js';

export interface ProgressOptions {
  /** false: plain lines (non-TTY or --no-progress); true: live ink view. */
  live: boolean;
  title?: string;
  stream?: NodeJS.WriteStream;
}

export function createProgress(_options: ProgressOptions): Progress {
  const lanes: Lane[] = [];
  return {
    lane(name, total) {
      const lane: Lane = { name, total, done: 0, inFlight: 0, cacheHits: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, errors: 0 };
      lanes.push(lane);
      return lane;
    },
    stop() {},
  };
}
