// The token cost of one decision, against the bare minimum any host needs to ask the question: one
// `name: description` line per skill, the loading tool with the names as an enum, and the request. Offline o200k
// estimates of the same texts the providers receive (system blocks, tool declarations as JSON, messages).
import { visible } from '../prompt.js';
import { countTokens } from '../tokenizer.js';
import type { Skill, ToolDeclaration } from '../types.js';
import type { FirstTurn } from './request.js';

export interface DecisionTokens {
  system: number;
  tools: number;
  messages: number;
  total: number;
}

/** Tool declarations as counted offline: the JSON they serialise to (as the token audit counts them). */
export function toolsJson(tools: ToolDeclaration[]): string {
  return tools.length === 0 ? '' : JSON.stringify(tools);
}

/** Offline estimate of a first-turn request, by part. */
export function decisionTokens(req: FirstTurn): DecisionTokens {
  const system = req.system.reduce((n, b) => n + countTokens(b.text), 0);
  const tools = countTokens(toolsJson(req.tools));
  const messages = req.messages.reduce((n, m) => n + (m.role === 'user' ? countTokens(m.content) : 0), 0);
  return { system, tools, messages, total: system + tools + messages };
}

/** The bare minimum for a decision among `skills` on `request`. */
export function bareMinimum(skills: Skill[], request: string): FirstTurn {
  const listed = visible(skills);
  const lines = listed.map((s) => `${s.name}: ${s.description.split(/\s+/).filter(Boolean).join(' ')}`).join('\n');
  const tool: ToolDeclaration = {
    name: 'activate_skill',
    description: '',
    parameters: { type: 'object', properties: { name: { type: 'string', enum: listed.map((s) => s.name) } }, required: ['name'] },
  };
  return { system: [{ text: lines }], messages: [{ role: 'user', content: request }], tools: [tool] };
}

export function bareMinimumTokens(skills: Skill[], request: string): number {
  return decisionTokens(bareMinimum(skills, request)).total;
}
