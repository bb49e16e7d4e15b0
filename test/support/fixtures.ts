// Set-up many test files share: a provider-free environment, and the small three-skill catalogue whose skills the
// offline selectors tell apart (PDF work, git, emails).
import { BASE_URL_VARS, KEY_VARS } from '../../src/providers/index.js';

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
