// A word diff of two texts (a skill description before and after): the longest common subsequence of their words,
// the rest marked deleted or inserted. Words are compared without their spacing (a reflowed line is no change);
// whitespace is kept with the word before it, so joining the unchanged and inserted pieces gives the new text back.

export interface DiffPiece {
  op: 'same' | 'del' | 'ins';
  text: string;
}

/** Above this many word pairs the table would be too large to build: the texts are shown whole, one removed, one added. */
const MAX_CELLS = 4_000_000;

/** Words and runs of punctuation, each with its trailing whitespace (leading whitespace is a piece of its own). */
export function words(text: string): string[] {
  return text.match(/^\s+|[\p{L}\p{M}\p{N}_'’-]+\s*|[^\s\p{L}\p{M}\p{N}_'’-]+\s*/gu) ?? [];
}

export function wordDiff(before: string, after: string): DiffPiece[] {
  const a = words(before);
  const b = words(after);
  if (a.length * b.length > MAX_CELLS) return merge([...(before ? [{ op: 'del' as const, text: before }] : []), ...(after ? [{ op: 'ins' as const, text: after }] : [])]);
  // Compare words without their spacing: a reflowed line is not a change.
  const key = (w: string) => w.trim();
  // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
  const lcs: Uint32Array[] = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i]![j] = key(a[i]!) === key(b[j]!) ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const out: DiffPiece[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (key(a[i]!) === key(b[j]!)) {
      out.push({ op: 'same', text: b[j]! });
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) out.push({ op: 'del', text: a[i++]! });
    else out.push({ op: 'ins', text: b[j++]! });
  }
  while (i < a.length) out.push({ op: 'del', text: a[i++]! });
  while (j < b.length) out.push({ op: 'ins', text: b[j++]! });
  return merge(out);
}

/** Consecutive pieces of the same kind as one. */
function merge(pieces: DiffPiece[]): DiffPiece[] {
  const out: DiffPiece[] = [];
  for (const p of pieces) {
    const last = out[out.length - 1];
    if (last && last.op === p.op) last.text += p.text;
    else out.push({ ...p });
  }
  return out;
}
