// What an eval-trigger run is measured on, loaded and checked before anything is computed: the catalogue, the
// request set (a file in any accepted shape, or a folder of per-skill eval sets), and the --calibrate set.
// Every mistake is a UserError naming the file and the field: a --skill that is not in the catalogue, a --skill with
// a file in skillbench's own format, a gold, target or candidate name the catalogue does not have, a calibration set
// with no positives or no negatives.
import path from 'node:path';
import { existsSync, statSync } from 'node:fs';
import { UserError } from './errors.js';
import type { Catalogue, EvalRequest, Skill } from './types.js';
import type { SkillEvalSet } from './skill-evals.js';

export interface EvalInputs {
  catalogue: Catalogue;
  /** The selectable skills (every state but `never`). */
  skills: Skill[];
  requests: EvalRequest[];
  calibration?: EvalRequest[];
  /** calibration requests (same text) that are also scored: the calibration is in-sample. */
  calibrationShared?: number;
  skillsPath: string;
  requestsPath: string;
  /** The per-skill eval sets, when the requests come from a folder of them. */
  evalSets?: SkillEvalSet[];
}

export interface EvalInputOptions {
  skills?: string;
  requests?: string;
  skill?: string;
  calibrate?: string;
  /**
   * --skill names the skill a command is about (improve), not only the skill of a skill-creator file: a file in
   * skillbench's own format is read as it is (its gold fields stand), and a folder of per-skill eval sets is read
   * whole (every skill's requests compete).
   */
  skillAsTarget?: boolean;
}

/** Resolves an input path against the working directory; a missing default gets a UserError saying which option to pass. */
export function resolveInput(given: string | undefined, fallback: string, option: string, what: string): string {
  const p = path.resolve(given ?? fallback);
  if (given === undefined && !existsSync(p)) {
    throw new UserError(`no ${fallback} in ${process.cwd()}: ${what} not found`, `pass ${option} PATH`);
  }
  return p;
}

/** Loads and checks every input; `notice` gets the one-line notes (which eval sets were found, which skills have none). */
export async function loadEvalInputs(opts: EvalInputOptions, notice: (line: string) => void = () => undefined): Promise<EvalInputs> {
  const { defaultSkillsPath } = await import('./skill-folders.js');
  const skillsPath = resolveInput(opts.skills, await defaultSkillsPath(), '--skills', 'the skill catalogue (a folder of SKILL.md files or a JSON file)');
  const [{ loadCatalogue, assertUsable, catalogueNote }, { selectableSkills }] = await Promise.all([import('./catalogue.js'), import('./selectors/index.js')]);
  const catalogue = await loadCatalogue(skillsPath);
  assertUsable(catalogue);
  const folders = catalogueNote(catalogue);
  if (folders) notice(folders);
  const skills = selectableSkills(catalogue.skills);
  if (opts.skill !== undefined) checkSkillOption(opts.skill, skills, catalogue);

  const requestsPath = await requestsPathOf(opts, catalogue, notice);
  const shown = opts.requests ?? path.relative(process.cwd(), requestsPath);
  const main = await loadRequestInput(requestsPath, shown, skills, catalogue, opts.skill, notice, !opts.skillAsTarget, Boolean(opts.skillAsTarget));
  if (!main.requests.length) throw new UserError(`${shown}: no requests`, 'add requests to the file');
  const inputs: EvalInputs = { catalogue, skills, requests: main.requests, skillsPath, requestsPath, evalSets: main.evalSets };
  if (opts.calibrate) {
    const calibration = (await loadRequestInput(path.resolve(opts.calibrate), opts.calibrate, skills, catalogue, opts.skill, () => undefined, false)).requests;
    checkCalibrationSet(calibration, opts.calibrate);
    const { sharedRequests } = await import('./requests.js');
    inputs.calibration = calibration;
    inputs.calibrationShared = sharedRequests(calibration, main.requests);
  }
  return inputs;
}

