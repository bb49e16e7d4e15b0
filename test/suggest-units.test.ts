// The suggester's pure pieces: the block wording, the gate arithmetic, chunking, the winner rule, the arms'
// fixed/broken bookkeeping, and answer parsing.
import { describe, expect, it } from 'vitest';
import {
  chooseWinner,
  chunk,
  compareArms,
  gateScore,
  MalformedAnswer,
  NONE_TEXT,
  relevanceBlock,
  requestCost,
  SUGGEST_TEMPLATE,
} from '../src/suggest.js';
import { parseJsonObject, type SuggestChat } from '../src/suggest/llm.js';
import { agentTurn, suggestAgentHost } from '../src/suggest/arms.js';
import { hostFrame } from '../src/hosts/request.js';
import { ProviderError } from '../src/errors.js';
import { renderCandidate } from '../src/suggest/narrow.js';
import { cosine, nameResolver } from '../src/suggest/wide.js';
import type { Decision, EvalRequest, SelectorRun, Skill } from '../src/types.js';

describe('the <skill_relevance> block', () => {
  it('names the skill and says the agent may ignore it', () => {
    expect(relevanceBlock('pdf-tools')).toBe(
      '<skill_relevance skill="pdf-tools">\n' +
        'A separate check of the catalogue, made before this turn, found that the skill "pdf-tools" is the most likely ' +
        'to help with this request. Load it if it fits what the user asked; ignore this note if it does not.\n' +
        '</skill_relevance>',
    );
  });
  it('says that no skill appears relevant', () => {
    expect(relevanceBlock(null)).toBe(`<skill_relevance>\n${NONE_TEXT}\n</skill_relevance>`);
    expect(NONE_TEXT).toContain('no skill that appears relevant');
  });
  it('is built from constants only (the same wording in every request, hence every cache key)', () => {
    expect(relevanceBlock('x')).toBe(relevanceBlock('x'));
    expect(SUGGEST_TEMPLATE).toContain('{skill}');
    expect(relevanceBlock('a"b')).toContain('skill="a&quot;b"');
  });
});

describe('the gate', () => {
  it('is the mean of acts, procedure and 1 - prose', () => {
    expect(gateScore(1, 1, 0)).toBe(1);
    expect(gateScore(0, 0, 1)).toBe(0);
    expect(gateScore(0.9, 0.6, 0.3)).toBeCloseTo((0.9 + 0.6 + 0.7) / 3, 12);
  });
});

