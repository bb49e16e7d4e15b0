// Loads a skill catalogue: a folder (every SKILL.md at any depth) or a JSON list [{name, description, ...}]; a path
// to one SKILL.md loads that skill's folder.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.js';
import { defaultSkillsPath, SKILL_FILE } from '../skill-folders.js';
import type { Catalogue } from '../types.js';
import { catalogueNote, loadFolder } from './folder.js';
import { CATALOGUE_FIX, errCode } from './input.js';
import { loadJson } from './json.js';
import { assertUsable } from './problems.js';

export async function loadCatalogue(catPath: string): Promise<Catalogue> {
  const abs = path.resolve(catPath);
  let stat;
  try {
    stat = await fs.stat(abs);
  } catch (err) {
    throw new UserError(`${catPath}: cannot read the catalogue (${errCode(err)})`, CATALOGUE_FIX);
  }
  if (stat.isDirectory()) return loadFolder(abs, catPath);
  if (path.basename(abs) === SKILL_FILE) return loadFolder(path.dirname(abs), path.dirname(catPath)); // one skill, named by its file
  return loadJson(abs, catPath);
}

/**
 * The catalogue a command works on: --skills, else the working folder's default (its standard skill folders, else
 * ./skills); refused while a skill cannot be loaded; the folders read are said through `notice`. `validate` loads
 * with loadCatalogue instead: reporting the skills that cannot be loaded is its job.
 */
export async function loadUsableCatalogue(skills: string | undefined, notice: (line: string) => void): Promise<{ catalogue: Catalogue; path: string }> {
  const catPath = skills ?? (await defaultSkillsPath());
  const catalogue = await loadCatalogue(catPath);
  assertUsable(catalogue);
  const note = catalogueNote(catalogue);
  if (note) notice(note);
  return { catalogue, path: catPath };
}
