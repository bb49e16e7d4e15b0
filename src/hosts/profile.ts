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
  return { ...validateProfile(data, file), origin: file };
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

// ---------------------------------------------------------------- validation

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

class FieldCheck {
  constructor(readonly file: string) {}
  fail(field: string, problem: string, fix: string): never {
    throw new UserError(`${this.file}: field "${field}" ${problem}`, fix);
  }
  /** Unknown keys are typos more often than not: refuse them, naming the keys that exist. */
  keys(obj: Obj, field: string, allowed: string[]): void {
    for (const k of Object.keys(obj)) {
      if (!allowed.includes(k)) this.fail(field ? `${field}.${k}` : k, 'is not a host profile field', `remove it, or use one of ${allowed.join(', ')}`);
    }
  }
  string(obj: Obj, key: string, field: string, opts: { optional?: boolean; nonEmpty?: boolean; fallback?: string } = {}): string {
    const v = obj[key];
    if (v === undefined && (opts.optional || opts.fallback !== undefined)) return opts.fallback ?? '';
    if (typeof v !== 'string') this.fail(field, `must be a string${v === undefined ? ' (it is missing)' : ''}`, `give ${field} as text`);
    if (opts.nonEmpty && v.trim() === '') this.fail(field, 'must not be empty', `give ${field} as text`);
    return v;
  }
  oneOf<T extends string>(obj: Obj, key: string, field: string, values: readonly T[], fallback?: T): T {
    const v = obj[key];
    if (v === undefined && fallback !== undefined) return fallback;
    if (typeof v !== 'string' || !values.includes(v as T)) this.fail(field, `must be one of ${values.join(', ')} (got ${JSON.stringify(v)})`, `set ${field} to one of ${values.join(', ')}`);
    return v as T;
  }
  positiveInt(obj: Obj, key: string, field: string): number {
    const v = obj[key];
    if (!Number.isInteger(v) || (v as number) < 1) this.fail(field, `must be a whole number >= 1 (got ${JSON.stringify(v)})`, `give ${field} in characters`);
    return v as number;
  }
  boolean(obj: Obj, key: string, field: string, fallback: boolean): boolean {
    const v = obj[key];
    if (v === undefined) return fallback;
    if (typeof v !== 'boolean') this.fail(field, `must be true or false (got ${JSON.stringify(v)})`, `set ${field} to true or false`);
    return v;
  }
  object(obj: Obj, key: string, field: string): Obj {
    const v = obj[key];
    if (!isObj(v)) this.fail(field, `must be an object${v === undefined ? ' (it is missing)' : ''}`, `see docs/hosts.md for the fields of ${field}`);
    return v;
  }
}

const TOP_KEYS = ['$schema', 'extends', 'name', 'title', 'describes', 'sources', 'system', 'catalogue', 'loading', 'tools'];

