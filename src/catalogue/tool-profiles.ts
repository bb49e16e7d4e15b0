// A folder catalogue's tool profiles (tool-profiles.json): the extra tools a skill's `metadata.tool-profiles` names.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.js';
import { readJsonFile } from '../jsonfile.js';
import type { ToolDeclaration } from '../types.js';
import { isPlainObject } from './input.js';
import { displayPath } from './paths.js';

export const TOOL_PROFILES_FILE = 'tool-profiles.json';

export async function readToolProfiles(root: string): Promise<Record<string, ToolDeclaration[]>> {
  const file = path.join(root, TOOL_PROFILES_FILE);
  if (!existsSync(file)) return {};
  const fix = 'write {"profiles": {"<profile>": [{"name": ..., "description": ..., "parameters": {JSON Schema}}]}}';
  const data = await readJsonFile(file, { shown: displayPath(file), what: 'the tool profiles', readFix: 'check the file permissions', fix });
  const profiles = (data as { profiles?: unknown } | null)?.profiles;
  if (!isPlainObject(profiles)) throw new UserError(`${displayPath(file)}: field "profiles" is missing or not an object`, fix);
  const declarations = (profile: string, tools: unknown): ToolDeclaration[] => {
    if (!Array.isArray(tools)) throw new UserError(`${displayPath(file)}: profiles.${profile} is not a list of tool declarations`, fix);
    return tools.map((t, i) => {
      const where = `${displayPath(file)}: profiles.${profile}[${i}]`;
      if (!isPlainObject(t)) throw new UserError(`${where} is not an object`, fix);
      if (typeof t.name !== 'string' || t.name === '') throw new UserError(`${where}.name is missing or not a string`, fix);
      if (typeof t.description !== 'string') throw new UserError(`${where}.description is missing or not a string`, fix);
      const parameters = t.parameters ?? { type: 'object', properties: {} };
      if (!isPlainObject(parameters)) throw new UserError(`${where}.parameters is not a JSON Schema object`, fix);
      return { name: t.name, description: t.description, parameters };
    });
  };
  // fromEntries, not assignments: out["__proto__"] = [...] would set the object's prototype instead of a profile.
  return Object.fromEntries(Object.entries(profiles).map(([profile, tools]) => [profile, declarations(profile, tools)]));
}
