// --max-cost: the spending limit a client keeps, with the calls in flight reserved at their estimated cost.
import type { Price } from '../providers/pricing.js';
import type { ChatRequest } from '../types.js';
import { BudgetExceededError } from './errors.js';
import { estimateCall } from './estimate.js';
import type { ChatTally } from './tally.js';

/** --max-cost: a live call is refused when what is spent, what the calls in flight may cost and its own estimate
 * could pass the limit. After the first refusal every live call is refused (cached answers are still served). */
export class Budget {
  exceeded = false;
  private reservedUsd = 0;

  constructor(
    private readonly maxCostUsd: number | undefined,
    private readonly tally: ChatTally,
    private readonly price: Price | null,
  ) {}

  /** Reserves the call's estimated cost or throws BudgetExceededError; returns what to release when the call ends.
   * With no list price the estimate is 0: the limit cannot be enforced (the summary says so). */
  async reserve(req: ChatRequest, price: Price | null = this.price): Promise<number> {
    if (this.maxCostUsd === undefined) return 0;
    if (this.exceeded) throw new BudgetExceededError(this.maxCostUsd, this.tally.spentUsd);
    const cost = price ? (await estimateCall(req, price)).cost : 0;
    if (this.tally.spentUsd + this.reservedUsd + cost > this.maxCostUsd) {
      this.exceeded = true;
      throw new BudgetExceededError(this.maxCostUsd, this.tally.spentUsd);
    }
    this.reservedUsd += cost;
    return cost;
  }

  release(reservedUsd: number): void {
    this.reservedUsd -= reservedUsd;
  }
}
