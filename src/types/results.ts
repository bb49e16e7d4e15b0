// The versioned results file, and how much of its run was measured.
import type { CatalogueFormat } from './catalogue.js';
import type { SelectorRun } from './decisions.js';
import type { GateVerdict } from './gate.js';
import type { HostSummary } from './hosts.js';
import type { ImproveSummary } from './improve.js';
import type { LanguageSummary } from './languages.js';
import type { QualitySummary } from './quality.js';
import type { EvalRequest } from './requests.js';
import type { TokenAudit } from './token-audit.js';

/** How much of the run was measured (see src/completeness.ts). */
export interface Completeness {
  /** Decisions that are errors (cache misses of --cache-only not counted: they end the run as bad input). */
  failed: number;
  total: number;
  /** --max-error-rate. */
  maxErrorRate: number;
  /** failed / total <= maxErrorRate. An incomplete run passes no gate. */
  complete: boolean;
  /** Failures by kind: call, budget, "stopped: length", ... */
  byKind?: Record<string, number>;
  /** Why the run stopped calling early (the fail-fast breaker), when it did. */
  stopped?: string;
}

/** One skill of the catalogue a results file was measured on. */
export interface ResultsSkill {
  name: string;
  hash: string;
  category: string;
  /** Version 2: the description as measured, so that a later comparison can show what changed (absent in version 1). */
  description?: string;
}

export interface ResultsFile {
  schema: 'skillbench.results';
  /** 2 adds the skills' descriptions and the model's answers; a version-1 file reads as one without them. */
  version: 1 | 2;
  command: 'eval-trigger' | 'suggest-eval' | 'eval-quality' | 'improve';
  createdAt: string;
  skillbenchVersion: string;
  /** Every option that shaped the run. */
  settings: Record<string, unknown>;
  catalogue: { source: string; format?: CatalogueFormat; skills: ResultsSkill[] };
  requests: EvalRequest[];
  runs: SelectorRun[];
  /** Baseline comparison, when one was run. */
  gate?: GateVerdict;
  /** How much was measured; an incomplete run passes no gate (absent in files written before it existed). */
  completeness?: Completeness;
  tokenAudit?: TokenAudit;
  /** eval-trigger: language and script of every request and description, and what the offline models cannot read. */
  languages?: LanguageSummary;
  /** eval-quality: per-mode answer quality and cost (each run's decisions carry the per-case details). */
  quality?: QualitySummary;
  /** The host profile whose prompt the run reproduced, and what its listing showed of each skill. */
  host?: HostSummary;
  /** improve: the split, every candidate description and the one kept (each scored candidate is a run). */
  improve?: ImproveSummary;
}
