// A skill catalogue as loaded: its skills, their states, the problems found, the folders read, the listing formats.
import type { ToolDeclaration } from './chat.js';

export type SkillState = 'always' | 'available' | 'never';

export interface Skill {
  name: string;
  description: string;
  /** Markdown after the frontmatter (empty for JSON catalogues that carry none). */
  body: string;
  /** Folder path between the catalogue root and the skill folder ('' when flat), POSIX; from `category` for JSON. */
  category: string;
  /** Absolute real path of the skill folder (symbolic links resolved: reads and script runs are anchored here);
   *  undefined for JSON catalogues. */
  dir?: string;
  /** Absolute path of SKILL.md as found (through a linked folder, if it was reached through one), or of the JSON file. */
  file: string;
  /** Path shown to the model in the catalogue prompt (SKILL.md relative to the catalogue root, POSIX). */
  location: string;
  /** sha256 (hex, first 16 chars) of SKILL.md bytes plus every resource's path and bytes: the skill's version. */
  hash: string;
  /** Every other file in the skill folder, relative POSIX paths, sorted. */
  resources: string[];
  state: SkillState;
  /** Tool profiles this skill unlocks when loaded (metadata.tool-profiles). */
  toolProfiles: string[];
  /** Raw frontmatter, as parsed. */
  frontmatter: Record<string, unknown>;
}

export type Severity = 'error' | 'warning';

export interface Problem {
  file: string;
  line: number;
  severity: Severity;
  message: string;
  fix: string;
  /** Fatal problems make the skill unusable (unparsable, no name or description, duplicate); it is left out of `skills`. */
  fatal?: boolean;
  /** The rule id (`SB012`, see src/rules.ts). */
  rule?: string;
}

export interface Catalogue {
  /** Absolute path of the folder or JSON file it was loaded from. */
  source: string;
  kind: 'folder' | 'json';
  /** Skills in name order, including `never` ones (renderers and tools leave those out). */
  skills: Skill[];
  /** Tool profiles declared in the catalogue-level `tool-profiles.json` (profile name -> tool declarations). */
  toolProfiles: Record<string, ToolDeclaration[]>;
  problems: Problem[];
  /** A project root: the standard skill folders read (`.claude/skills`, `skills`, ...), absolute paths, with counts. */
  folders?: SkillFolderUse[];
}

export interface SkillFolderUse {
  path: string;
  /** Skills found in it. */
  skills: number;
  /** Of those, skills already found in another folder (the same files, reached through a symbolic link). */
  alreadyFound: number;
}

export type CatalogueFormat = 'lines' | 'xml' | 'hermes' | 'markdown';
