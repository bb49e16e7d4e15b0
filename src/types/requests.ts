// An eval request: its text, the skill it expects (or none), its kind, its target and its candidates.

export type RequestKind = 'positive' | 'near-miss' | 'off-topic';

export interface EvalRequest {
  id: string;
  text: string;
  /** The one skill that must be loaded, or null when none should be (or, with `target`, when the target should not). */
  gold: string | null;
  kind?: RequestKind;
  /**
   * A skill-creator request (`should_trigger`) is about one skill, its target: it passes when the target loads
   * (gold = target) or does not load (gold = null). A negative is a near miss for the target only: another skill
   * loading is right, reported apart as "went to another skill", never as a needless load.
   */
  target?: string;
  /** The skills this request chooses among (its own tool list, as in BFCL or MetaTool): every selector sees only these. */
  candidates?: string[];
}
