// The baseline comparison: the gate's verdict, flips, McNemar tests and the per-skill losses.

/** One skill's correct loads against the baseline (the per-skill gate). */
export interface SkillLoss {
  selector: string;
  skill: string;
  /** Paired requests of the skill (gold = skill) with an outcome in both runs. */
  paired: number;
  /** Correct in the baseline, and now. */
  before: number;
  after: number;
  /** Correct in the baseline and wrong now; wrong in the baseline and right now. */
  lost: number;
  gained: number;
  /**
   * The run-to-run loss rate seen on the other skills' requests (lost / correct in the baseline, add-half estimate):
   * what noise alone takes from a request that was right.
   */
  noise: number;
  /** P(at least `lost` of `before` requests lost by noise alone): binomial tail at `noise`. */
  pValue: number;
  failed: boolean;
}

export interface GateVerdict {
  passed: boolean;
  reasons: string[];
  /** Per selector: requests whose outcome changed against the baseline. */
  flips: { selector: string; requestId: string; text: string; before: string | null; after: string | null; nowCorrect: boolean }[];
  mcnemar?: { selector: string; better: number; worse: number; pValue: number }[];
  /** Per selector and skill: skills whose correct loads fell (the per-skill gate), worst first. */
  skills?: SkillLoss[];
  /** What the comparison left out and why (requests or selectors in one file only, requests whose calls failed). */
  notes?: string[];
}
