// A round's new requests split into jobs within the batch API's limits.
import type { EncodedItem } from '../providers/batch/index.js';

/** Splits encoded requests into jobs within the API's count and byte limits, in order. */
export function chunks<T extends { enc: EncodedItem }>(items: T[], limits: { maxItems: number; maxBytes: number }): T[][] {
  const out: T[][] = [];
  let cur: T[] = [];
  let bytes = 0;
  for (const it of items) {
    if (cur.length && (cur.length >= limits.maxItems || bytes + it.enc.bytes > limits.maxBytes)) {
      out.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(it);
    bytes += it.enc.bytes;
  }
  if (cur.length) out.push(cur);
  return out;
}