/** Checks a parsed profile; throws a UserError naming the file, the first bad field and the fix. */
export function validateProfile(data: unknown, file: string): HostProfile {
  const c = new FieldCheck(file);
  if (!isObj(data)) throw new UserError(`${file}: a host profile must be a JSON or YAML object`, 'see docs/hosts.md for an example profile');
  c.keys(data, '', TOP_KEYS);
  if (data.extends !== undefined) data = mergeOver(c.oneOf(data, 'extends', 'extends', builtinHostNames()), data);
  const root = data as Obj;
  const name = c.string(root, 'name', 'name', { nonEmpty: true });
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(name)) c.fail('name', `must be lowercase letters, digits, ".", "_" and "-" (got "${name}")`, 'rename the profile, e.g. "my-agent"');
  const catalogue = c.object(root, 'catalogue', 'catalogue');
  c.keys(catalogue, 'catalogue', ['placement', 'preamble', 'footer', 'listing']);
  const listingObj = catalogue.listing === undefined ? {} : c.object(catalogue, 'listing', 'catalogue.listing');
  const profile: HostProfile = {
    name,
    title: c.string(root, 'title', 'title', { fallback: name }),
    describes: c.string(root, 'describes', 'describes', { optional: true }),
    sources: sources(c, root.sources),
    system: c.string(root, 'system', 'system', { fallback: '' }),
    catalogue: {
      placement: c.oneOf(catalogue, 'placement', 'catalogue.placement', PLACEMENTS),
      preamble: c.string(catalogue, 'preamble', 'catalogue.preamble', { fallback: '' }),
      footer: c.string(catalogue, 'footer', 'catalogue.footer', { fallback: '' }),
      listing: completeListing(listingObj, file, c),
    },
    loading: loading(c, c.object(root, 'loading', 'loading')),
    tools: tools(c, root.tools, 'tools'),
  };
  if (profile.catalogue.placement === 'tool-description' && profile.loading.kind !== 'tool') {
    c.fail('catalogue.placement', 'is "tool-description", but the loading has no skill tool to describe (kind "file-read")', 'use placement "system" or "user-message", or a loading of kind "tool"');
  }
  const taken = new Set([profile.loading.tool.name]);
  profile.tools.forEach((t, i) => {
    if (taken.has(t.name)) c.fail(`tools[${i}].name`, `declares "${t.name}" twice (the loading tool or another tool has that name)`, 'give every tool its own name');
    taken.add(t.name);
  });
  return profile;
}

/** A user's profile merged over the built-in one it extends (objects merged key by key, arrays replaced). */
function mergeOver(base: string, data: Obj): Obj {
  const merged = deepMerge(JSON.parse(readFileSync(path.join(HOSTS_DIR, `${base}.json`), 'utf8')) as Obj, data);
  delete merged.extends;
  return merged;
}

function deepMerge(base: Obj, over: Obj): Obj {
  const out: Obj = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = isObj(v) && isObj(base[k]) ? deepMerge(base[k] as Obj, v) : v;
  return out;
}

function sources(c: FieldCheck, v: unknown): HostProfile['sources'] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) c.fail('sources', 'must be an array of {url, what, read}', 'list the documents the profile was derived from, or leave "sources" out');
  return v.map((s, i) => {
    const f = `sources[${i}]`;
    if (!isObj(s)) c.fail(f, 'must be an object {url, what, read}', 'give each source as {"url": ..., "what": ..., "read": "YYYY-MM-DD"}');
    c.keys(s, f, ['url', 'what', 'read']);
    const read = c.string(s, 'read', `${f}.read`);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(read)) c.fail(`${f}.read`, `must be a date YYYY-MM-DD (got "${read}")`, 'give the date the source was read');
    return { url: c.string(s, 'url', `${f}.url`, { nonEmpty: true }), what: c.string(s, 'what', `${f}.what`, { nonEmpty: true }), read };
  });
}

const LISTING_KEYS = ['format', 'open', 'close', 'entry', 'nameOnlyEntry', 'group', 'escape', 'flatten', 'fields', 'fieldSeparator', 'pathRoot', 'cut', 'budget'];

