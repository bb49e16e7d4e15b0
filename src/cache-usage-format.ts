// The terminal view of `skillbench cache`: one row per part of the cache folder, with the pruning hint.
import type { CacheUsage } from './cache-usage.js';
import { terminalTable } from './report/table.js';

/** 1,536 -> "1.5 KB" (powers of 1,024, one decimal). */
export function bytes(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${n} B` : `${v.toFixed(1)} ${units[u]}`;
}

const int = (n: number) => n.toLocaleString('en-US');

/** `shown`: the folder as the user gave it (default: its absolute path). */
export function renderCacheUsage(usage: CacheUsage, shown = usage.dir): string {
  if (usage.parts.length === 0) return `${shown}: empty (no responses, no embedding vectors)`;
  const t = terminalTable(['part', 'entries', 'files', 'size'], { align: ['left', 'right', 'right', 'right'] });
  const notes: string[] = [];
  for (const p of usage.parts) {
    const what = p.kind === 'responses' ? 'responses' : p.kind === 'embeddings' ? 'vectors' : 'files';
    t.push([p.part, `${int(p.entries)} ${what}`, int(p.files), bytes(p.bytes)]);
    if (p.kind === 'legacy') notes.push(`${p.part}: written by skillbench before the binary format, no longer read`);
    if (p.superseded || p.badBytes) notes.push(`${p.part}: ${int(p.superseded ?? 0)} superseded records, ${int(p.badBytes ?? 0)} bytes of torn records`);
  }
  const lines = [`${shown}: ${bytes(usage.bytes)} in ${int(usage.files)} file${usage.files === 1 ? '' : 's'}`, t.toString()];
  for (const n of notes) lines.push(`note: ${n}`);
  lines.push('Make it smaller: skillbench cache prune (compacts the vectors, removes legacy files), --older-than DAYS to drop old entries too');
  return lines.join('\n');
}
