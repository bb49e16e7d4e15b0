/**
 * A scripted model for the wire server (test/support/wire-server.ts) whose choices depend on what it is shown, so
 * that `skillbench improve` can be tested end to end through the real SDKs:
 * - a selection call (tools with activate_skill): it reads the catalogue in the system prompt (the lines, xml,
 *   hermes or markdown listing), scores each skill by the words its description shares with the request (lower-cased words of
 *   4+ letters, a final "s" dropped, a few stop words left out), and loads the best one when it shares at least
 *   MIN_SHARED words; ties go to the skill listed first. No skill reaches it: a text answer.
 * - a rewriter call (a JSON answer asked for): it reads the <current_description>, the <missed_requests> and the
 *   <other_skills> of the prompt and answers with candidates made by a `Rewriter` function.
 *
 *   const model = scriptedSkillModel({ rewriter: (p) => [{ description: p.current + ' ...', rationale: '...' }] });
 *   const server = await startWireServer({ openai: model.openai, anthropic: model.anthropic });
 */
import { anthropic, openai, type Handler, type Recorded } from './wire-server.js';

export const MIN_SHARED = 2;
const STOP = new Set(['with', 'from', 'this', 'that', 'these', 'what', 'which', 'about', 'will', 'your', 'tell', 'please', 'still', 'when', 'also', 'they', 'them', 'have']);

/** The words a request and a description are compared on. */
export function words(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of text.toLowerCase().match(/[\p{L}]+/gu) ?? []) {
    if (w.length < 4 || STOP.has(w)) continue;
    out.add(w.length > 4 && w.endsWith('s') ? w.slice(0, -1) : w);
  }
  return out;
}

const unescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');

/** The listing as the model sees it: skill names (in listing order) and the descriptions shown. */
export function listedSkills(system: string): { name: string; description: string }[] {
  const xml = [...system.matchAll(/<name>\n([^\n]+)\n<\/name>\n<description>\n([\s\S]*?)\n<\/description>/g)].map((m) => ({ name: unescape(m[1]!), description: unescape(m[2]!) }));
  if (xml.length) return xml;
  const hermes = [...system.matchAll(/^ {4}- ([a-z0-9-]+): (.*)$/gm)].map((m) => ({ name: m[1]!, description: m[2]! }));
  if (hermes.length) return hermes;
  const markdown = [...system.matchAll(/^- \*\*([^*]+)\*\* \([^)]*\): (.*)$/gm)].map((m) => ({ name: m[1]!, description: m[2]! }));
  if (markdown.length) return markdown;
  // The generic host's lean listing: one `name: description` line per skill.
  return [...system.matchAll(/^([a-z0-9][a-z0-9-]*): (.*)$/gm)].map((m) => ({ name: m[1]!, description: m[2]! }));
}

/** The skill the scripted model loads for a request, or null. */
export function choose(request: string, skills: { name: string; description: string }[]): string | null {
  const asked = words(request);
  let best: string | null = null;
  let bestShared = MIN_SHARED - 1;
  for (const s of skills) {
    const desc = words(s.description);
    const shared = [...asked].filter((w) => desc.has(w)).length;
    if (shared > bestShared) {
      best = s.name;
      bestShared = shared;
    }
  }
  return best;
}

export interface RewritePrompt {
  skill: string;
  current: string;
  missed: string[];
  falseTriggers: string[];
  others: { name: string; description: string }[];
  /** The whole user message, to check what the rewriter was (not) shown. */
  text: string;
}

export type Rewriter = (prompt: RewritePrompt) => { description: string; rationale: string }[];

export function readRewritePrompt(text: string): RewritePrompt {
  const section = (tag: string) => new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(text)?.[1] ?? '';
  const requests = (block: string) => [...block.matchAll(/<request[^>]*>([\s\S]*?)<\/request>/g)].map((m) => unescape(m[1]!));
  return {
    skill: /<skill name="([^"]+)">/.exec(text)?.[1] ?? '',
    current: unescape(/<current_description>([\s\S]*?)<\/current_description>/.exec(text)?.[1] ?? ''),
    missed: requests(section('missed_requests')),
    falseTriggers: requests(section('false_triggers')),
    others: [...section('other_skills').matchAll(/<skill name="([^"]+)">([\s\S]*?)<\/skill>/g)].map((m) => ({ name: m[1]!, description: unescape(m[2]!) })),
    text,
  };
}

