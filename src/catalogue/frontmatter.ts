// SKILL.md frontmatter: parsed as YAML only (gray-matter's JavaScript engine would eval it; every other language is
// refused before anything runs), and the lines its fields are written on, for problems that point at them.
import matter from 'gray-matter';

export type Parsed = { data: Record<string, unknown>; body: string } | { error: string; fix: string; line: number };

class RefusedEngine extends Error {
  constructor(readonly language: string) {
    super(`frontmatter language "${language}" refused`);
  }
}

function refuse(language: string) {
  return {
    parse: (): object => {
      throw new RefusedEngine(language);
    },
  };
}

// gray-matter merges these over its defaults, whose `javascript` engine evals the block: every language but YAML
// is replaced by one that throws before anything runs; any other language name is "not registered" and throws too.
const yamlEngine = (matter as unknown as { engines: { yaml: { parse: (s: string) => object } } }).engines.yaml; // js-yaml safeLoad
const ENGINES = {
  yaml: { parse: (s: string) => yamlEngine.parse(s) },
  yml: { parse: (s: string) => yamlEngine.parse(s) },
  javascript: refuse('javascript'),
  js: refuse('js'),
  json: refuse('json'),
  coffee: refuse('coffee'),
  coffeescript: refuse('coffeescript'),
  cson: refuse('cson'),
  toml: refuse('toml'),
};

const FRONTMATTER_FIX = 'start SKILL.md with a YAML block between two `---` lines holding at least `name` and `description`';

export function parseFrontmatter(text: string): Parsed {
  const firstLine = text.split('\n', 1)[0].replace(/\r$/, '');
  if (!firstLine.startsWith('---') || firstLine.startsWith('----')) {
    return { error: 'no frontmatter (SKILL.md must start with `---`)', fix: FRONTMATTER_FIX, line: 1 };
  }
  if (!/\r?\n---[ \t]*(\r?\n|$)/.test(text)) {
    return { error: 'frontmatter is not closed (no second `---` line)', fix: FRONTMATTER_FIX, line: 1 };
  }
  let file;
  try {
    file = matter(text, { engines: ENGINES, language: 'yaml' });
  } catch (err) {
    if (err instanceof RefusedEngine || /engine .* is not registered/.test(String((err as Error).message))) {
      const lang = firstLine.slice(3).trim();
      return {
        error: `frontmatter language "${lang}" is not allowed (only YAML is read; the block was not executed)`,
        fix: `replace the first line \`---${lang}\` with \`---\` and write the frontmatter in YAML`,
        line: 1,
      };
    }
    const e = err as { reason?: string; message?: string; mark?: { line?: number } };
    const line = typeof e.mark?.line === 'number' ? e.mark.line + 1 : 1;
    return { error: `frontmatter is not valid YAML: ${e.reason ?? String(e.message).split('\n')[0]}`, fix: 'fix the YAML syntax; quote values that contain `: ` or `#`, or start with a special character', line: Math.max(1, line) };
  }
  const data = file.data as unknown;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return { error: 'frontmatter is not a mapping of fields', fix: FRONTMATTER_FIX, line: 2 };
  }
  return { data: data as Record<string, unknown>, body: file.content };
}

/** 1-based line of a top-level frontmatter field (`key:`), or 1 when it is not written as such. */
export function fieldLine(text: string, key: string): number {
  const lines = frontmatterLines(text);
  const re = new RegExp(`^${escapeRegExp(key)}\\s*:`);
  const i = lines.findIndex((l) => re.test(l));
  return i < 0 ? 1 : i + 1;
}

/** 1-based line of a field nested under `parent:` (e.g. metadata.state), else the parent's line, else 1. */
export function nestedFieldLine(text: string, parent: string, key: string): number {
  const lines = frontmatterLines(text);
  const p = fieldLine(text, parent) - 1;
  if (p <= 0) return 1;
  const re = new RegExp(`^\\s+['"]?${escapeRegExp(key)}['"]?\\s*:`);
  for (let i = p + 1; i < lines.length && /^(\s|$)/.test(lines[i]); i++) if (re.test(lines[i])) return i + 1;
  return p + 1;
}

export function frontmatterLines(text: string): string[] {
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  const end = lines.findIndex((l, i) => i > 0 && /^---\s*$/.test(l));
  return end < 0 ? lines : lines.slice(0, end);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
