import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
// The independent count: tiktoken's full build called directly, not through src/tokenizer.ts.
import { o200k } from './support/o200k.js';
import { loadCatalogue } from '../src/catalogue.js';
import { auditCatalogue, auditCatalogueWith, renderAuditTables } from '../src/audit.js';
import { renderCatalogue, renderLoadAll, renderSkillContent } from '../src/prompt.js';
import { allProfileToolDeclarations, skillToolDeclarations } from '../src/tools.js';
import { countTokens, TOKENIZER_NAME } from '../src/tokenizer.js';
import type { Skill } from '../src/types.js';

const root = path.resolve(__dirname, '..');
const VALID = path.join(root, 'fixtures/valid/categorised');
const DEMO = path.join(root, 'skills');
const readRaw = (s: Skill, p: string) => readFileSync(path.join(s.dir!, p), 'utf8');

describe('tokenizer', () => {
  it('counts o200k tokens, including special-token look-alikes as plain text', () => {
    expect(TOKENIZER_NAME).toBe('o200k via tiktoken');
    expect(countTokens('')).toBe(0);
    expect(countTokens('hello world')).toBe(2);
    expect(countTokens('a <|endoftext|> b')).toBe(o200k('a <|endoftext|> b'));
    expect(countTokens('a <|endoftext|> b')).toBeGreaterThan(3);
  });
});

describe('auditCatalogue', () => {
  it.each(['xml', 'hermes', 'markdown'] as const)('matches an independent o200k count of every level (%s)', async (format) => {
    const cat = await loadCatalogue(VALID);
    const audit = auditCatalogue(cat, format);
    const visible = cat.skills.filter((s) => s.state !== 'never');

    expect(audit).toMatchObject({ tokenizer: 'o200k via tiktoken', exact: false, format });
    expect(audit.level1).toBe(o200k(renderCatalogue(cat.skills, format)));
    expect(audit.level2).toEqual(visible.map((s) => ({ name: s.name, tokens: o200k(renderSkillContent(s)) })));
    expect(audit.level2.map((x) => x.name)).not.toContain('legacy-fax');
    expect(audit.level3).toEqual(visible.flatMap((s) => s.resources.map((p) => ({ name: s.name, path: p, tokens: o200k(readRaw(s, p)) }))));
    expect(audit.level3.map((r) => `${r.name}/${r.path}`)).toEqual(['invoice-matcher/references/rules.md', 'invoice-matcher/scripts/match.mjs']);
    expect(audit.loadAll).toBe(o200k(renderLoadAll(cat.skills, readRaw)));
    expect(audit.saving).toBe(audit.loadAll - audit.level1);
    expect(audit.ratio).toBe(Math.round((audit.loadAll / audit.level1) * 100) / 100);
    // Load-all holds every body and every resource, so it is larger than their sum.
    const sum = (xs: { tokens: number }[]) => xs.reduce((a, b) => a + b.tokens, 0);
    expect(audit.loadAll).toBeGreaterThan(sum(audit.level3) + sum(audit.level2) / 2);
  });

  it('counts the tool schemas: skill tools alone against every profile expanded', async () => {
    const cat = await loadCatalogue(VALID);
    const { tools } = auditCatalogue(cat, 'xml');
    const base = o200k(JSON.stringify(skillToolDeclarations(cat.skills)));
    const all = o200k(JSON.stringify([...skillToolDeclarations(cat.skills), ...allProfileToolDeclarations(cat)]));
    expect(tools.base).toBe(base);
    expect(tools.allProfiles).toBe(all);
    expect(all).toBeGreaterThan(base);
    expect(tools.reductionPercent).toBe(Math.round(((all - base) / all) * 1000) / 10);
  });

  it('uses a provider counter when given one, labelled exact', async () => {
    const cat = await loadCatalogue(VALID);
    const seen: number[] = [];
    const audit = await auditCatalogueWith(cat, 'hermes', {
      name: 'test count-tokens (chars)',
      text: async (t) => t.length,
      tools: async (ts) => (seen.push(ts.length), ts.length * 100),
    });
    expect(audit).toMatchObject({ tokenizer: 'test count-tokens (chars)', exact: true, format: 'hermes' });
    expect(audit.level1).toBe(renderCatalogue(cat.skills, 'hermes').length);
    expect(audit.loadAll).toBe(renderLoadAll(cat.skills, readRaw).length);
    expect(audit.tools).toEqual({ base: 300, allProfiles: 600, reductionPercent: 50 });
    expect(seen.sort()).toEqual([3, 6]);
  });

  it('renders the tables labelled as an estimate naming the tokenizer', async () => {
    const audit = auditCatalogue(await loadCatalogue(VALID), 'xml');
    const out = renderAuditTables(audit, { source: 'fixtures/valid/categorised', perResource: true });
    expect(out.split('\n')[0]).toBe('Token audit of fixtures/valid/categorised, catalogue format xml: estimate (o200k via tiktoken)');
    expect(out).toMatch(new RegExp(`level 1: catalogue listing .*│\\s+${audit.level1.toLocaleString('en-US')} │`));
    expect(out).toMatch(new RegExp(`load-all: .*│\\s+${audit.loadAll.toLocaleString('en-US')} │`));
    expect(out).toContain(`${audit.ratio.toFixed(2)}x`);
    expect(out).toMatch(/invoice-matcher\s+│ scripts\/match\.mjs/);
    expect(renderAuditTables(audit, { source: 's', perResource: false })).not.toContain('scripts/match.mjs');
  });
});

describe.skipIf(!existsSync(path.join(DEMO, 'csv-data-profiler')))('demo catalogue (skills/)', () => {
  it('shows progressive disclosure paying off: load-all several times the listing', async () => {
    const cat = await loadCatalogue(DEMO);
    const audit = auditCatalogue(cat, 'xml');
    expect(audit.level2).toHaveLength(cat.skills.filter((s) => s.state !== 'never').length);
    expect(audit.level1).toBe(o200k(renderCatalogue(cat.skills, 'xml')));
    expect(audit.loadAll).toBe(o200k(renderLoadAll(cat.skills, readRaw)));
    expect(audit.ratio).toBeGreaterThan(3);
  });

  it("keeps the design's picture: a listing of about 1,200 tokens, bodies of 400-1,400, load-all 7x the listing or more", async () => {
    const audit = auditCatalogue(await loadCatalogue(DEMO), 'xml');
    expect(audit.level1).toBeGreaterThanOrEqual(1000);
    expect(audit.level1).toBeLessThanOrEqual(1500);
    for (const body of audit.level2) {
      expect(body.tokens, body.name).toBeGreaterThanOrEqual(400);
      expect(body.tokens, body.name).toBeLessThanOrEqual(1400);
    }
    expect(audit.loadAll).toBeGreaterThanOrEqual(8000);
    expect(audit.ratio).toBeGreaterThanOrEqual(7);
  });
});
