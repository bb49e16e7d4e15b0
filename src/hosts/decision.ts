// What counts as a load, read the way the host would act on it: a call to its skill tool naming a skill (as a name,
// or category/name where the host accepts it), or a call to its file tool whose path or command names a listed
// SKILL.md. The first load in the response is the decision; no call is "none"; a call that loads nothing (a shell
// command that reads no SKILL.md, a call to another of the host's tools) decides nothing and is reported as such.
import type { FunctionCall, Skill } from '../types.js';
import type { Host } from './profile.js';

export type CallReading =
  /** The call loads this skill. */
  | { kind: 'load'; skill: string }
  /** The call tries to load something that is not a skill of the catalogue (counts as a wrong load). */
  | { kind: 'unknown'; asked: string }
  /** The call is not a load at all. */
  | { kind: 'other' };

export type Reading =
  | CallReading
  | { kind: 'none' }
  /** The model called tools, none of which loads a skill: the first turn does not decide. */
  | { kind: 'undecided'; call: FunctionCall };

/** Reads one call under the host's loading mechanism, among the loadable `skills`. */
export function readCall(host: Host, call: FunctionCall, skills: Skill[]): CallReading {
  const loading = host.loading;
  if (call.name !== loading.tool.name) return { kind: 'other' };
  if (loading.kind === 'tool') {
    const raw = call.args?.[loading.tool.argument];
    if (typeof raw !== 'string') return { kind: 'unknown', asked: JSON.stringify(raw ?? null) };
    const asked = raw.trim();
    const byName = skills.find((s) => s.name === asked);
    if (byName) return { kind: 'load', skill: byName.name };
    if (loading.accept.includes('category/name')) {
      const byPath = skills.find((s) => s.category !== '' && `${s.category}/${s.name}` === asked);
      if (byPath) return { kind: 'load', skill: byPath.name };
    }
    return { kind: 'unknown', asked };
  }
  const text = argumentText(call.args?.[loading.argument]);
  if (text === null) return { kind: 'other' };
  const found = skillMdIn(text, skills, host.catalogue.listing.pathRoot);
  if (found) return { kind: 'load', skill: found };
  // A SKILL.md that is none of the listed ones: a load of a skill that does not exist.
  const other = /(?:^|[\s"'=])([^\s"'=]*SKILL\.md)\b/.exec(text);
  return other ? { kind: 'unknown', asked: other[1]! } : { kind: 'other' };
}

/** The decision of a first-turn response: its first load, else none (no call) or undecided (calls that load nothing). */
export function readDecision(host: Host, calls: FunctionCall[], skills: Skill[]): Reading {
  for (const call of calls) {
    const r = readCall(host, call, skills);
    if (r.kind !== 'other') return r;
  }
  return calls.length === 0 ? { kind: 'none' } : { kind: 'undecided', call: calls[0]! };
}

/** The one line an undecided first turn becomes (an error row: the decision could not be read, never a silent none). */
export function undecidedText(host: Host, call: FunctionCall): string {
  const args = JSON.stringify(call.args ?? {});
  const shown = args.length > 160 ? `${args.slice(0, 157)}...` : args;
  const how = host.loading.kind === 'tool' ? `a ${host.loading.tool.name} call` : `a ${host.loading.tool.name} call that reads a listed SKILL.md`;
  return `no decision: the first turn called ${call.name} ${shown}, which loads no skill (a load is ${how}); the turn after it would decide`;
}

/** A path or command argument as one string: a string, or an argv array joined with spaces. */
function argumentText(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.join(' ');
  return null;
}

/**
 * The skill whose SKILL.md the text names first: its listed path (pathRoot + location) or its location, preceded by
 * the start of the text, a space, a quote, "=" or "/" (so `other-pdf/SKILL.md` never reads as `pdf/SKILL.md`).
 */
export function skillMdIn(text: string, skills: Skill[], pathRoot: string): string | null {
  const normalised = text.replace(/\\/g, '/');
  let best: { at: number; skill: string } | null = null;
  for (const s of skills) {
    for (const p of new Set([pathRoot + s.location, s.location])) {
      if (p === '') continue;
      let from = 0;
      for (;;) {
        const at = normalised.indexOf(p, from);
        if (at === -1) break;
        const before = at === 0 ? ' ' : normalised[at - 1]!;
        const after = normalised[at + p.length];
        if (/[\s"'=/]/.test(before) && (after === undefined || /[\s"';|&)]/.test(after))) {
          // A longer path of another skill at the same place wins (e.g. a/b/SKILL.md over b/SKILL.md).
          const start = before === '/' ? at - 1 : at;
          if (!best || start < best.at) best = { at: start, skill: s.name };
          break;
        }
        from = at + 1;
      }
    }
  }
  return best?.skill ?? null;
}
