// `skillbench prompt`: exactly what the model receives for one request under a host (system blocks, tools with their
// schemas, messages), with the listing notes and an offline token estimate against the bare minimum. The JSON is
// the same request skillbench sends the provider core, so what it shows is what a run sends.
import { TOKENIZER_NAME } from '../tokenizer.js';
import type { HostSummary, Skill } from '../types.js';
import type { ListingEntry } from './listing.js';
import { bareMinimumTokens, decisionTokens, type DecisionTokens } from './minimum.js';
import { hostSummary, listingNotes } from './notes.js';
import type { Host } from './profile.js';
import { hostFrame, type FirstTurn } from './request.js';

/** Stands in for the request when none is given. */
export const REQUEST_PLACEHOLDER = '<the user request>';

export interface PromptView {
  schema: 'skillbench.prompt';
  version: 1;
  host: HostSummary & { describes: string; sources: Host['sources'] };
  catalogue: { source: string; skills: number };
  request: { text: string; given: boolean };
  /** The first-turn request, as the provider core receives it. */
  prompt: FirstTurn;
  /** Every visible skill and what the listing shows of it. */
  entries: ListingEntry[];
  tokens: DecisionTokens & { tokenizer: string; bareMinimum: number; ratio: number };
}

export function promptView(host: Host, skills: Skill[], source: string, request?: string): PromptView {
  const text = request ?? REQUEST_PLACEHOLDER;
  const frame = hostFrame(host, skills);
  const prompt = frame.request(text);
  const tokens = decisionTokens(prompt);
  const bare = bareMinimumTokens(skills, text);
  return {
    schema: 'skillbench.prompt',
    version: 1,
    host: { ...hostSummary(host, frame.listing), describes: host.describes, sources: host.sources },
    catalogue: { source, skills: skills.length },
    request: { text, given: request !== undefined },
    prompt,
    entries: frame.listing.entries,
    tokens: { ...tokens, tokenizer: TOKENIZER_NAME, bareMinimum: bare, ratio: bare === 0 ? 0 : Math.round((tokens.total / bare) * 100) / 100 },
  };
}

const n = (x: number) => x.toLocaleString('en-US');

/** The prompt as a terminal reads it: each part under a heading, verbatim. */
export function renderPromptView(v: PromptView): string {
  const h = v.host;
  const out: string[] = [];
  out.push(`host ${h.name}: ${h.title}${h.origin === 'built-in' ? ' (built-in profile)' : ` (${h.origin})`}${h.systemFrom ? `, system prompt from ${h.systemFrom}` : ''}`);
  if (h.describes) out.push(`  ${h.describes}`);
  out.push(`catalogue ${v.catalogue.source}: ${n(v.catalogue.skills)} skills; a load is ${h.loading}`);
  if (!v.request.given) out.push(`request: none given (--request TEXT); shown as ${REQUEST_PLACEHOLDER}`);
  const p = v.prompt;
  out.push('', `== system (${p.system.length} block${p.system.length === 1 ? '' : 's'}) ==`);
  if (p.system.length === 0) out.push('(none)');
  p.system.forEach((b, i) => out.push(...(p.system.length > 1 ? [`-- block ${i + 1}${b.cache ? ' (cached prefix)' : ''}`] : b.cache ? ['(cached prefix)'] : []), b.text));
  out.push('', `== tools (${p.tools.length}) ==`);
  for (const t of p.tools) out.push(`-- ${t.name}`, t.description, `parameters: ${JSON.stringify(t.parameters)}`);
  out.push('', `== messages (${p.messages.length}) ==`);
  for (const m of p.messages) out.push(`-- ${m.role}`, m.role === 'user' ? m.content : JSON.stringify(m));
  out.push('', '== listing ==');
  const b = h.listing.budget;
  out.push(
    `${n(h.listing.chars)} characters` +
      (b ? `, budget ${n(b.chars)} (${b.from}): ${b.step === 'fits' ? 'fits' : `over with every description in full (${n(h.listing.fullChars)}): ${b.step}`}` : ', no budget'),
  );
  out.push(...listingNotes(h.name, h.listing));
  const t = v.tokens;
  out.push('', `== tokens (${t.tokenizer}, an estimate) ==`);
  out.push(`system ${n(t.system)} + tools ${n(t.tools)} + messages ${n(t.messages)} = ${n(t.total)}; bare minimum ${n(t.bareMinimum)} (${t.ratio.toFixed(2)}x)`);
  return `${out.join('\n')}\n`;
}
