// The host profile format, checked: every field of a parsed profile (a built-in one or a user's), with errors that
// name the file, the field and the fix; and skillbench's listing presets, which a profile's listing starts from.
import { UserError } from '../errors.js';
import type { JsonSchema, ToolDeclaration } from '../types.js';
import {
  DESCRIPTION_FIELDS,
  ESCAPES,
  LISTING_PRESETS,
  NAME_FORMS,
  OVERFLOW_STEPS,
  PLACEMENTS,
  type DescriptionField,
  type HostProfile,
  type ListingPreset,
  type ListingSpec,
  type LoadingSpec,
  type NameForm,
  type OverflowStep,
} from './profile.js';

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export class FieldCheck {
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

const TOP_KEYS = ['$schema', 'name', 'title', 'describes', 'sources', 'system', 'catalogue', 'loading', 'tools'];

/** Checks a parsed profile; throws a UserError naming the file, the first bad field and the fix. */
export function validateProfile(data: unknown, file: string): HostProfile {
  const c = new FieldCheck(file);
  if (!isObj(data)) throw new UserError(`${file}: a host profile must be a JSON or YAML object`, 'see docs/hosts.md for an example profile');
  c.keys(data, '', TOP_KEYS);
  const root = data;
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