describe('chunk', () => {
  const ten = Array.from({ length: 10 }, (_, i) => i);
  it('splits into ceil(n / size) near-equal chunks, in order', () => {
    expect(chunk(ten, 4)).toEqual([[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]);
    expect(chunk(ten, 5)).toEqual([[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]);
    expect(chunk(ten, 10)).toEqual([ten]);
    expect(chunk(Array.from({ length: 177 }, (_, i) => i), 60).map((c) => c.length)).toEqual([59, 59, 59]);
  });
});

describe('chooseWinner', () => {
  const fits = (...f: [string, number][]) => f.map(([name, fit]) => ({ name, fit }));
  it('suggests nothing when the best fit is under the threshold', () => {
    expect(chooseWinner({ fits: fits(['a', 0.29], ['b', 0.1]), pick: 'a' }, 0.3)).toBeNull();
  });
  it('takes the pick when its own fit clears the threshold, even if another scored higher', () => {
    expect(chooseWinner({ fits: fits(['a', 0.9], ['b', 0.5]), pick: 'b' }, 0.3)).toBe('b');
  });
  it('falls back to the best fit when the pick is under the threshold or missing', () => {
    expect(chooseWinner({ fits: fits(['a', 0.2], ['b', 0.7]), pick: 'a' }, 0.3)).toBe('b');
    expect(chooseWinner({ fits: fits(['a', 0.4], ['b', 0.4]), pick: null }, 0.3)).toBe('a');
  });
  it('a fit exactly at the threshold counts', () => {
    expect(chooseWinner({ fits: fits(['a', 0.3]), pick: 'a' }, 0.3)).toBe('a');
  });
});

describe('compareArms', () => {
  const requests: EvalRequest[] = [
    { id: 'a', text: 'A', gold: 'x' },
    { id: 'b', text: 'B', gold: 'y' },
    { id: 'c', text: 'C', gold: 'x' },
    { id: 'd', text: 'D', gold: null },
    { id: 'e', text: 'E', gold: 'y' },
    { id: 'f', text: 'F', gold: 'x' },
  ];
  const run = (selector: string, choices: Record<string, Partial<Decision>>): SelectorRun => ({
    selector,
    kind: 'decision',
    decisions: Object.entries(choices).map(([requestId, d]) => ({ requestId, run: 0, chosen: null, ...d })),
  });
  const baseline = run('baseline', {
    a: { chosen: 'y' }, // wrong
    b: { chosen: 'y' }, // right
    c: { rawChoice: 'xx' }, // misspelt: wrong
    d: { chosen: 'x' }, // needless (uncovered: never a flip here)
    e: { chosen: 'x' }, // wrong
    f: { chosen: 'x' }, // right
  });
  const suggest = run('suggest', {
    a: { chosen: 'x' }, // fixed
    b: {}, // broken: nothing loaded
    c: { chosen: 'x' }, // fixed
    d: {},
    e: { error: 'suggester: boom' }, // an error is neither
    f: { chosen: 'x' }, // unchanged
  });
  it('lists covered requests fixed and broken; errors and uncovered requests are left out', () => {
    const c = compareArms(baseline, suggest, requests);
    expect(c.fixed).toEqual([
      { requestId: 'a', text: 'A', gold: 'x', baseline: 'y', suggest: 'x' },
      { requestId: 'c', text: 'C', gold: 'x', baseline: 'xx', suggest: 'x' },
    ]);
    expect(c.broken).toEqual([{ requestId: 'b', text: 'B', gold: 'y', baseline: 'y', suggest: null }]);
  });
});

describe('requestCost', () => {
  it('adds the suggester\'s cost to the agent\'s turn', () => {
    expect(requestCost({ requestId: 'a', run: 0, chosen: null, costUsd: 0.002, detail: { suggesterCostUsd: 0.0005 } })).toBeCloseTo(0.0025, 12);
    expect(requestCost({ requestId: 'a', run: 0, chosen: null })).toBe(0);
  });
});

describe('answer parsing', () => {
  it('accepts a JSON object, also inside a code fence', () => {
    expect(parseJsonObject('{"a": 1}', 'narrow')).toEqual({ a: 1 });
    expect(parseJsonObject('```json\n{"a": 1}\n```', 'narrow')).toEqual({ a: 1 });
  });
  it('refuses prose, arrays and empty replies as malformed answers', () => {
    expect(() => parseJsonObject('I think pdf', 'wide')).toThrow(MalformedAnswer);
    expect(() => parseJsonObject('[1]', 'wide')).toThrow(/not a JSON object/);
    expect(() => parseJsonObject('', 'gate')).toThrow(/empty reply/);
  });
});

describe('the narrow stage\'s view of a candidate', () => {
  it('shows the full description and the first --excerpt characters of the body', () => {
    const body = 'A'.repeat(700) + 'B'.repeat(300);
    const skill = { name: 'n', description: 'a long description '.repeat(20).trim(), body, category: 'cat' } as Skill;
    const text = renderCandidate(skill, 700);
    expect(text).toContain(skill.description);
    expect(text).toContain('A'.repeat(700));
    expect(text).not.toContain('B');
    expect(text.startsWith('<candidate name="n" category="cat">')).toBe(true);
  });
});

describe('cosine', () => {
  it('is 1 for parallel vectors, 0 for orthogonal ones and for a zero vector', () => {
    expect(cosine([1, 2], [2, 4])).toBeCloseTo(1, 12);
    expect(cosine([1, 0], [0, 3])).toBe(0);
    expect(cosine([0, 0], [1, 1])).toBe(0);
  });
});

describe('nameResolver', () => {
  it('keeps catalogue names, forgives case and whitespace, refuses anything else', () => {
    const resolve = nameResolver(['github-pr-workflow', 'gif-search']);
    expect(resolve('gif-search')).toBe('gif-search');
    expect(resolve(' GitHub-PR-Workflow ')).toBe('github-pr-workflow');
    expect(resolve('gif_search')).toBeNull();
    expect(resolve(3)).toBeNull();
  });
});

describe('an agent turn that throws', () => {
  const req: EvalRequest = { id: 'r', text: 'hello', gold: null };
  const throwing = (err: unknown): SuggestChat =>
    ({ provider: 'openai', model: 'm', chat: async () => Promise.reject(err) }) as unknown as SuggestChat;
  it('records a failed call as an error decision, never as "none"', async () => {
    const d = await agentTurn(throwing(new ProviderError('openai: HTTP 500', 500)), hostFrame(suggestAgentHost(), []), [], req, []);
    expect(d).toMatchObject({ requestId: 'r', chosen: null, error: 'openai: HTTP 500' });
  });
  it('throws a programming error instead of counting it as a failed call', async () => {
    await expect(agentTurn(throwing(new TypeError('x is undefined')), hostFrame(suggestAgentHost(), []), [], req, [])).rejects.toThrow(TypeError);
  });
});
