// Set-up many test files share: a provider-free environment, and the small three-skill catalogue whose skills the
// offline selectors tell apart (PDF work, git, emails).
import { BASE_URL_VARS, KEY_VARS } from '../../src/providers/index.js';
import type { Skill } from '../../src/types.js';

/** Every provider key and SDK base-URL variable, removed from this process and so from the CLIs it spawns: no test
 *  reads a developer's key or reaches a real provider. */
export function clearProviderEnv(): void {
  for (const v of [...Object.values(KEY_VARS).flat(), ...Object.values(BASE_URL_VARS)]) delete process.env[v];
}

export const THREE_SKILLS = [
  { name: 'doc-extractor', description: 'Extract text and tables from PDF files, merge and split PDF documents, and fill PDF forms.' },
  { name: 'git-helper', description: 'Explain git errors, resolve merge conflicts, rewrite commit history and manage branches.' },
  { name: 'email-writer', description: 'Draft and polish professional emails: replies, follow-ups, apologies and announcements.' },
];

/** A loaded skill, as the catalogue would give it, without files on disk (`extra` overrides any field). */
export function testSkill(name: string, description: string, extra: Partial<Skill> = {}): Skill {
  return {
    name,
    description,
    body: `# ${name}\n`,
    category: '',
    file: `/cat/${name}/SKILL.md`,
    dir: `/cat/${name}`,
    location: `${name}/SKILL.md`,
    hash: '0123456789abcdef',
    resources: [],
    state: 'available',
    toolProfiles: [],
    frontmatter: { name, description },
    ...extra,
  };
}
