// Executes the skill tools the model calls: activation (level 2), whitelisted file reads and sandboxed script runs
// (level 3), and the tools of the profiles a loaded skill unlocks. Whatever the model asks, a refusal is a tool
// result with isError set, never an exception: a hostile or confused model must not be able to end the run.
import { closeSync, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { join, posix } from 'node:path';
import { compareStrings } from './catalogue.js';
import { renderSkillContent } from './prompt.js';
import { isInside, runScript, type SandboxOptions, type ScriptResult } from './sandbox.js';
import { readCall } from './hosts/decision.js';
import type { HostFrame } from './hosts/request.js';
import { unservableFile } from './skill-files.js';
import { ACTIVATE_SKILL, READ_SKILL_FILE, RUN_SKILL_SCRIPT, profileToolDeclarations, skillToolDeclarations } from './tools.js';
import type { Catalogue, FunctionCall, Skill, ToolDeclaration, ToolResult } from './types.js';

export type HarnessMode = 'progressive' | 'load-all';

/** What a tool result brought into the conversation: a body (level 2), a file (level 3), script output (level 3),
 *  a simulated profile tool, or a refusal. */
export type ToolLevel = 'body' | 'resource' | 'script' | 'profile' | 'error';

export interface ExecutedTool {
  result: ToolResult;
  level: ToolLevel;
  /** The raw script result, for run_skill_script calls that ran. */
  script?: ScriptResult;
}

export interface LoaderOptions {
  mode?: HarnessMode;
  sandbox?: SandboxOptions;
  /** Bytes of a file returned by read_skill_file (and inlined in load-all mode); the rest is cut and marked. */
  maxResourceBytes?: number;
  /** The host whose loading tool (and other tools) the model is given; default: the generic host's activate_skill. */
  host?: HostFrame;
}

export const DEFAULT_MAX_RESOURCE_BYTES = 256 * 1024;

type Resolved = { ok: true; skill: Skill; rel: string; abs: string } | { ok: false; reason: string };

export class SkillLoader {
  readonly mode: HarnessMode;
  /** Skills activated in this conversation, in activation order (always-state skills are not listed). */
  readonly activated: string[] = [];
  private readonly byName = new Map<string, Skill>();

  constructor(
    readonly catalogue: Catalogue,
    private readonly options: LoaderOptions = {},
  ) {
    this.mode = options.mode ?? 'progressive';
    for (const s of catalogue.skills) if (s.state !== 'never') this.byName.set(s.name, s);
  }

  /** Skills the model can see (every state but never), in name order. */
  get visibleSkills(): Skill[] {
    return [...this.byName.values()].sort((a, b) => compareStrings(a.name, b.name));
  }

  /** Skills whose instructions are in the conversation: always-state ones, every one in load-all mode, and the activated. */
  loadedSkills(): Skill[] {
    if (this.mode === 'load-all') return this.visibleSkills;
    return this.visibleSkills.filter((s) => s.state === 'always' || this.activated.includes(s.name));
  }

  /** Tool profiles unlocked so far, in name order (declared ones only: an undeclared profile is a validation error). */
  unlockedProfiles(): string[] {
    const names = new Set(this.loadedSkills().flatMap((s) => s.toolProfiles));
    return [...names].filter((p) => Object.hasOwn(this.catalogue.toolProfiles, p)).sort(compareStrings);
  }

  /**
   * The tools of the next model call. Progressive: the three skill tools plus the tools of the profiles unlocked by
   * the skills loaded so far. Load-all: no activation or read tools (everything is already in the prompt), only
   * run_skill_script when some skill has a script, plus every visible skill's profile tools.
   */
  tools(): ToolDeclaration[] {
    const skills = this.visibleSkills;
    if (skills.length === 0) return [];
    const base = skillToolDeclarations(skills, this.options.host?.tools);
    const skillTools =
      this.mode === 'progressive' ? base : skills.some((s) => s.resources.some((r) => r.startsWith('scripts/'))) ? base.filter((t) => t.name === RUN_SKILL_SCRIPT) : [];
    const profileTools = profileToolDeclarations(this.catalogue, this.unlockedProfiles());
    const taken = new Set(skillTools.map((t) => t.name));
    return [...skillTools, ...profileTools.filter((t) => !taken.has(t.name))];
  }

  /**
   * The block that follows the stable prefix in the system prompt: which skills are loaded (name, version, tools
   * unlocked), one line each in name order, so it only changes when a skill is activated. Empty when none is.
   * The bodies themselves arrive once, as activate_skill results, and stay in the history.
   */
  loadedBlock(): string {
    if (this.mode !== 'progressive' || this.activated.length === 0) return '';
    const lines = this.visibleSkills
      .filter((s) => this.activated.includes(s.name))
      .map((s) => {
        const tools = profileToolDeclarations(this.catalogue, s.toolProfiles.filter((p) => Object.hasOwn(this.catalogue.toolProfiles, p))).map((t) => t.name);
        return `- ${s.name} (version ${s.hash})${tools.length ? `; tools unlocked: ${tools.join(', ')}` : ''}`;
      });
    const tool = this.options.host?.host.loading.tool.name ?? ACTIVATE_SKILL;
    return ['<loaded_skills>', `Skills already loaded in this conversation (their instructions are in the ${tool} results; do not load them again):`, ...lines, '</loaded_skills>'].join('\n');
  }

  /** Runs one tool call. Never throws: every refusal or failure comes back as an isError result for the model. */
  async execute(call: FunctionCall): Promise<ExecutedTool> {
    try {
      const frame = this.options.host;
      if (frame && call.name === frame.host.loading.tool.name) return this.hostLoad(frame, call);
      switch (call.name) {
        case ACTIVATE_SKILL:
          return this.activate(call);
        case READ_SKILL_FILE:
          return this.read(call);
        case RUN_SKILL_SCRIPT:
          return await this.run(call);
        default:
          return this.profileTool(call);
      }
    } catch (err) {
      return refusal(call, `${call.name} failed: ${(err as Error).message ?? String(err)}`);
    }
  }

  private activate(call: FunctionCall): ExecutedTool {
    if (this.mode === 'load-all') return refusal(call, 'activate_skill is not available: every skill is already in the system prompt');
    const skill = this.skillArg(call);
    if (typeof skill === 'string') return refusal(call, skill);
    return this.activateSkill(call, skill, renderSkillContent(skill));
  }

  /**
   * A call to the host's loading tool: a load as the host reads it activates the skill. A file-read host gets the
   * SKILL.md as its file tool would show it; anything else its file tool is asked for is refused (skillbench runs no
   * shell: the level-3 tools serve files and scripts).
   */
  private hostLoad(frame: HostFrame, call: FunctionCall): ExecutedTool {
    if (this.mode === 'load-all') return refusal(call, `${call.name} is not available: every skill is already in the system prompt`);
    const loading = frame.host.loading;
    if (loading.kind === 'tool' && (typeof call.args[loading.tool.argument] !== 'string' || call.args[loading.tool.argument] === '')) {
      return refusal(call, `missing argument "${loading.tool.argument}" (the skill name)`);
    }
    const reading = readCall(frame.host, call, this.visibleSkills);
    if (reading.kind === 'unknown') return refusal(call, `unknown skill "${reading.asked}"`);
    if (reading.kind === 'other') {
      return refusal(call, `skillbench simulates only reading a listed SKILL.md with ${call.name}; read a loaded skill's files with ${READ_SKILL_FILE} and run its scripts with ${RUN_SKILL_SCRIPT}`);
    }
    const skill = this.byName.get(reading.skill)!;
    const content = frame.host.loading.kind === 'file-read' && skill.dir ? readCapped(skill.file, this.options.maxResourceBytes ?? DEFAULT_MAX_RESOURCE_BYTES) : renderSkillContent(skill);
    return this.activateSkill(call, skill, content);
  }

  private activateSkill(call: FunctionCall, skill: Skill, content: string): ExecutedTool {
    if (skill.state === 'always') return ok(call, 'body', `Skill "${skill.name}" is always loaded: its instructions are in the system prompt.`);
    if (this.activated.includes(skill.name)) {
      return ok(call, 'body', `Skill "${skill.name}" is already loaded (version ${skill.hash}): its instructions are earlier in this conversation.`);
    }
    this.activated.push(skill.name);
    const unknown = skill.toolProfiles.filter((p) => !Object.hasOwn(this.catalogue.toolProfiles, p));
    const note = unknown.length ? `\n(tool profile${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} not declared in this catalogue: no tools added)` : '';
    return ok(call, 'body', content + note);
  }

  private read(call: FunctionCall): ExecutedTool {
    if (this.mode === 'load-all') return refusal(call, 'read_skill_file is not available: every file is already in the system prompt');
    const r = this.resolve(call.args.name, call.args.path);
    if (!r.ok) return refusal(call, r.reason);
    const notLoaded = this.notLoaded(r.skill);
    if (notLoaded) return refusal(call, notLoaded);
    return ok(call, 'resource', readCapped(r.abs, this.options.maxResourceBytes ?? DEFAULT_MAX_RESOURCE_BYTES));
  }

  private async run(call: FunctionCall): Promise<ExecutedTool> {
    const r = this.resolve(call.args.name, call.args.path);
    if (!r.ok) return refusal(call, r.reason);
    const notLoaded = this.notLoaded(r.skill);
    if (notLoaded) return refusal(call, notLoaded);
    if (!r.rel.startsWith('scripts/')) return refusal(call, `"${r.rel}" is not a script: only files under scripts/ can be run`);
    const args = scriptArgs(call.args.args);
    if (typeof args === 'string') return refusal(call, args);
    const result = await runScript(r.skill.dir!, r.rel, args, this.options.sandbox);
    const content = formatScriptResult(result);
    return { result: { callId: call.id, name: call.name, content, isError: result.exitCode !== 0 }, level: 'script', script: result };
  }

  /** Why a skill's files cannot be used yet (the tools say "a loaded skill"), or null: loaded means activated in this
   *  conversation, always loaded, or every skill in load-all mode. */
  private notLoaded(skill: Skill): string | null {
    if (this.mode === 'load-all' || skill.state === 'always' || this.activated.includes(skill.name)) return null;
    return `skill "${skill.name}" is not loaded: call activate_skill with name "${skill.name}" first, then use its files`;
  }

  /** Profile tools are declared so their token cost is measured; skillbench has no backend to call them with. */
  private profileTool(call: FunctionCall): ExecutedTool {
    const declared = this.tools().some((t) => t.name === call.name);
    if (!declared) return refusal(call, `unknown tool "${call.name}"`);
    return {
      result: {
        callId: call.id,
        name: call.name,
        content: `simulated tool "${call.name}": not connected (skillbench declares profile tools to measure their cost but has no backend for them). Arguments received: ${JSON.stringify(call.args)}`,
        isError: true,
      },
      level: 'profile',
    };
  }

  private skillArg(call: FunctionCall): Skill | string {
    const name = call.args.name;
    if (typeof name !== 'string' || name === '') return 'missing argument "name" (the skill name)';
    return this.byName.get(name) ?? `unknown skill "${name}"`;
  }

  /**
   * The whitelist: a path is served only when, normalised, it is one of the skill's listed resources (SKILL.md is
   * never one) and its real path stays inside the skill folder. Nothing is URL-decoded: `..%2F` is a literal name
   * that is not in the list.
   */
  resolve(name: unknown, rawPath: unknown): Resolved {
    if (typeof name !== 'string' || name === '') return { ok: false, reason: 'missing argument "name" (the skill name)' };
    const skill = this.byName.get(name);
    if (!skill) return { ok: false, reason: `unknown skill "${name}"` };
    if (typeof rawPath !== 'string' || rawPath === '') return { ok: false, reason: 'missing argument "path"' };
    if (rawPath.includes('\0')) return { ok: false, reason: 'path refused: it contains a NUL byte' };
    const slashed = rawPath.replace(/\\/g, '/');
    if (slashed.startsWith('/') || /^[A-Za-z]:\//.test(slashed)) return { ok: false, reason: `path refused: "${rawPath}" is absolute; give a path relative to the skill folder` };
    const rel = posix.normalize(slashed).replace(/^(\.\/)+/, '');
    if (rel === '..' || rel.startsWith('../')) return { ok: false, reason: `path refused: "${rawPath}" leaves the skill folder` };
    if (rel === 'SKILL.md') return { ok: false, reason: 'path refused: SKILL.md is loaded with activate_skill, not read as a file' };
    if (!skill.dir) return { ok: false, reason: `skill "${name}" has no files (it comes from a JSON catalogue)` };
    if (!skill.resources.includes(rel)) {
      if (/%2e|%2f|%5c|%00/i.test(rel)) return { ok: false, reason: `path refused: "${rawPath}" is URL-encoded; give the plain relative path` };
      return { ok: false, reason: `path refused: "${rel}" is not one of the files of skill "${name}" (${skill.resources.join(', ') || 'it has none'})` };
    }
    let root: string;
    let real: string;
    try {
      root = realpathSync(skill.dir);
      real = realpathSync(join(skill.dir, rel));
    } catch {
      return { ok: false, reason: `"${rel}" cannot be read (missing, or a dangling link)` };
    }
    if (!isInside(real, root) || real === root) return { ok: false, reason: `path refused: "${rel}" is a link that leaves the skill folder` };
    const refused = unservableFile(real);
    if (refused) return { ok: false, reason: `"${rel}" is not served: ${refused}` };
    return { ok: true, skill, rel, abs: real };
  }

  /** For load-all mode (renderLoadAll): a file's text under the same whitelist, or a bracketed note when refused. */
  readResource = (skill: Skill, path: string): string => {
    const r = this.resolve(skill.name, path);
    return r.ok ? readCapped(r.abs, this.options.maxResourceBytes ?? DEFAULT_MAX_RESOURCE_BYTES) : `[not included: ${r.reason}]`;
  };
}

/**
 * What the model gets from a script run: the status line, then each stream in a tag (plain text: JSON-escaping the
 * output would cost tokens and readability). No duration: the same run must give the same request, or cached replays
 * would miss.
 */
export function formatScriptResult(r: ScriptResult): string {
  const status = r.timedOut ? 'killed: the time limit was reached' : r.exitCode === null ? `killed by ${r.signal ?? 'a signal'}` : `exit code ${r.exitCode}`;
  const stream = (tag: string, text: string) => (text === '' ? `<${tag}></${tag}>` : `<${tag}>\n${text.replace(/\n$/, '')}\n</${tag}>`);
  return [status, stream('stdout', r.stdout), stream('stderr', r.stderr)].join('\n');
}

function ok(call: FunctionCall, level: ToolLevel, content: string): ExecutedTool {
  return { result: { callId: call.id, name: call.name, content }, level };
}

function refusal(call: FunctionCall, reason: string): ExecutedTool {
  return { result: { callId: call.id, name: call.name, content: `Error: ${reason}`, isError: true }, level: 'error' };
}

/** Script arguments: an array of strings (numbers and booleans accepted as their text), or absent. */
function scriptArgs(raw: unknown): string[] | string {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) return 'argument "args" must be an array of strings';
  const out: string[] = [];
  for (const a of raw) {
    if (typeof a === 'string') out.push(a);
    else if (typeof a === 'number' || typeof a === 'boolean') out.push(String(a));
    else return 'argument "args" must be an array of strings';
    if (out[out.length - 1]!.includes('\0')) return 'script arguments cannot contain NUL bytes';
  }
  return out;
}

/** A file's text, cut at maxBytes (marked); binary files are described, not shown. */
function readCapped(abs: string, maxBytes: number): string {
  const fd = openSync(abs, 'r');
  try {
    const size = fstatSync(fd).size;
    const buf = Buffer.alloc(Math.min(size, maxBytes));
    const n = readSync(fd, buf, 0, buf.length, 0);
    const bytes = buf.subarray(0, n);
    if (bytes.subarray(0, 8000).includes(0)) return `[binary file, ${size} bytes: not shown]`;
    const text = bytes.toString('utf8');
    return size > n ? `${text}\n[... file truncated: ${size - n} more bytes not shown]` : text;
  } finally {
    closeSync(fd);
  }
}
