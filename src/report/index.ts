// Writes a results file in every format asked for, by extension. Every format is rendered from the ResultsFile
// alone (metrics recomputed with computeMetrics), so `skillbench report` can re-render any of them later without a
// provider call. Renderers load on demand: vega only when an .html file is asked for.
import { extname } from 'node:path';
import { UserError } from '../errors.js';
import { writeOutputFile } from '../fsutil.js';
import type { ResultsFile } from '../types.js';

export const OUTPUT_EXTENSIONS = ['.json', '.html', '.md', '.xml', '.csv'] as const;
export type OutputFormat = (typeof OUTPUT_EXTENSIONS)[number];

export interface OutputOptions {
  /** A results file to compare with, side by side (HTML and Markdown). */
  baseline?: { file: string; results: ResultsFile };
}

/** The format a file name asks for; a UserError naming the file and the accepted extensions otherwise. */
export function formatOf(file: string): OutputFormat {
  const ext = extname(file).toLowerCase();
  if ((OUTPUT_EXTENSIONS as readonly string[]).includes(ext)) return ext as OutputFormat;
  if (ext === '.htm' || ext === '.markdown') return ext === '.htm' ? '.html' : '.md';
  throw new UserError(
    `${file}: unknown output format "${ext || '(no extension)'}"`,
    `name the file with one of ${OUTPUT_EXTENSIONS.join(' ')} (.xml is JUnit)`,
  );
}

/** Renders one format to a string (the .json format is the results file itself). */
export async function renderOutput(results: ResultsFile, format: OutputFormat, options: OutputOptions = {}): Promise<string> {
  if (format === '.json') return JSON.stringify(results, null, 2) + '\n';
  if (format === '.csv') return (await import('./csv.js')).renderCsv(results);
  if (format === '.xml') return (await import('./junit.js')).renderJunit(results);
  const { reportInput } = await import('./format.js');
  const input = reportInput(results, options.baseline);
  if (format === '.md') return (await import('./markdown.js')).renderMarkdown(input);
  return (await import('./html.js')).renderHtml(input);
}

export async function writeOutputs(results: ResultsFile, files: string[], options: OutputOptions = {}): Promise<void> {
  // Check every name before writing anything, so a typo in the last -o does not leave half the outputs written.
  const jobs = files.map((file) => ({ file, format: formatOf(file) }));
  for (const { file, format } of jobs) {
    if (format === '.json') {
      const { writeResults } = await import('../results.js');
      await writeResults(file, results);
      continue;
    }
    const text = await renderOutput(results, format, options);
    await writeOutputFile(file, text);
  }
}
