// --shard I/N: the I-th of N deterministic slices of a request set, for a CI matrix. A request belongs to the shard
// its id hashes to (sha256, first 32 bits, modulo N), so adding or removing requests moves no other request between
// shards. Each shard's results file records which slice it holds and a digest of the whole set, so that
// `skillbench report --merge` can check the shards belong together (src/merge.ts).
import { createHash } from 'node:crypto';
import { canonicalJson } from './cache.js';
import { UserError } from './errors.js';
import type { EvalRequest } from './types.js';

export interface ShardSpec {
  /** 1-based. */
  index: number;
  count: number;
}

/** What a shard's results file records (settings.shard). */
export interface ShardInfo extends ShardSpec {
  /** Requests in the whole set. */
  of: number;
  /** sha256 of the whole set (ids, texts, gold skills, in file order): shards of one run carry the same. */
  requestSet: string;
  /** Each of this shard's requests' position in the whole set (restores the file order on merge). */
  positions: number[];
}

/** Parses "I/N" (1 <= I <= N); a UserError naming the option otherwise. */
export function parseShard(value: string): ShardSpec {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(value);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count) {
    throw new UserError(`--shard: "${value}" is not I/N with 1 <= I <= N`, 'write e.g. --shard 2/4 for the second of four shards (in a GitHub matrix: --shard ${{ matrix.shard }}/4)');
  }
  return { index, count };
}

/** The 1-based shard a request id belongs to among `count`. */
export function shardOfId(id: string, count: number): number {
  return (createHash('sha256').update(id, 'utf8').digest().readUInt32BE(0) % count) + 1;
}

export function requestSetDigest(requests: EvalRequest[]): string {
  return createHash('sha256').update(canonicalJson(requests.map((r) => [r.id, r.text, r.gold]))).digest('hex');
}

/** This shard's requests, in file order, and what its results file records. */
export function selectShard(requests: EvalRequest[], spec: ShardSpec): { requests: EvalRequest[]; info: ShardInfo } {
  const positions: number[] = [];
  const picked: EvalRequest[] = [];
  requests.forEach((r, i) => {
    if (shardOfId(r.id, spec.count) !== spec.index) return;
    picked.push(r);
    positions.push(i);
  });
  return { requests: picked, info: { ...spec, of: requests.length, requestSet: requestSetDigest(requests), positions } };
}
