// What a host sends its model on the first turn: the system prompt, the tools, and the user's message, with the
// catalogue placed where the host puts it (the system prompt, the loading tool's description, or the user's turn).
// A frame is built once per catalogue; each request only adds the user's text, so a run of a thousand requests renders
// the listing once and every request shares a byte-identical prefix (the providers' prompt caches hit).
import { renderAlwaysBlock, visible } from '../prompt.js';
import type { ChatRequest, Skill, SystemBlock, ToolDeclaration } from '../types.js';
import { renderListing, type Listing } from './listing.js';
import type { Host } from './profile.js';

export type FirstTurn = Omit<ChatRequest, 'model'>;

export interface HostFrame {
  host: Host;
  listing: Listing;
  /** The catalogue as the host places it: preamble, listing and footer. */
  catalogueText: string;
  system: SystemBlock[];
  /** The loading tool and the host's other tools (the loading tool first). */
  tools: ToolDeclaration[];
  /** Names in the loading tool's enum (the listed skills); empty for a free string or a file read. */
  enumNames: string[];
  /** The user's first message: the request, after the catalogue when the host puts it in the user's turn. */
  userMessage(text: string): string;
  /** The first-turn request for one user message. */
  request(text: string, maxOutputTokens?: number): FirstTurn;
}

/** Builds the frame of `host` for `skills` (never-state skills left out, as every host does). */
export function hostFrame(host: Host, skills: Skill[], opts: { agentWords?: string } = {}): HostFrame {
  const listing = renderListing(skills, host.catalogue.listing);
  const { placement, preamble, footer } = host.catalogue;
  const catalogueText = `${preamble}${listing.text}${footer}`;
  const listed = listing.entries.filter((e) => e.status !== 'dropped').map((e) => e.name);
  const always = visible(skills).filter((s) => s.state === 'always');
  // The agent loop adds its own words (the level-3 tools) after the host's, before the catalogue.
  const systemText = [host.system, opts.agentWords ?? '', placement === 'system' ? catalogueText : '', always.length ? renderAlwaysBlock(always) : '']
    .filter((t) => t !== '')
    .join('\n\n');
  const system: SystemBlock[] = systemText === '' ? [] : [{ text: systemText, cache: true }];
  const loadingTool = loadingToolDeclaration(host, listed, placement === 'tool-description' ? catalogueText : '');
  const tools = [loadingTool, ...host.tools];
  const enumNames = host.loading.kind === 'tool' && host.loading.tool.enum ? listed : [];
  const userMessage = (text: string) => (placement === 'user-message' ? `${catalogueText}${text}` : text);
  return {
    host,
    listing,
    catalogueText,
    system,
    tools,
    enumNames,
    userMessage,
    request: (text, maxOutputTokens = 512) => ({
      system,
      messages: [{ role: 'user', content: userMessage(text) }],
      tools,
      toolChoice: 'auto',
      maxOutputTokens,
    }),
  };
}

/** The host's loading tool: a skill tool (enum or free string) with the listing appended when it lives there, or the file tool. */
export function loadingToolDeclaration(host: Host, listed: string[], appendix = ''): ToolDeclaration {
  const loading = host.loading;
  if (loading.kind === 'file-read') return loading.tool;
  const t = loading.tool;
  const names = listed.map((n) => `'${n}'`).join(', ');
  const argument: Record<string, unknown> = { type: 'string' };
  // An empty enum is not a valid schema for every API: with nothing listed the argument stays a plain string.
  if (t.enum && listed.length > 0) argument.enum = listed;
  if (t.argumentDescription) argument.description = t.argumentDescription;
  return {
    name: t.name,
    description: t.description.replace(/\{names\}/g, names) + appendix,
    parameters: { type: 'object', properties: { [t.argument]: argument, ...t.extraProperties }, required: [t.argument] },
  };
}
