// `skillbench init <name>`: a spec-valid skill skeleton; never overwrites anything.
import { Command } from 'commander';
import { UserError } from '../errors.js';

interface InitOptions {
  dir: string;
}

export function register(program: Command): void {
  program
    .command('init')
    .description('create a spec-valid skill skeleton: SKILL.md with a description template, empty scripts/ references/ assets/')
    .argument('<name>', 'skill name: 1-64 lowercase letters, digits and single hyphens (also the folder name)')
    .option('--dir <dir>', 'catalogue folder to create the skill in', 'skills')
    .addHelpText('after', '\nExample:\n  $ skillbench init invoice-matcher --dir skills\n  $ skillbench validate skills')
    .action(async (name: string, opts: InitOptions) => {
      const { checkName } = await import('../validate.js');
      const issue = checkName(name);
      if (issue) throw new UserError(`skill name "${name}" ${issue}`, 'use 1-64 lowercase letters, digits and single hyphens, e.g. `invoice-matcher`');
      const created = await createSkeleton(name, opts.dir);
      for (const f of created) console.log(`created ${f}`);
      console.log(`Next: fill in the description and the instructions in ${created[0]}, then run \`skillbench validate ${opts.dir}\`.`);
    });
}

/** Sub-folders of the skeleton (kept in git by an empty .gitkeep, which the catalogue does not list as a resource). */
const FOLDERS = ['scripts', 'references', 'assets'];

function skillTemplate(name: string): string {
  const title = name
    .split('-')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
  return `---
name: ${name}
description: |-
  TODO: what this skill does, in one sentence (the model reads this to decide).
  Use when the user asks to TODO (list the words users really write, in each language they use).
  Not for: TODO (requests that look similar but belong to another skill, or to no skill).
---

# ${title}

## When this applies
TODO: the situations this skill is for, and how to tell them from near misses.

## Steps
1. TODO: the first thing to do.
2. TODO: read \`references/...\` when the details matter (keep this file short; put long material there).
3. TODO: run \`scripts/...\` for anything that must be computed exactly.

## Output
TODO: what the answer looks like (a template can live in \`assets/\`).
`;
}

/** mkdir -p that answers under /proc too (see fsutil's mkdirp); every failure is one line naming --dir. */
async function makeCatalogueDir(dir: string): Promise<void> {
  const { mkdirp, NotAFolderError } = await import('../fsutil.js');
  const path = await import('node:path');
  try {
    await mkdirp(dir);
  } catch (err) {
    if (err instanceof NotAFolderError) throw new UserError(`${err.path === path.resolve(dir) ? dir : err.path} is a file, not a folder`, 'choose another --dir');
    throw new UserError(`${dir}: cannot create the catalogue folder (${(err as { code?: string }).code ?? String(err)})`, 'choose another --dir');
  }
}

/** Creates <dir>/<name>/ with SKILL.md and the empty sub-folders; refuses when the folder already exists. */
async function createSkeleton(name: string, dir: string): Promise<string[]> {
  const fs = await import('node:fs/promises');
  const path = await import('node:path');
  const skillDir = path.join(dir, name);
  await makeCatalogueDir(dir);
  try {
    await fs.mkdir(skillDir); // not recursive: fails when it exists, so nothing is ever overwritten
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'EEXIST') throw new UserError(`${skillDir} already exists; refusing to overwrite it`, 'choose another name, or remove the folder first');
    throw new UserError(`${skillDir}: cannot create the skill folder (${code ?? String(err)})`, 'check --dir and its permissions');
  }
  const skillFile = path.join(skillDir, 'SKILL.md');
  await fs.writeFile(skillFile, skillTemplate(name), { flag: 'wx' });
  const created = [skillFile];
  for (const f of FOLDERS) {
    await fs.mkdir(path.join(skillDir, f));
    await fs.writeFile(path.join(skillDir, f, '.gitkeep'), '', { flag: 'wx' });
    created.push(path.join(skillDir, f) + path.sep);
  }
  return created;
}
