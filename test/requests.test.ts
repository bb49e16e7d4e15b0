import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkRequestsAgainstCatalogue, loadRequests } from '../src/requests.js';
import { loadCatalogue } from '../src/catalogue.js';
import { UserError } from '../src/errors.js';

const root = path.resolve(__dirname, '..');
const METATOOL = path.resolve(root, '../shared/data/metatool');

let tmp: string;
let n = 0;
beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'skillbench-requests-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function file(content: unknown): string {
  const f = path.join(tmp, `r${++n}.json`);
  writeFileSync(f, typeof content === 'string' ? content : JSON.stringify(content));
  return f;
}

async function userError(p: Promise<unknown>): Promise<UserError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(UserError);
    return err as UserError;
  }
  throw new Error('expected a UserError');
}

describe('own format', () => {
  it('loads ids (default r1.. by position, numbers as strings), text, gold and kind', async () => {
    expect(await loadRequests(path.join(root, 'fixtures/valid/requests.json'))).toEqual([
      { id: 'inv-1', text: 'Can you check these three supplier invoices against our POs?', gold: 'invoice-matcher', kind: 'positive' },
      { id: 'r2', text: "Réponds à ce mail de Paul pour lui dire que c'est d'accord.", gold: 'mail-drafter' },
      { id: '7', text: "What's the capital of Peru?", gold: null, kind: 'off-topic' },
    ]);
  });

  it.each([
    [[{ text: 'a' }], /entry 0: field "gold" is missing \(use null/],
    [[{ text: 'a', gold: null }, { text: '', gold: null }], /entry 1: field "text" is missing, empty/],
    [[{ text: 'a', gold: 3 }], /entry 0: field "gold" must be a skill name or null/],
    [[{ text: 'a', gold: null, kind: 'maybe' }], /entry 0: field "kind" must be one of positive, near-miss, off-topic/],
    [[{ text: 'a', gold: null, id: {} }], /entry 0: field "id" must be/],
    [[{ text: 'a', gold: null }, 'x'], /entry 1 is not an object/],
    [[{ id: 'x', text: 'a', gold: null }, { id: 'x', text: 'b', gold: null }], /entry 1: id "x" is already used by entry 0/],
    [[{ text: 'a', gold: null }, { query: 'b', should_trigger: true }], /entry 1: field "query" belongs to the skill-creator format/],
    [[], /the request list is empty/],
    [{ a: 1 }, /unknown request-set shape: an object with the keys "a" and no "requests", "evals" or "queries" list/],
    [[{ question: 'q', label: 1 }], /unknown request shape: entry 0 has the keys "question", "label"/],
    ['"hello"', /expected a JSON list of requests or an object wrapping one, got a string/],
    ['[{"text": ', /not valid JSON/],
  ])('rejects %j', async (content, message) => {
    const f = file(content);
    const err = await userError(loadRequests(f));
    expect(err.message).toMatch(message);
    expect(err.message.startsWith(f)).toBe(true);
    expect(err.fix).toBeTruthy();
  });

  it('names a missing file', async () => {
    expect((await userError(loadRequests(path.join(tmp, 'missing.json')))).message).toMatch(/missing\.json: cannot read the request set \(ENOENT\)/);
  });

  it.skipIf(!existsSync(METATOOL))('loads the MetaTool request set ({id, text, gold, split})', async () => {
    const rs = await loadRequests(path.join(METATOOL, 'requests.json'));
    expect(rs).toHaveLength(1040);
    expect(rs.filter((r) => r.gold === null)).toHaveLength(520);
    expect(rs[0]).toEqual({ id: 'task1-0', text: expect.any(String), gold: 'Now' });
    checkRequestsAgainstCatalogue(rs, await loadCatalogue(path.join(METATOOL, 'tools.json')));
  });
});

describe('skill-creator format', () => {
  it('maps should_trigger to the named skill or null', async () => {
    const rs = await loadRequests(path.join(root, 'fixtures/valid/trigger-evals.json'), { skill: 'invoice-matcher' });
    expect(rs).toEqual([
      { id: 'r1', text: 'match the attached invoices to purchase orders please', gold: 'invoice-matcher', kind: 'positive', target: 'invoice-matcher' },
      { id: 'r2', text: 'write me a poem about invoices', gold: null, target: 'invoice-matcher' },
    ]);
  });

  it('needs --skill, and validates every entry', async () => {
    const f = path.join(root, 'fixtures/valid/trigger-evals.json');
    const err = await userError(loadRequests(f));
    expect(err.message).toMatch(/skill-creator eval set/);
    expect(err.fix).toBe('name the skill with --skill NAME');
    const bad = file([{ query: 'a', should_trigger: true }, { query: 'b', should_trigger: 'yes' }]);
    expect((await userError(loadRequests(bad, { skill: 's' }))).message).toMatch(/entry 1: field "should_trigger" must be true or false/);
    const mixed = file([{ query: 'a', should_trigger: true }, { text: 'b', gold: null }]);
    expect((await userError(loadRequests(mixed, { skill: 's' }))).message).toMatch(/entry 1: field "text" belongs to the own format/);
  });
});

describe('checkRequestsAgainstCatalogue', () => {
  it('passes known golds and null, and names unknown golds with their request ids', async () => {
    const cat = await loadCatalogue(path.join(root, 'fixtures/valid/categorised'));
    const rs = await loadRequests(path.join(root, 'fixtures/valid/requests.json'));
    checkRequestsAgainstCatalogue(rs, cat);
    const bad = [...rs, { id: 'q1', text: 't', gold: 'no-such-skill' }, { id: 'q2', text: 't', gold: 'no-such-skill' }, { id: 'q3', text: 't', gold: 'other' }];
    let err: unknown;
    try {
      checkRequestsAgainstCatalogue(bad, cat);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UserError);
    expect((err as UserError).message).toMatch(/^2 gold skills are not in the catalogue .*: "no-such-skill" \(q1, q2\), "other" \(q3\)$/);
  });
});

describe('the demo request set (requests.json)', () => {
  it('has 24 positives (4 per demo skill) and 6 that need no skill (5 near-misses, 1 off-topic), all golds in skills/', async () => {
    const rs = await loadRequests(path.join(root, 'requests.json'));
    const cat = await loadCatalogue(path.join(root, 'skills'));
    checkRequestsAgainstCatalogue(rs, cat);
    expect(rs).toHaveLength(30);
    const count = (f: (r: (typeof rs)[number]) => boolean) => rs.filter(f).length;
    for (const s of cat.skills) expect(count((r) => r.gold === s.name && r.kind === 'positive'), s.name).toBe(4);
    expect(count((r) => r.gold === null && r.kind === 'near-miss')).toBe(5);
    expect(count((r) => r.gold === null && r.kind === 'off-topic')).toBe(1);
    // Phrased as users write, not copied from the descriptions: no request repeats a description's trigger phrase.
    const triggers = cat.skills.flatMap((s) => [...s.description.matchAll(/"([^"]{12,})"/g)].map((m) => m[1]!.toLowerCase()));
    expect(triggers.length).toBeGreaterThan(12);
    for (const r of rs) for (const t of triggers) expect(r.text.toLowerCase(), r.id).not.toContain(t);
  });
});
