// GitHub Actions workflow commands (`::error file=...,line=...::message`): each one becomes an annotation on the
// pull request's diff at that line, or on the run's summary when it names no file.
import type { ResultsFile, Severity } from './types.js';

export interface Annotation {
  severity: Severity;
  message: string;
  /** Path relative to the repository root (the working directory of a workflow step). */
  file?: string;
  line?: number;
  title?: string;
}

/** One `::error ...::message` line. Values are escaped as the runner expects, so a message never ends early. */
export function githubAnnotation(a: Annotation): string {
  const props = [
    a.file !== undefined ? `file=${escapeProperty(a.file)}` : '',
    a.line !== undefined ? `line=${a.line}` : '',
    a.title !== undefined ? `title=${escapeProperty(a.title)}` : '',
  ].filter(Boolean);
  return `::${a.severity}${props.length ? ` ${props.join(',')}` : ''}::${escapeData(a.message)}`;
}

function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** A failed gate as annotations: each reason an error on the run, each request that got worse a warning at its line
 *  of the request file (`requestsText`: that file's path as shown and its text). Nothing when the gate passed. */
export function gateAnnotations(results: ResultsFile, requestsText?: { file: string; text: string }): Annotation[] {
  const gate = results.gate;
  if (!gate || gate.passed) return [];
  const out: Annotation[] = gate.reasons.map((reason) => ({ severity: 'error' as const, title: 'skillbench gate failed', message: reason }));
  for (const flip of gate.flips.filter((f) => !f.nowCorrect)) {
    const line = requestsText ? requestLine(requestsText.text, flip.requestId, flip.text) : undefined;
    out.push({
      severity: 'warning',
      ...(requestsText ? { file: requestsText.file } : {}),
      ...(line ? { line } : {}),
      title: `skillbench: ${flip.selector} got worse on ${flip.requestId}`,
      message: `"${flip.text}" now loads ${flip.after ?? 'no skill'} (the baseline loaded ${flip.before ?? 'no skill'})`,
    });
  }
  return out;
}

/** 1-based line of a request in its JSON file: its `"id"`, else its text; undefined when neither is found. */
function requestLine(text: string, id: string, requestText: string): number | undefined {
  const lines = text.split('\n');
  const byId = new RegExp(`"id"\\s*:\\s*${escapeRegExp(JSON.stringify(id))}`);
  const escaped = JSON.stringify(requestText);
  const i = lines.findIndex((l) => byId.test(l));
  const j = i >= 0 ? i : lines.findIndex((l) => l.includes(escaped));
  return j >= 0 ? j + 1 : undefined;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Prints the annotations of a failed gate. `requestsFile` (as shown, relative to the working folder) is read for
 *  the requests' lines; `stream` is stdout unless stdout carries JSON. */
export async function printGateAnnotations(results: ResultsFile, requestsFile: string | undefined, stream: NodeJS.WritableStream = process.stdout): Promise<void> {
  let requestsText: { file: string; text: string } | undefined;
  if (requestsFile) {
    const { readFile } = await import('node:fs/promises');
    requestsText = await readFile(requestsFile, 'utf8').then((text) => ({ file: requestsFile, text }), () => undefined);
  }
  for (const a of gateAnnotations(results, requestsText)) stream.write(githubAnnotation(a) + '\n');
}
