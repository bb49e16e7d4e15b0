// The config file: the options a CI job repeats (skills, requests, host, selectors, gates, outputs), in
// skillbench.config.json or skillbench.config.yaml, found upward from the working folder or named with -c FILE.
// Every key is a command-line flag without its dashes; a flag given on the command line wins. The file is validated
// against schemas/config.schema.json (the same file editors use), so an error names the field and the fix.
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Command } from 'commander';
import { UserError } from './errors.js';

export const CONFIG_FILES = ['skillbench.config.json', 'skillbench.config.yaml', 'skillbench.config.yml'] as const;

export type ConfigData = Record<string, unknown>;

export interface LoadedConfig {
  /** Absolute path. */
  file: string;
  /** Relative paths in the file are relative to this folder. */
  dir: string;
  data: ConfigData;
}

// ---------------------------------------------------------------- finding and reading

/**
 * The config file of the working folder or the nearest folder above it; the search stops at a project's root (a
 * folder holding `.git`), so a checkout never picks up a file from the folders around it. Null when there is none.
 */
export function findConfig(cwd = process.cwd()): string | null {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const found = CONFIG_FILES.map((name) => path.join(dir, name)).filter((f) => existsSync(f));
    if (found.length > 1) {
      throw new UserError(`${found.map((f) => path.basename(f)).join(' and ')} are both in ${dir}`, 'keep one config file');
    }
    if (found.length === 1) return found[0]!;
    if (existsSync(path.join(dir, '.git')) || path.dirname(dir) === dir) return null;
  }
}

export async function loadConfig(file: string, shown = file): Promise<LoadedConfig> {
  let text: string;
  try {
    text = (await readFile(file, 'utf8')).replace(/^\uFEFF/, '');
  } catch (err) {
    throw new UserError(`${shown}: cannot read the config file (${(err as NodeJS.ErrnoException).code ?? String(err)})`, 'check the path given to -c, or its permissions');
  }
  const yaml = !file.toLowerCase().endsWith('.json');
  const data = yaml ? parseYaml(text, shown) : parseJson(text, shown);
  if (data === null || data === undefined) return { file: path.resolve(file), dir: path.dirname(path.resolve(file)), data: {} }; // an empty file
  validateConfig(data, { shown, text, yaml });
  return { file: path.resolve(file), dir: path.dirname(path.resolve(file)), data: data as ConfigData };
}

function parseJson(text: string, shown: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UserError(`${shown}: not valid JSON (${(err as Error).message})`, 'fix the JSON syntax, or write the file as YAML (skillbench.config.yaml)');
  }
}

function parseYaml(text: string, shown: string): unknown {
  try {
    return yamlEngine().parse(text);
  } catch (err) {
    const e = err as { reason?: string; message?: string; mark?: { line?: number } };
    const line = typeof e.mark?.line === 'number' ? `:${e.mark.line + 1}` : '';
    throw new UserError(`${shown}${line}: not valid YAML: ${e.reason ?? String(e.message).split('\n')[0]}`, 'fix the YAML syntax (indent with spaces; quote values that contain `: ` or `#`)');
  }
}

/** js-yaml's safe loader, as gray-matter carries it (the catalogue reads SKILL.md frontmatter with the same one). */
function yamlEngine(): { parse: (s: string) => unknown } {
  // gray-matter is a CommonJS package already loaded by the catalogue; its YAML engine runs no code.
  const matter = requireCjs('gray-matter') as { engines: { yaml: { parse: (s: string) => unknown } } };
  return matter.engines.yaml;
}

/** CommonJS packages (gray-matter, ajv), resolved from this module: the package's own dependencies. */
function requireCjs(id: string): unknown {
  return createRequire(import.meta.url)(id);
}

// ---------------------------------------------------------------- validation

interface Where {
  shown: string;
  text: string;
  yaml: boolean;
}

interface SchemaNode {
  description?: string;
  examples?: unknown[];
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  enum?: unknown[];
}

interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
  parentSchema?: SchemaNode;
  data?: unknown;
}

type Validator = ((data: unknown) => boolean) & { errors?: AjvError[] | null };

let compiled: Validator | undefined;

/** schemas/config.schema.json, the file the package publishes for editors. */
export const CONFIG_SCHEMA_PATH = new URL('../schemas/config.schema.json', import.meta.url);

function validator(): Validator {
  if (compiled) return compiled;
  const Ajv = requireCjs('ajv') as new (opts: object) => { compile: (schema: object) => Validator };
  const schema = JSON.parse(readFileSync(CONFIG_SCHEMA_PATH, 'utf8')) as object;
  compiled = new Ajv({ allErrors: false, verbose: true, strict: true, allowUnionTypes: true }).compile(schema);
  return compiled;
}

/** Throws a UserError naming the first bad field, what it must be, and a fix built from the schema's own example. */
export function validateConfig(data: unknown, where: Where): void {
  const validate = validator();
  if (validate(data)) return;
  // With anyOf, the branches' errors come first and the anyOf error last: the last one speaks for the field.
  const e = validate.errors![validate.errors!.length - 1]!;
  const field = e.instancePath.split('/').slice(1).map(unescapePointer);
  if (e.keyword === 'additionalProperties') {
    const extra = String(e.params.additionalProperty);
    const known = Object.keys(e.parentSchema?.properties ?? {}).filter((k) => k !== '$schema');
    const near = closest(extra, known);
    const inside = field.length ? ` of \`${dotted(field)}\`` : '';
    throw new UserError(
      `${where.shown}${lineSuffix(where, [...field, extra])}: \`${dotted([...field, extra])}\` is not a field${inside} of the config`,
      near ? `did you mean \`${near}\`? (fields: ${known.join(', ')})` : `the fields${inside} are: ${known.join(', ')}`,
    );
  }
  if (field.length === 0) throw new UserError(`${where.shown}: the config must be a mapping of fields (${e.message ?? 'invalid'})`, 'write `skills: skills` and the other fields, one per line');
  throw new UserError(
    `${where.shown}${lineSuffix(where, field)}: field \`${dotted(field)}\` ${explain(e)} (got ${shownValue(e.data)})`,
    fixFor(field, where.yaml),
  );
}

/** `gates.max-wrong-load`, `outputs[0]`. */
function dotted(field: string[]): string {
  return field.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i ? `.${s}` : s)).join('');
}

