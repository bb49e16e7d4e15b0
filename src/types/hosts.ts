// A host profile's run: the host whose prompt was reproduced, and what its listing showed of each skill.

/** What a host's listing showed of the catalogue (skills named in listing order). */
export interface ListingSummary {
  /** Characters (code points) of the listing as sent, and with no budget applied. */
  chars: number;
  fullChars: number;
  /** The listing budget, where it came from, and the overflow step that applied ('fits': none was needed). */
  budget: { chars: number; from: 'profile' | '--listing-budget'; step: string; over: boolean; shortenedTo?: number } | null;
  /** Skills left out of the listing: the model cannot see them. */
  dropped: string[];
  /** Skills listed by name only (their description removed to fit the budget). */
  namesOnly: string[];
  /** Skills whose description was shortened to fit the budget. */
  shortened: string[];
  /** Skills whose description the host's own per-description cut shortened, and that cut. */
  cut: string[];
  cutChars?: number;
}

export interface HostSummary {
  name: string;
  title: string;
  /** 'built-in' or the profile file. */
  origin: string;
  /** --system-prompt FILE, when it supplied the system text. */
  systemFrom?: string;
  placement: 'system' | 'tool-description' | 'user-message';
  /** How a load is read, e.g. "Skill(skill: free string)" or "shell(command) reading a listed SKILL.md". */
  loading: string;
  listing: ListingSummary;
}
