// improve: every candidate description measured or considered, the split, and the one kept.
import type { Rate } from './metrics.js';

/** Why a candidate description was or was not scored by the model selector. */
export type CandidateStatus = 'scored' | 'rejected' | 'duplicate' | 'prescreened-out' | 'unscored';

/** One description `improve` measured or considered. Its decisions are the run whose selector is its id. */
export interface ImproveCandidate {
  /** `original`, or `<iteration>.<n>` (e.g. `2.1`). */
  id: string;
  /** 0 for the original. */
  iteration: number;
  /** The candidate it was rewritten from (the best on train so far), null for the original. */
  parent: string | null;
  description: string;
  /** The rewriter's one-line reason for it. */
  rationale?: string;
  status: CandidateStatus;
  /** Why it was not scored (rejected: a limit; unscored: --max-cost, a failed call, a dry run). */
  reason?: string;
  /** duplicate: the candidate with the same description, whose scores stand for it. */
  duplicateOf?: string;
  /** --prescreen: the offline selector's train score (the skill ranked first on its own requests, not first on the others). */
  prescreen?: Rate;
}

export interface ImproveSummary {
  skill: string;
  /** The SKILL.md the description belongs to (relative to the working folder), absent for JSON catalogues. */
  file?: string;
  split: { seed: number; holdout: number; train: string[]; test: string[] };
  candidates: ImproveCandidate[];
  /** The candidate kept: the best test accuracy among the fully scored ones (ties: train, then the earlier). */
  chosen: string;
  /** The chosen description against the original on the test requests, paired (exact McNemar). */
  comparison: { better: number; worse: number; pValue: number; alpha: number; withinNoise: boolean };
  /** Why the loop ended before its last iteration, if it did. */
  stopped?: string;
  /** How many characters of a description the listing shows (hermes: 60), when it cuts. */
  listingCut?: number;
  /** --write: the file was rewritten with the chosen description. */
  written?: boolean;
}