function explain(e: AjvError): string {
  switch (e.keyword) {
    case 'type':
      return `must be ${typeWords(e.params.type)}`;
    case 'enum':
      return `must be one of ${(e.params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'anyOf':
      return `must be ${e.parentSchema?.description?.split(':').slice(-1)[0]?.replace(/\s*\(--[\w-]+\)$/, '').trim() ?? 'a valid value'}`;
    case 'minLength':
    case 'minItems':
      return 'must not be empty';
    case 'pattern':
      return e.parentSchema?.description ? `must be ${e.parentSchema.description}` : 'is not a value this field accepts';
    case 'uniqueItems':
      return 'lists the same value twice';
    default:
      return e.message ?? 'is not valid';
  }
}

function typeWords(type: unknown): string {
  const words: Record<string, string> = { string: 'text', number: 'a number', integer: 'a whole number', boolean: 'true or false', array: 'a list', object: 'a mapping of fields' };
  const list = Array.isArray(type) ? type : String(type).split(',');
  return list.map((t) => words[String(t)] ?? String(t)).join(' or ');
}

/** The schema of each level of a field's path (lists' items skipped): its own, then its parents'. */
function schemasAt(field: string[]): { key: string; node: SchemaNode }[] {
  let node: SchemaNode | undefined = JSON.parse(readFileSync(CONFIG_SCHEMA_PATH, 'utf8')) as SchemaNode;
  const out: { key: string; node: SchemaNode }[] = [];
  for (const part of field) {
    if (/^\d+$/.test(part)) continue;
    const next: SchemaNode | undefined = node?.properties?.[part] ?? (typeof node?.additionalProperties === 'object' ? node.additionalProperties : undefined);
    if (!next) break;
    out.unshift({ key: part, node: next });
    node = next;
  }
  return out;
}

/** An example to copy: the field's own, or its nearest parent's (a map's values have none of their own). */
function fixFor(field: string[], yaml: boolean): string {
  const levels = schemasAt(field);
  const withExample = levels.find((l) => l.node.examples?.length);
  const described = levels.find((l) => l.node.description);
  if (!withExample) return described ? `${described.key}: ${described.node.description}` : `fix \`${dotted(field)}\``;
  const { key, node } = withExample;
  const example = node.examples![0];
  const sample = yaml ? `\`${key}: ${yamlValue(example)}\`` : `\`"${key}": ${JSON.stringify(example)}\``;
  return `write it like ${sample}${node.description ? ` (${node.description})` : ''}`;
}

function yamlValue(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map((x) => yamlValue(x)).join(', ')}]`;
  if (v !== null && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${k}: ${yamlValue(x)}`).join(', ')}}`;
  return String(v);
}

function shownValue(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/** `:line` of the field in the file, when it can be found (the last key of the path, after its parents' lines). */
function lineSuffix(where: Where, field: string[]): string {
  const lines = where.text.split('\n');
  let from = 0;
  let found = -1;
  for (const part of field.filter((s) => !/^\d+$/.test(s))) {
    const re = where.yaml ? new RegExp(`^\\s*['"]?${escapeRegExp(part)}['"]?\\s*:`) : new RegExp(`"${escapeRegExp(part)}"\\s*:`);
    const i = lines.findIndex((l, n) => n >= from && re.test(l));
    if (i < 0) break;
    found = i;
    from = i + 1;
  }
  return found < 0 ? '' : `:${found + 1}`;
}

