// Declarations of the skill tools the model calls (progressive disclosure: the host's loading tool, then the level-3
// tools), and of the tool profiles a catalogue declares in tool-profiles.json (tools a skill unlocks once loaded).
import { compareStrings } from './catalogue.js';
import { UserError } from './errors.js';
import { loadBuiltin } from './hosts/profile.js';
import { loadingToolDeclaration } from './hosts/request.js';
import { visible } from './prompt.js';
import type { Catalogue, Skill, ToolDeclaration } from './types.js';

export const ACTIVATE_SKILL = 'activate_skill';
export const READ_SKILL_FILE = 'read_skill_file';
export const RUN_SKILL_SCRIPT = 'run_skill_script';

/** activate_skill with the names of the skills the model may load: the generic host's loading tool. */
export function activateSkillTool(names: string[]): ToolDeclaration {
  return loadingToolDeclaration({ ...loadBuiltin('generic'), origin: 'built-in' }, [...names].sort(compareStrings));
}

/** The level-3 tools, the same under every host: read_skill_file(name, path) and run_skill_script(name, path, args). */
export function levelThreeTools(skills: Skill[]): ToolDeclaration[] {
  const names = visible(skills).map((s) => s.name);
  const skillName = { type: 'string', enum: names, description: 'name of a loaded skill' };
  return [
    {
      name: READ_SKILL_FILE,
      description: "Read one of a loaded skill's files (a path listed in its <skill_resources>).",
      parameters: {
        type: 'object',
        properties: { name: skillName, path: { type: 'string', description: 'relative path inside the skill folder, e.g. references/policy.md' } },
        required: ['name', 'path'],
      },
    },
    {
      name: RUN_SKILL_SCRIPT,
      description: "Run one of a loaded skill's scripts (a path under scripts/) in a sandbox and return its output.",
      parameters: {
        type: 'object',
        properties: {
          name: skillName,
          path: { type: 'string', description: 'relative path of the script, e.g. scripts/check_expenses.mjs' },
          args: { type: 'array', items: { type: 'string' }, description: 'command-line arguments' },
        },
        required: ['name', 'path'],
      },
    },
  ];
}

/**
 * The agent loop's skill tools: the host's loading tool and other tools (from its frame; the generic host's
 * activate_skill when none is given), then read_skill_file and run_skill_script.
 */
export function skillToolDeclarations(skills: Skill[], hostTools?: ToolDeclaration[]): ToolDeclaration[] {
  const first = hostTools ?? [activateSkillTool(visible(skills).map((s) => s.name))];
  const taken = new Set(first.map((t) => t.name));
  return [...first, ...levelThreeTools(skills).filter((t) => !taken.has(t.name))];
}

/** The tools of the given profiles (in the order given, first declaration of a name wins). */
export function profileToolDeclarations(catalogue: Catalogue, profiles: string[]): ToolDeclaration[] {
  const out: ToolDeclaration[] = [];
  const seen = new Set<string>();
  for (const p of profiles) {
    const tools = Object.hasOwn(catalogue.toolProfiles, p) ? catalogue.toolProfiles[p] : undefined;
    if (!tools) {
      const known = Object.keys(catalogue.toolProfiles).sort(compareStrings);
      throw new UserError(
        `tool profile "${p}" is not declared in ${catalogue.kind === 'folder' ? `${catalogue.source}/tool-profiles.json` : 'this catalogue'}`,
        known.length ? `use one of ${known.join(', ')}` : 'declare it in <catalogue>/tool-profiles.json',
      );
    }
    for (const t of tools) {
      if (seen.has(t.name)) continue;
      seen.add(t.name);
      out.push(t);
    }
  }
  return out;
}

/** Every declared profile's tools, profiles in name order: the registry with everything expanded. */
export function allProfileToolDeclarations(catalogue: Catalogue): ToolDeclaration[] {
  return profileToolDeclarations(catalogue, Object.keys(catalogue.toolProfiles).sort(compareStrings));
}
