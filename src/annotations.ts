// GitHub Actions workflow commands (`::error file=...,line=...::message`): each one becomes an annotation on the
// pull request's diff at that line, or on the run's summary when it names no file.
import type { Severity } from './types.js';

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
