// The token audit: what each level of progressive disclosure costs in tokens.
import type { CatalogueFormat } from './catalogue.js';
import type { ListingSummary } from './hosts.js';

export interface TokenAudit {
  tokenizer: string;
  exact: boolean;
  /** The listing preset, or 'template' for a host's own listing form. */
  format: CatalogueFormat | 'template';
  /** The host profile the audit reproduced (absent: generic). */
  host?: string;
  /** What the listing showed (under a host's budget, the skills dropped or shortened). */
  listing?: ListingSummary;
  /** One first-turn decision without its request: system, tools and catalogue, against the bare minimum. */
  decision?: { tokens: number; bareMinimum: number; ratio: number };
  level1: number;
  /** Each skill's own entry in the level-1 listing (its listing alone, less the empty listing). */
  entries?: { name: string; tokens: number }[];
  /** A JSON list with no bodies or files (a tool roster): level 2, level 3, load-all, saving and ratio mean nothing. */
  roster?: boolean;
  level2: { name: string; tokens: number }[];
  level3: { name: string; path: string; tokens: number }[];
  loadAll: number;
  /** loadAll - level1: what progressive disclosure saves on a request that needs no skill. */
  saving: number;
  /** loadAll / level1. */
  ratio: number;
  tools: { base: number; allProfiles: number; reductionPercent: number };
}
