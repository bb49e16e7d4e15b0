// A skill's `metadata`: its state (always, available, never) and its tool profiles, read leniently (a bad value is
// reported and read as the default).
import type { SkillState } from '../types.js';
import { fieldLine, nestedFieldLine } from './frontmatter.js';
import { compareStrings } from './order.js';

export const SKILL_STATES: readonly SkillState[] = ['always', 'available', 'never'];

export type Report = (line: (text: string) => number, message: string, fix: string) => void;

export function readSkillMetadata(data: Record<string, unknown>, report: Report): { state: SkillState; toolProfiles: string[] } {
  const meta = data.metadata;
  if (meta === undefined || meta === null) return { state: 'available', toolProfiles: [] };
  if (typeof meta !== 'object' || Array.isArray(meta)) {
    report((t) => fieldLine(t, 'metadata'), '`metadata` is not a mapping', 'write `metadata:` followed by indented `key: value` lines');
    return { state: 'available', toolProfiles: [] };
  }
  const m = meta as Record<string, unknown>;
  let state: SkillState = 'available';
  if (m.state !== undefined) {
    if (typeof m.state === 'string' && (SKILL_STATES as readonly string[]).includes(m.state)) state = m.state as SkillState;
    else
      report(
        (t) => nestedFieldLine(t, 'metadata', 'state'),
        `metadata.state "${String(m.state)}" is not a known state (read as "available")`,
        `use one of ${SKILL_STATES.join(', ')}`,
      );
  }
  const raw = m['tool-profiles'];
  let toolProfiles: string[] = [];
  if (typeof raw === 'string') toolProfiles = raw.split(/[\s,]+/).filter(Boolean);
  else if (Array.isArray(raw) && raw.every((x) => typeof x === 'string')) toolProfiles = raw as string[];
  else if (raw !== undefined)
    report(
      (t) => nestedFieldLine(t, 'metadata', 'tool-profiles'),
      'metadata.tool-profiles is not a list of profile names',
      'write `tool-profiles: [profile-a, profile-b]` or a space-separated string',
    );
  return { state, toolProfiles: [...new Set(toolProfiles)].sort(compareStrings) };
}