export interface ScriptedModel {
  openai: Handler;
  anthropic: Handler;
  /** Rewriter prompts received, in order. */
  prompts: RewritePrompt[];
}

const usageOf = (req: Recorded) => ({ input: Math.round(JSON.stringify(req.body).length / 4), output: 12 });

export function scriptedSkillModel(opts: { rewriter: Rewriter }): ScriptedModel {
  const prompts: RewritePrompt[] = [];
  const rewrite = (user: string) => {
    const prompt = readRewritePrompt(user);
    prompts.push(prompt);
    return { candidates: opts.rewriter(prompt) };
  };
  return {
    prompts,
    openai: (req) => {
      const messages = req.body.messages as { role: string; content: string }[];
      const system = messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n\n');
      const user = messages.filter((m) => m.role === 'user').at(-1)!.content;
      if (req.body.response_format) return openai.text(JSON.stringify(rewrite(user)), usageOf(req));
      const chosen = choose(user, listedSkills(system));
      return chosen ? openai.toolCall('activate_skill', { name: chosen }, usageOf(req)) : openai.text('I can answer that directly.', usageOf(req));
    },
    anthropic: (req) => {
      const system = (req.body.system as { text: string }[]).map((b) => b.text).join('\n\n');
      const last = (req.body.messages as { role: string; content: string | { type: string; text: string }[] }[]).at(-1)!;
      const user = typeof last.content === 'string' ? last.content : last.content.map((b) => b.text ?? '').join('');
      if (!req.body.tools) return anthropic.text(JSON.stringify(rewrite(user)), usageOf(req));
      const chosen = choose(user, listedSkills(system));
      return chosen ? anthropic.toolUse('activate_skill', { name: chosen }, usageOf(req)) : anthropic.text('I can answer that directly.', usageOf(req));
    },
  };
}

/** The rewriter of the tests: a good candidate (the missed requests' words added), a thief (the other skills' words
 * too), a cut one, one over the spec's limit and a repeat of the current description. */
export const testRewriter: Rewriter = (p) => {
  const missedWords = [...new Set(p.missed.flatMap((t) => [...words(t)]))].filter((w) => !words(p.current).has(w));
  const otherWords = [...new Set(p.others.flatMap((o) => [...words(o.description)]))];
  return [
    { description: `${p.current} Also for ${missedWords.join(', ')}.`, rationale: 'adds the words of the missed requests' },
    { description: `${p.current} Also for ${[...missedWords, ...otherWords].join(', ')}.`, rationale: 'casts a wide net' },
    { description: p.current.split(' ').slice(0, 4).join(' '), rationale: 'shorter' },
    { description: 'word '.repeat(300).trim(), rationale: 'too long' },
    { description: p.current, rationale: 'unchanged' },
  ];
};

/** `description` with as many of `extra` words appended ("Also for a, b, c.") as fit in `max` characters. */
export function appendWithin(description: string, extra: string[], max = 1024): string {
  let out = description;
  for (let i = 1; i <= extra.length; i++) {
    const next = `${description} Also for ${extra.slice(0, i).join(', ')}.`;
    if ([...next].length > max) break;
    out = next;
  }
  return out;
}

/** The rewriter of the README demo on the bundled catalogue: the same ideas as testRewriter, kept within the limit. */
export const demoRewriter: Rewriter = (p) => {
  const own = words(p.current);
  const missedWords = [...new Set(p.missed.flatMap((t) => [...words(t)]))].filter((w) => !own.has(w));
  const otherWords = [...new Set(p.others.flatMap((o) => [...words(o.description)]))].filter((w) => !own.has(w));
  return [
    { description: appendWithin(p.current, missedWords), rationale: 'adds the words of the missed requests' },
    { description: appendWithin(p.current, [...missedWords, ...otherWords]), rationale: 'casts a wide net' },
    { description: p.current.split('. ')[0]!.replace(/\.?$/, '.'), rationale: 'keeps the first sentence only' },
  ];
};
