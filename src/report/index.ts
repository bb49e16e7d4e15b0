// PLACEHOLDER (owned by the reports helper): writes results in the format named by each file's extension.
import { writeFile } from 'node:fs/promises';
import type { ResultsFile } from '../types.js';

export async function writeOutputs(results: ResultsFile, files: string[]): Promise<void> {
  for (const file of files) {
    await writeFile(file, JSON.stringify(results, null, 2) + '\n');
  }
}
