// Loads a skill catalogue: a folder (every SKILL.md at any depth) or a JSON list [{name, description, ...}]; a path
// to one SKILL.md loads that skill's folder.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.js';
import { SKILL_FILE } from '../skill-folders.js';
import type { Catalogue } from '../types.js';
import { loadFolder } from './folder.js';
import { CATALOGUE_FIX, errCode } from './input.js';
import { loadJson } from './json.js';

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