/** skillbench's listing presets, as the fields they stand for. */
export const PRESETS: Record<ListingPreset, Omit<ListingSpec, 'format' | 'fields' | 'fieldSeparator' | 'pathRoot' | 'cut' | 'budget'> & { cut?: ListingSpec['cut'] }> = {
  // The lean default: one `name: description` line per skill, nothing else.
  lines: { open: '', close: '', entry: '{name}: {description}', nameOnlyEntry: '{name}', group: null, escape: 'none', flatten: true },
  // The Agent Skills reference library's form (skills-ref to-prompt): one element per line, values XML-escaped.
  xml: {
    open: '<available_skills>',
    close: '</available_skills>',
    entry: '<skill>\n<name>\n{name}\n</name>\n<description>\n{description}\n</description>\n<location>\n{path}\n</location>\n</skill>',
    nameOnlyEntry: '<skill>\n<name>\n{name}\n</name>\n<location>\n{path}\n</location>\n</skill>',
    group: null,
    escape: 'xml',
    flatten: false,
  },
  // Hermes' compact index: category headers, `- name: description` cut at 60 characters.
  hermes: {
    open: '<available_skills>',
    close: '</available_skills>',
    entry: '    - {name}: {description}',
    nameOnlyEntry: '    - {name}',
    group: { header: '  {category}:', defaultCategory: 'general', when: 'always', gap: false, sort: 'shown' },
    escape: 'none',
    flatten: true,
    cut: { chars: 60, marker: '...' },
  },
  markdown: {
    open: '## Available skills\n',
    close: '',
    entry: '- **{name}** (`{location}`): {description}',
    nameOnlyEntry: '- **{name}** (`{location}`)',
    group: { header: '### {category}\n', defaultCategory: 'general', when: 'categorised', gap: true, sort: 'folder' },
    escape: 'none',
    flatten: true,
  },
};

/** A listing spec with every field set: the preset's values, overridden by the ones given. */
export function completeListing(obj: Obj, file: string, c: FieldCheck = new FieldCheck(file)): ListingSpec {
  c.keys(obj, 'catalogue.listing', LISTING_KEYS);
  const f = (k: string) => `catalogue.listing.${k}`;
  const format = obj.format === undefined ? undefined : c.oneOf(obj, 'format', f('format'), LISTING_PRESETS);
  const preset = format ? PRESETS[format] : undefined;
  if (!preset && obj.entry === undefined) c.fail(f('entry'), 'is missing (and no "format" preset gives one)', `give "format" (${LISTING_PRESETS.join(', ')}) or an "entry" template such as "- {name}: {description}"`);
  const entry = c.string(obj, 'entry', f('entry'), { fallback: preset?.entry });
  if (!entry.includes('{name}')) c.fail(f('entry'), 'must contain {name}', 'write the entry template with {name} (and usually {description})');
  const nameOnlyEntry = c.string(obj, 'nameOnlyEntry', f('nameOnlyEntry'), { fallback: preset?.nameOnlyEntry ?? '{name}' });
  if (nameOnlyEntry.includes('{description}')) c.fail(f('nameOnlyEntry'), 'must not contain {description}', 'write the entry as it looks without the description');
  const fields = obj.fields === undefined ? ['description' as const] : descriptionFields(c, obj.fields, f('fields'));
  return {
    ...(format ? { format } : {}),
    open: c.string(obj, 'open', f('open'), { fallback: preset?.open ?? '' }),
    close: c.string(obj, 'close', f('close'), { fallback: preset?.close ?? '' }),
    entry,
    nameOnlyEntry,
    group: obj.group === undefined ? (preset?.group ?? null) : group(c, obj.group, f('group')),
    escape: c.oneOf(obj, 'escape', f('escape'), ESCAPES, preset?.escape ?? 'none'),
    flatten: c.boolean(obj, 'flatten', f('flatten'), preset?.flatten ?? true),
    fields,
    fieldSeparator: c.string(obj, 'fieldSeparator', f('fieldSeparator'), { fallback: ' ' }),
    pathRoot: c.string(obj, 'pathRoot', f('pathRoot'), { fallback: '' }),
    cut: obj.cut === undefined ? (preset?.cut ?? null) : cut(c, obj.cut, f('cut')),
    budget: obj.budget === undefined || obj.budget === null ? null : budget(c, obj.budget, f('budget')),
  };
}

/** The full listing spec of one of skillbench's presets. */
export function presetListing(format: ListingPreset): ListingSpec {
  let spec = presetCache.get(format);
  if (!spec) presetCache.set(format, (spec = completeListing({ format }, `preset ${format}`)));
  return spec;
}
const presetCache = new Map<ListingPreset, ListingSpec>();