/** --skill must name a selectable skill of the catalogue (said before any request file is read). */
function checkSkillOption(skill: string, skills: Skill[], catalogue: Catalogue): void {
  if (skills.some((s) => s.name === skill)) return;
  const names = skills.map((s) => s.name);
  const never = catalogue.skills.some((s) => s.name === skill);
  throw new UserError(
    `--skill ${skill}: ${never ? 'that skill is marked never (metadata.state) and cannot be selected' : 'no skill of that name'} in the catalogue ${path.relative(process.cwd(), catalogue.source) || '.'}`,
    `name one of its ${names.length} skills: ${names.slice(0, 8).join(', ')}${names.length > 8 ? ', ...' : ''}`,
  );
}

/**
 * The request set's path: --requests as given (a file, or a folder of per-skill eval sets); else ./requests.json;
 * else, for a folder catalogue whose skills keep their own eval sets, the catalogue folder itself.
 */
async function requestsPathOf(opts: EvalInputOptions, catalogue: Catalogue, notice: (line: string) => void): Promise<string> {
  if (opts.requests !== undefined || existsSync(path.resolve('requests.json'))) return resolveInput(opts.requests, 'requests.json', '--requests', 'the request set');
  if (catalogue.kind === 'folder') {
    const { findSkillEvalFiles } = await import('./skill-evals.js');
    if ((await findSkillEvalFiles(catalogue.source)).length) {
      notice(`skillbench: no requests.json here: scoring the per-skill eval sets of ${path.relative(process.cwd(), catalogue.source) || '.'} (<skill>/evals/trigger-evals.json)`);
      return catalogue.source;
    }
  }
  throw new UserError(`no requests.json in ${process.cwd()}: the request set not found`,
    'pass --requests PATH (a request file, or a folder whose skills keep evals/trigger-evals.json)');
}

async function loadRequestInput(
  p: string,
  shown: string,
  skills: Skill[],
  catalogue: Catalogue,
  skill: string | undefined,
  notice: (line: string) => void,
  refuseSkillForOwn = true,
  everySet = false,
): Promise<{ requests: EvalRequest[]; evalSets?: SkillEvalSet[] }> {
  const { checkRequestNames, loadRequestSet } = await import('./requests.js');
  const names = skills.map((s) => s.name);
  if (isDirectory(p)) {
    const { loadSkillEvalSets } = await import('./skill-evals.js');
    const found = await loadSkillEvalSets(p, skills, { only: everySet ? undefined : skill });
    const counts = found.sets.map((s) => `${s.skill} ${s.positives}+${s.negatives}`).join(', ');
    notice(`skillbench: ${found.sets.length} per-skill eval set${found.sets.length === 1 ? '' : 's'} (positives+negatives): ${counts}`);
    if (found.without.length && (skill === undefined || everySet)) {
      notice(`skillbench: no eval set for ${found.without.length} skill${found.without.length === 1 ? '' : 's'} (still in the catalogue, competing for every request): ${found.without.slice(0, 8).join(', ')}${found.without.length > 8 ? ', ...' : ''}`);
    }
    checkRequestNames(found.requests, names, shown);
    return { requests: found.requests, evalSets: found.sets };
  }
  const set = await loadRequestSet(p, { skill, refuseSkillForOwn });
  if (set.skill !== undefined && set.skillFrom === 'skill_name' && !names.includes(set.skill)) {
    throw new UserError(
      `${shown}: field "skill_name" names "${set.skill}", which is not a selectable skill of the catalogue ${path.relative(process.cwd(), catalogue.source) || '.'}`,
      'fix "skill_name", or pass the --skills catalogue this eval set was written for',
    );
  }
  checkRequestNames(set.requests, names, shown);
  return { requests: set.requests };
}

/**
 * A threshold chosen on a set with no positives can only be "load nothing", on one with no negatives only "load on
 * every request": refused, naming the side that is missing.
 */
export function checkCalibrationSet(calibration: EvalRequest[], file: string): void {
  const positives = calibration.filter((r) => r.gold !== null).length;
  const negatives = calibration.length - positives;
  if (positives && negatives) return;
  const missing = positives === 0 ? 'no positives (requests with a gold skill, or should_trigger: true)' : 'no negatives (requests with gold null, or should_trigger: false)';
  const only = positives === 0 ? '"load nothing"' : '"load the top skill on every request"';
  throw new UserError(`--calibrate ${file}: the calibration set has ${missing}: the only threshold it can choose is ${only}`,
    'give --calibrate a set with both requests that should load a skill and requests that should not');
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
