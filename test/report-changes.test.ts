// What the HTML report explains, computed in Node: the word diff of a changed description, the skills that changed
// against a baseline (also against a version-1 file that stored no descriptions), the per-request score move that did
// not flip, the words a request shares with a skill, and the language guess behind the language filter.
import { describe, expect, it } from 'vitest';
import { wordDiff } from '../src/report/worddiff.js';
import { decidingScore, requestChanges, requestKey, skillChanges } from '../src/report/changes.js';
import { matchedWords, skillStems } from '../src/report/matched.js';
import { guessLanguage } from '../src/report/language.js';
import type { ResultsFile } from '../src/types.js';

function results(description: string, scores: [number, number], version: 1 | 2 = 2): ResultsFile {
  return {
    schema: 'skillbench.results', version, command: 'eval-trigger', createdAt: '2026-12-01T00:00:00Z', skillbenchVersion: '0', settings: {},
    catalogue: {
      source: 'skills',
      skills: [
        { name: 'leave-balance', hash: description.length.toString(16), category: '', ...(version === 2 ? { description } : {}) },
        { name: 'expenses', hash: 'e', category: '', ...(version === 2 ? { description: 'Checks expense reports against the policy.' } : {}) },
      ],
    },
    requests: [
      { id: 'q1', text: 'How many days of holiday do I have left?', gold: 'leave-balance' },
      { id: 'q2', text: 'What is the capital of France?', gold: null },
    ],
    runs: [{
      selector: 'similarity', kind: 'score', threshold: { value: 0.55, source: 'fixed' },
      decisions: [
        { requestId: 'q1', run: 0, chosen: scores[0] >= 0.55 ? 'leave-balance' : null, scores: [{ name: 'leave-balance', score: scores[0] }, { name: 'expenses', score: 0.2 }] },
        { requestId: 'q2', run: 0, chosen: null, scores: [{ name: 'expenses', score: scores[1] }, { name: 'leave-balance', score: 0.1 }] },
      ],
    }],
  };
}

describe('word diff', () => {
  it('marks the words removed and added; the unchanged and added pieces give the new text back', () => {
    const before = 'Computes how many paid-leave days are left today.';
    const after = 'Calculates how many paid-leave days are left today, for a trip.';
    const diff = wordDiff(before, after);
    expect(diff).toEqual([
      { op: 'del', text: 'Computes ' },
      { op: 'ins', text: 'Calculates ' },
      { op: 'same', text: 'how many paid-leave days are left today' },
      { op: 'ins', text: ', for a trip' },
      { op: 'same', text: '.' },
    ]);
    expect(diff.filter((p) => p.op !== 'del').map((p) => p.text).join('')).toBe(after);
    expect(wordDiff('same text', 'same  text')).toEqual([{ op: 'same', text: 'same  text' }]); // spacing is no change
    expect(wordDiff('', 'new')).toEqual([{ op: 'ins', text: 'new' }]);
  });
});

describe('changes against a baseline', () => {
  it('names the skills whose description changed, with the diff, and those added or removed', () => {
    const before = results('Computes the leave balance.', [0.39, 0.3]);
    const now = results('Computes the paid-leave balance and holidays left.', [0.51, 0.3]);
    now.catalogue.skills.push({ name: 'new-skill', hash: 'n', category: '', description: 'Brand new.' });
    const changes = skillChanges(now, before);
    expect(changes.map((c) => [c.name, c.change])).toEqual([['leave-balance', 'changed'], ['new-skill', 'added']]);
    expect(changes[0]!.diff!.filter((p) => p.op === 'ins').map((p) => p.text)).toEqual(['paid-leave ', 'and holidays left']);
    expect(skillChanges(before, now).map((c) => [c.name, c.change])).toEqual([['leave-balance', 'changed'], ['new-skill', 'removed']]);
  });
  it('against a version-1 baseline: a changed hash is named, and why no diff can be shown', () => {
    const changes = skillChanges(results('Computes the paid-leave balance.', [0.5, 0.3]), results('Computes the leave balance.', [0.5, 0.3], 1));
    expect(changes).toHaveLength(1);
    expect(changes[0]!.diff).toBeUndefined();
    expect(changes[0]!.why).toMatch(/version-1 results file/);
  });
  it('moves the deciding score of a request that did not flip: the gold skill\'s, or the top one when none is needed', () => {
    const before = results('a', [0.39, 0.3]);
    const now = results('a', [0.51, 0.45]);
    const changes = requestChanges(now, before);
    const q1 = changes.get(requestKey(now.requests[0]!))!.get('similarity')!;
    expect(q1.flipped).toBe(false);
    expect(q1.before.score).toBe(0.39);
    expect(q1.delta).toBeCloseTo(0.12, 10);
    const q2 = changes.get(requestKey(now.requests[1]!))!.get('similarity')!;
    expect(q2.delta).toBeCloseTo(0.15, 10);
    // Crossing the threshold is a flip.
    const crossed = requestChanges(results('a', [0.6, 0.3]), before).get(requestKey(now.requests[0]!))!.get('similarity')!;
    expect([crossed.flipped, crossed.choiceChanged]).toEqual([true, true]);
    expect(decidingScore({ requestId: 'x', run: 0, chosen: null, scores: [{ name: 'b', score: 0.4 }] }, 'a')).toBeUndefined(); // gold not kept
  });
});

describe('the words a request shares with a skill', () => {
  it('compares stems, keeps the words as written, leaves out common words and numbers', () => {
    const stems = skillStems({ name: 'expense-report-checker', description: 'Checks expense reports and receipts against the travel policy.' });
    expect(matchedWords('Is my taxi receipt from the 3 expenses reimbursable under the policy?', stems)).toEqual(['receipt', 'expenses', 'policy']);
    expect(matchedWords('What is the capital of France?', stems)).toEqual([]);
  });
});

describe('language guess', () => {
  it('names the script, else the language whose common words the text uses', () => {
    expect(guessLanguage('How many days of holiday do I have left?')).toBe('English');
    expect(guessLanguage('Combien de jours de congés me reste-t-il pour la fin de l\'année ?')).toBe('French');
    expect(guessLanguage('Wie viele Urlaubstage habe ich noch und was ist mit dem Übertrag?')).toBe('German');
    expect(guessLanguage('¿Cuántos días de vacaciones me quedan para el año que viene?')).toBe('Spanish');
    expect(guessLanguage('経費精算の領収書を確認してください')).toBe('Japanese');
    expect(guessLanguage('请检查我的报销单')).toBe('Chinese');
    expect(guessLanguage('Сколько дней отпуска у меня осталось?')).toBe('Cyrillic script');
    expect(guessLanguage('Xyzzy plugh')).toBe('unknown');
  });
});