function descriptionFields(c: FieldCheck, v: unknown, field: string): DescriptionField[] {
  if (!Array.isArray(v) || v.length === 0 || v.some((x) => !DESCRIPTION_FIELDS.includes(x as DescriptionField))) {
    c.fail(field, `must be a non-empty list of ${DESCRIPTION_FIELDS.join(', ')} (got ${JSON.stringify(v)})`, 'e.g. ["description", "when_to_use"]');
  }
  return v as DescriptionField[];
}

function group(c: FieldCheck, v: unknown, field: string): ListingSpec['group'] {
  if (v === null) return null;
  if (!isObj(v)) c.fail(field, 'must be an object {header, defaultCategory, when} or null', 'e.g. {"header": "  {category}:", "defaultCategory": "general", "when": "always"}');
  c.keys(v, field, ['header', 'defaultCategory', 'when', 'gap', 'sort']);
  const header = c.string(v, 'header', `${field}.header`);
  if (!header.includes('{category}')) c.fail(`${field}.header`, 'must contain {category}', 'e.g. "  {category}:"');
  return {
    header,
    defaultCategory: c.string(v, 'defaultCategory', `${field}.defaultCategory`, { fallback: 'general' }),
    when: c.oneOf(v, 'when', `${field}.when`, ['always', 'categorised'] as const, 'always'),
    gap: c.boolean(v, 'gap', `${field}.gap`, false),
    sort: c.oneOf(v, 'sort', `${field}.sort`, ['shown', 'folder'] as const, 'shown'),
  };
}

function cut(c: FieldCheck, v: unknown, field: string): ListingSpec['cut'] {
  if (v === null) return null;
  if (!isObj(v)) c.fail(field, 'must be an object {chars, marker} or null', 'e.g. {"chars": 60, "marker": "..."}');
  c.keys(v, field, ['chars', 'marker']);
  const chars = c.positiveInt(v, 'chars', `${field}.chars`);
  const marker = c.string(v, 'marker', `${field}.marker`, { fallback: '...' });
  if ([...marker].length >= chars) c.fail(`${field}.marker`, `is as long as the cut itself (${chars} characters)`, 'use a shorter marker or a larger cut');
  return { chars, marker };
}

function budget(c: FieldCheck, v: unknown, field: string): NonNullable<ListingSpec['budget']> {
  if (!isObj(v)) c.fail(field, 'must be an object {chars, overflow} or null', 'e.g. {"chars": 8000, "overflow": [{"step": "shorten", "minChars": 100}, {"step": "names-only"}]}');
  c.keys(v, field, ['chars', 'overflow']);
  const chars = c.positiveInt(v, 'chars', `${field}.chars`);
  const raw = v.overflow ?? [{ step: 'drop' }];
  if (!Array.isArray(raw) || raw.length === 0) c.fail(`${field}.overflow`, 'must be a non-empty list of steps', `use steps among ${OVERFLOW_STEPS.join(', ')}, e.g. [{"step": "drop"}]`);
  const overflow = raw.map((s, i): OverflowStep => {
    const f = `${field}.overflow[${i}]`;
    if (!isObj(s)) c.fail(f, 'must be an object {step, ...}', `e.g. {"step": "drop"}`);
    const step = c.oneOf(s, 'step', `${f}.step`, OVERFLOW_STEPS);
    c.keys(s, f, step === 'shorten' ? ['step', 'minChars', 'marker'] : ['step']);
    if (step !== 'shorten') return { step };
    return { step, minChars: s.minChars === undefined ? 20 : c.positiveInt(s, 'minChars', `${f}.minChars`), marker: c.string(s, 'marker', `${f}.marker`, { fallback: '...' }) };
  });
  return { chars, overflow };
}

