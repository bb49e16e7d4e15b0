// A host profile: how one agent (Claude Code, Gemini CLI, Hermes, Codex, ADK, or the user's own) shows a skill
// catalogue to its model and how it reads the model's decision to load one. Profiles are data: the built-in ones are
// JSON files under data/hosts/ (each with the public sources it was derived from), a user's own is a JSON or YAML
// file; both are validated on read here, with errors that name the field and the fix.
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import matter from 'gray-matter';
import { UserError } from '../errors.js';
import type { JsonSchema, ToolDeclaration } from '../types.js';
import { isObj, presetListing, validateProfile, type Obj } from './schema.js';

export { presetListing, validateProfile };

export const PLACEMENTS = ['system', 'tool-description', 'user-message'] as const;
export type Placement = (typeof PLACEMENTS)[number];
export const LISTING_PRESETS = ['lines', 'xml', 'hermes', 'markdown'] as const;
export type ListingPreset = (typeof LISTING_PRESETS)[number];
export const ESCAPES = ['none', 'xml', 'html', 'angle'] as const;
export type Escape = (typeof ESCAPES)[number];
export const DESCRIPTION_FIELDS = ['description', 'when_to_use'] as const;
export type DescriptionField = (typeof DESCRIPTION_FIELDS)[number];
export const OVERFLOW_STEPS = ['shorten', 'names-only', 'drop'] as const;
export type OverflowStepName = (typeof OVERFLOW_STEPS)[number];
export const NAME_FORMS = ['name', 'category/name'] as const;
export type NameForm = (typeof NAME_FORMS)[number];

/** One way of getting a listing under its budget; steps are tried in order, each on the full listing. */
export interface OverflowStep {
  step: OverflowStepName;
  /** shorten: no description is cut below this many characters (the step fails instead). */
  minChars?: number;
  /** shorten: what ends a shortened description. */
  marker?: string;
}

export interface ListingSpec {
  /** A preset of skillbench's own listing forms; the fields below override it. */
  format?: ListingPreset;
  /** Lines before and after the entries ('' for none). */
  open: string;
  close: string;
  /** One skill: {name}, {description}, {path} (pathRoot + location), {location}, {category}. */
  entry: string;
  /** A skill shown without its description (the names-only overflow step). */
  nameOnlyEntry: string;
  /** Entries grouped by category under a header ({category}); null: one flat list. */
  group: {
    header: string;
    defaultCategory: string;
    when: 'always' | 'categorised';
    /** A blank line between groups. */
    gap: boolean;
    /** Groups in the order of their shown name, or of their folder (skills at the catalogue root first). */
    sort: 'shown' | 'folder';
  } | null;
  escape: Escape;
  /** Collapse the description's whitespace to single spaces (one line per skill). */
  flatten: boolean;
  /** Frontmatter fields the host shows as the description, joined with fieldSeparator. */
  fields: DescriptionField[];
  fieldSeparator: string;
  /** Put before each skill's location in {path} (e.g. the folder the host installs skills into). */
  pathRoot: string;
  /** The host's cut of each description: over `chars`, the first chars - marker.length characters and the marker. */
  cut: { chars: number; marker: string } | null;
  /** The host's listing budget in characters and what it does past it. */
  budget: { chars: number; overflow: OverflowStep[] } | null;
}

export type LoadingSpec =
  | {
      /** Loading is a call to a tool naming the skill. */
      kind: 'tool';
      tool: {
        name: string;
        /** May contain {names}: the listed skills' names, quoted and comma-separated. */
        description: string;
        /** The argument that names the skill. */
        argument: string;
        argumentDescription: string;
        /** true: the argument is an enum of the listed names; false: a free string. */
        enum: boolean;
        /** Other (optional) arguments of the tool. */
        extraProperties: Record<string, JsonSchema>;
      };
      /** How the model may name a skill: its name, or category/name (Hermes). */
      accept: NameForm[];
    }
  | {
      /** Loading is reading a listed SKILL.md through a file or shell tool whose argument names the path. */
      kind: 'file-read';
      tool: ToolDeclaration;
      /** The argument holding the path or the command (a string, or an array of strings). */
      argument: string;
    };

export interface HostProfile {
  name: string;
  title: string;
  /** Which versions of the host the profile describes. */
  describes: string;
  /** Public sources the profile's mechanics come from, with the date each was read. */
  sources: { url: string; what: string; read: string }[];
  /** The host's own instructions, first in the system prompt ('' for none); --system-prompt FILE replaces them. */
  system: string;
  catalogue: {
    placement: Placement;
    /** Text right before and after the listing (include your own line breaks). */
    preamble: string;
    footer: string;
    listing: ListingSpec;
  };
  loading: LoadingSpec;
  /** Other tools the host declares in the same request (a call to one of them is not a load). */
  tools: ToolDeclaration[];
}

/** A profile ready to use: where it came from and what the command line changed in it. */
export interface Host extends HostProfile {
  /** 'built-in' or the file it was read from. */
  origin: string;
  /** --system-prompt FILE, when it replaced the system text. */
  systemFrom?: string;
  /** --listing-budget, when it replaced the profile's budget. */
  budgetFrom?: 'option';
}

export const DEFAULT_HOST = 'generic';
const HOSTS_DIR = fileURLToPath(new URL('../../data/hosts/', import.meta.url));

let builtinNames: string[] | undefined;
/** Names of the built-in profiles (the files in data/hosts/), sorted. */
export function builtinHostNames(): string[] {
  builtinNames ??= readdirSync(HOSTS_DIR).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -'.json'.length)).sort();
  return builtinNames;
}