function unescapePointer(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The known name nearest to a misspelt one (edit distance at most 3), or undefined. */
export function closest(word: string, known: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 4;
  for (const k of known) {
    const d = editDistance(word.toLowerCase(), k.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const here = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = here;
    }
  }
  return row[b.length]!;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// ---------------------------------------------------------------- applying it to a command

interface Mapping {
  /** Path of the key in the file. */
  key: string[];
  /** Attribute name of the command option it sets. */
  option: string;
  /** Only these commands take it (default: every command with the option). */
  commands?: string[];
  /** The value is a path (or a list of paths), relative to the config file's folder. */
  path?: boolean | 'if-file';
  /** How the option holds the value, when not as written. */
  value?: (v: unknown) => unknown;
}

const joinList = (v: unknown) => (Array.isArray(v) ? v.join(',') : v);

/** Each config key and the option it stands for. */
export const CONFIG_KEYS: readonly Mapping[] = [
  { key: ['skills'], option: 'skills', path: true },
  { key: ['requests'], option: 'requests', path: true },
  { key: ['skill'], option: 'skill' },
  { key: ['host'], option: 'host', path: 'if-file' },
  { key: ['listing-budget'], option: 'listingBudget' },
  { key: ['system-prompt'], option: 'systemPrompt', path: true },
  { key: ['selectors'], option: 'selectors', value: joinList },
  { key: ['format'], option: 'format' },
  { key: ['k'], option: 'k' },
  { key: ['prefilter'], option: 'prefilter' },
  { key: ['threshold'], option: 'threshold', value: String },
  { key: ['calibrate'], option: 'calibrate', path: true },
  { key: ['cv'], option: 'cv', value: String },
  { key: ['runs'], option: 'runs' },
  { key: ['provider'], option: 'provider' },
  { key: ['model'], option: 'model' },
  { key: ['base-url'], option: 'baseUrl' },
  { key: ['embeddings'], option: 'embeddings' },
  { key: ['embedding-model'], option: 'embeddingModel' },
  { key: ['cache-dir'], option: 'cacheDir', path: true },
  { key: ['cache'], option: 'cache' },
  { key: ['cache-write'], option: 'cacheWrite' },
  { key: ['concurrency'], option: 'concurrency' },
  { key: ['max-cost'], option: 'maxCost' },
  { key: ['thinking'], option: 'thinking', value: String },
  { key: ['timeout'], option: 'timeout' },
  { key: ['max-retry-time'], option: 'maxRetryTime' },
  { key: ['max-error-rate'], option: 'maxErrorRate' },
  { key: ['batch'], option: 'batch' },
  { key: ['batch-wait'], option: 'batchWait' },
  { key: ['batch-retry'], option: 'batchRetry' },
  { key: ['gates', 'max-wrong-load'], option: 'maxWrongLoad' },
  { key: ['gates', 'max-needless-load'], option: 'maxNeedlessLoad' },
  { key: ['gates', 'baseline'], option: 'baseline', path: true },
  { key: ['gates', 'alpha'], option: 'gateAlpha' },
  { key: ['gates', 'min-effect'], option: 'gateMinEffect' },
  { key: ['gates', 'min-requests'], option: 'gateMinRequests' },
  { key: ['gates', 'skill-loss'], option: 'gateSkillLoss' },
  { key: ['gates', 'min-pass-rate'], option: 'minPassRate' },
  // The outputs of the CI job: written by eval-trigger, not by every command that can write files.
  { key: ['outputs'], option: 'output', commands: ['eval-trigger'], path: true },
  { key: ['validate', 'strict'], option: 'strict', commands: ['validate'] },
  { key: ['validate', 'rules'], option: 'rule', commands: ['validate'], value: (v) => Object.entries(v as Record<string, string>).map(([k, s]) => `${k}=${s}`) },
];

export interface Applied {
  /** Config keys that set an option of this command (flags given on the command line were left as they were). */
  used: string[];
  /** Config keys no command of this skillbench reads. */
  unused: string[];
}

/**
 * Sets, on the command about to run, every option the config holds and the command line did not give. Paths are
 * resolved against the config file's folder. `validate [path]` takes `skills` as its argument.
 */
export function applyConfig(config: LoadedConfig, command: Command, all: readonly Command[]): Applied {
  const used: string[] = [];
  const unused: string[] = [];
  for (const m of CONFIG_KEYS) {
    const raw = valueAt(config.data, m.key);
    if (raw === undefined) continue;
    const name = m.key.join('.');
    const takes = (c: Command) => (m.commands ? m.commands.includes(c.name()) : true) && (hasOption(c, m.option) || takesSkillsArgument(c, m));
    if (!all.some(takes)) {
      unused.push(name);
      continue;
    }
    if (!takes(command)) continue;
    const value = toOptionValue(m, raw, config.dir);
    if (takesSkillsArgument(command, m)) {
      if (command.processedArgs[0] === undefined) {
        command.processedArgs[0] = value;
        used.push(name);
      }
      continue;
    }
    if (command.getOptionValueSource(m.option) === 'cli') continue;
    command.setOptionValueWithSource(m.option, value, 'config');
    used.push(name);
  }
  return { used, unused };
}

function toOptionValue(m: Mapping, raw: unknown, dir: string): unknown {
  const v = m.value ? m.value(raw) : raw;
  if (!m.path) return v;
  const resolve = (p: string) => (m.path === 'if-file' && !/[\\/]|\.(json|ya?ml)$/i.test(p) ? p : path.resolve(dir, p));
  return Array.isArray(v) ? v.map((p) => resolve(String(p))) : resolve(String(v));
}

function valueAt(data: ConfigData, key: string[]): unknown {
  let v: unknown = data;
  for (const k of key) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}

function hasOption(command: Command, attribute: string): boolean {
  return command.options.some((o) => o.attributeName() === attribute);
}

/** `validate [path]`: the catalogue is its argument, not an option. */
function takesSkillsArgument(command: Command, m: Mapping): boolean {
  return m.option === 'skills' && command.name() === 'validate';
}