function loading(c: FieldCheck, obj: Obj): LoadingSpec {
  const kind = c.oneOf(obj, 'kind', 'loading.kind', ['tool', 'file-read'] as const);
  if (kind === 'file-read') {
    c.keys(obj, 'loading', ['kind', 'tool', 'argument']);
    const [tool] = tools(c, [obj.tool], 'loading.tool');
    const argument = c.string(obj, 'argument', 'loading.argument', { nonEmpty: true });
    const props = (tool!.parameters.properties ?? {}) as Obj;
    if (!(argument in props)) c.fail('loading.argument', `names "${argument}", which is not a property of loading.tool.parameters`, `name the argument that holds the path or the command (${Object.keys(props).join(', ') || 'declare it first'})`);
    return { kind, tool: tool!, argument };
  }
  c.keys(obj, 'loading', ['kind', 'tool', 'accept']);
  const t = c.object(obj, 'tool', 'loading.tool');
  c.keys(t, 'loading.tool', ['name', 'description', 'argument', 'argumentDescription', 'enum', 'extraProperties']);
  const extra = t.extraProperties === undefined ? {} : c.object(t, 'extraProperties', 'loading.tool.extraProperties');
  const argument = c.string(t, 'argument', 'loading.tool.argument', { fallback: 'name' });
  if (argument in extra) c.fail(`loading.tool.extraProperties.${argument}`, 'repeats the argument that names the skill', 'remove it from extraProperties');
  for (const [k, s] of Object.entries(extra)) if (!isObj(s)) c.fail(`loading.tool.extraProperties.${k}`, 'must be a JSON Schema object', 'e.g. {"type": "string"}');
  const accept = obj.accept === undefined ? ['name' as const] : nameForms(c, obj.accept);
  return {
    kind,
    tool: {
      name: toolName(c, t.name, 'loading.tool.name'),
      description: c.string(t, 'description', 'loading.tool.description', { fallback: '' }),
      argument,
      argumentDescription: c.string(t, 'argumentDescription', 'loading.tool.argumentDescription', { fallback: '' }),
      enum: c.boolean(t, 'enum', 'loading.tool.enum', false),
      extraProperties: extra as Record<string, JsonSchema>,
    },
    accept,
  };
}

function nameForms(c: FieldCheck, v: unknown): NameForm[] {
  if (!Array.isArray(v) || v.length === 0 || v.some((x) => !NAME_FORMS.includes(x as NameForm))) {
    c.fail('loading.accept', `must be a non-empty list of ${NAME_FORMS.join(', ')} (got ${JSON.stringify(v)})`, 'e.g. ["name"]');
  }
  return v as NameForm[];
}

function toolName(c: FieldCheck, v: unknown, field: string): string {
  // The strictest of the three APIs (Gemini function names): letters, digits, _ . : -, starting with a letter or _.
  if (typeof v !== 'string' || !/^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/.test(v)) {
    c.fail(field, `must be a tool name of letters, digits, "_", ".", ":" or "-", at most 64 characters (got ${JSON.stringify(v)})`, 'rename the tool');
  }
  return v;
}

function tools(c: FieldCheck, v: unknown, field: string): ToolDeclaration[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) c.fail(field, 'must be an array of tools {name, description, parameters}', 'declare each tool with a JSON Schema "parameters" object');
  return v.map((t, i) => {
    const f = field === 'loading.tool' ? field : `${field}[${i}]`;
    if (!isObj(t)) c.fail(f, `must be an object {name, description, parameters}${t === undefined ? ' (it is missing)' : ''}`, 'declare the tool with a JSON Schema "parameters" object');
    c.keys(t, f, ['name', 'description', 'parameters']);
    const parameters = c.object(t, 'parameters', `${f}.parameters`);
    if (parameters.type !== 'object') c.fail(`${f}.parameters.type`, `must be "object" (got ${JSON.stringify(parameters.type)})`, 'tool arguments are an object: {"type": "object", "properties": {...}}');
    if (parameters.properties !== undefined && !isObj(parameters.properties)) c.fail(`${f}.parameters.properties`, 'must be an object', 'map each argument name to its JSON Schema');
    return { name: toolName(c, t.name, `${f}.name`), description: c.string(t, 'description', `${f}.description`, { fallback: '' }), parameters };
  });
}