export interface HostChoice {
  /** --host NAME|FILE (default: generic). */
  host?: string;
  /** --listing-budget CHARS. */
  listingBudget?: number;
  /** --system-prompt FILE. */
  systemPrompt?: string;
  /** --format: the generic host's listing preset. */
  format?: ListingPreset;
}

/** Resolves --host (a built-in name or a profile file), then applies --listing-budget, --system-prompt and --format. */
export async function resolveHost(choice: HostChoice, fallback: string = DEFAULT_HOST): Promise<Host> {
  const given = choice.host ?? fallback;
  let host: Host = builtinHostNames().includes(given) ? { ...loadBuiltin(given), origin: 'built-in' } : await loadProfileFile(given);
  if (choice.format !== undefined) {
    if (host.name !== 'generic') {
      throw new UserError(
        `--format ${choice.format}: the ${host.name} host lists skills its own way`,
        'drop --format (it sets the generic host\'s listing), or write a profile file with "extends" and your own "listing"',
      );
    }
    host = { ...host, catalogue: { ...host.catalogue, listing: presetListing(choice.format) } };
  }
  if (choice.listingBudget !== undefined) host = withListingBudget(host, choice.listingBudget);
  if (choice.systemPrompt !== undefined) {
    let text: string;
    try {
      text = await readFile(choice.systemPrompt, 'utf8');
    } catch (err) {
      throw new UserError(`--system-prompt ${choice.systemPrompt}: cannot read it (${(err as NodeJS.ErrnoException).code ?? String(err)})`, 'pass a text file with the host\'s system prompt');
    }
    text = text.replace(/^\uFEFF/, '').trim();
    if (text === '') throw new UserError(`--system-prompt ${choice.systemPrompt}: the file is empty`, 'write the system prompt in it, or drop --system-prompt');
    host = { ...host, system: text, systemFrom: choice.systemPrompt };
  }
  return host;
}

/** --listing-budget CHARS: the host's budget replaced (a host without one drops skills past it, from the end). */
export function withListingBudget(host: Host, chars: number): Host {
  const overflow = host.catalogue.listing.budget?.overflow ?? [{ step: 'drop' as const }];
  return { ...host, budgetFrom: 'option', catalogue: { ...host.catalogue, listing: { ...host.catalogue.listing, budget: { chars, overflow } } } };
}

/** The generic host, with one of the listing presets (synchronous: no file to read). */
export function genericHost(format?: ListingPreset): Host {
  const host: Host = { ...loadBuiltin(DEFAULT_HOST), origin: 'built-in' };
  return format === undefined ? host : { ...host, catalogue: { ...host.catalogue, listing: presetListing(format) } };
}

const builtinCache = new Map<string, HostProfile>();

/** A built-in profile, read from data/hosts/NAME.json and validated like a user's file. */
export function loadBuiltin(name: string): HostProfile {
  const cached = builtinCache.get(name);
  if (cached) return cached;
  const file = path.join(HOSTS_DIR, `${name}.json`);
  const profile = validateProfile(JSON.parse(readFileSync(file, 'utf8')), `data/hosts/${name}.json`);
  builtinCache.set(name, profile);
  return profile;
}

/** A user's profile file (.json, .yaml, .yml), validated; `extends` merges it over a built-in profile. */
export async function loadProfileFile(file: string): Promise<Host> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const looksLikeName = !/[./\\]/.test(file) || !/\.(json|ya?ml)$/i.test(file);
    throw new UserError(
      code === 'ENOENT' && looksLikeName ? `--host ${file}: no built-in host of that name, and no such profile file` : `--host ${file}: cannot read the profile file (${code ?? String(err)})`,
      `use one of ${builtinHostNames().join(', ')}, or the path of a host profile (.json or .yaml; see docs/hosts.md)`,
    );
  }
  const data = parseProfileText(text.replace(/^\uFEFF/, ''), file);
  return { ...validateProfile(withExtends(data, file), file), origin: file };
}

/** `extends: NAME`: the user's profile merged over that built-in one (objects key by key, lists replaced). */
function withExtends(data: unknown, file: string): unknown {
  if (!isObj(data) || data.extends === undefined) return data;
  const names = builtinHostNames();
  if (typeof data.extends !== 'string' || !names.includes(data.extends)) {
    throw new UserError(`${file}: field "extends" must be one of ${names.join(', ')} (got ${JSON.stringify(data.extends)})`, `set extends to one of ${names.join(', ')}, or leave it out`);
  }
  const { extends: base, ...own } = data;
  return deepMerge(JSON.parse(readFileSync(path.join(HOSTS_DIR, `${base}.json`), 'utf8')) as Obj, own);
}

function deepMerge(base: Obj, over: Obj): Obj {
  const out: Obj = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = isObj(v) && isObj(base[k]) ? deepMerge(base[k] as Obj, v) : v;
  return out;
}

function parseProfileText(text: string, file: string): unknown {
  if (/\.ya?ml$/i.test(file)) {
    try {
      return yamlEngine.parse(text);
    } catch (err) {
      throw new UserError(`${file}: not valid YAML (${oneLine((err as Error).message)})`, 'fix the YAML syntax of the host profile');
    }
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UserError(`${file}: not valid JSON (${(err as Error).message})`, 'fix the JSON, or write the profile as YAML in a .yaml file');
  }
}

// gray-matter's YAML engine is js-yaml's safe loader (no JavaScript), the one SKILL.md frontmatter is read with.
const yamlEngine = (matter as unknown as { engines: { yaml: { parse: (s: string) => unknown } } }).engines.yaml;

function oneLine(s: string): string {
  return s.split('\n')[0]!.trim();
}
