// Script and language detection, what the offline models are said to be unable to read, and eval-trigger end to end
// on a Chinese and Japanese request set: the warning on stderr, error rows (never a quiet "none"), figures per
// language in the report, and the summary in the results file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { detectLanguages, dominantScript, keywordReads, languageGroup, languageWarnings, useReads } from '../src/language.js';
import { readResults } from '../src/results.js';
import { computeMetrics } from '../src/metrics.js';
import { runCli } from './support/cli.js';
import type { Skill } from '../src/types.js';
import { clearProviderEnv } from './support/fixtures.js';

clearProviderEnv();

describe('scripts and languages', () => {
  it('finds the script most letters are in', () => {
    expect(dominantScript('Merge these PDF files')).toBe('Latin');
    expect(dominantScript('帮我查一下明天的航班')).toBe('Han');
    expect(dominantScript('今日の天気はどうですか')).toBe('Kana'); // kanji with kana: Japanese
    expect(dominantScript('안녕하세요 날씨 어때요')).toBe('Hangul');
    expect(dominantScript('Привет, как дела?')).toBe('Cyrillic');
    expect(dominantScript('Summarise 这份文件 for me please now')).toBe('Latin');
    expect(dominantScript('2 + 2 = ?')).toBe('none');
  });
  it('detects languages offline, and says "und" when unsure', async () => {
    const skills = [{ name: 's', description: 'Checks expense reports against the policy.' }] as Skill[];
    const l = await detectLanguages([
      { id: 'en', text: 'Can you check my travel expenses before I send them?', gold: null },
      { id: 'fr', text: 'Peux-tu contrôler les dépenses de Julien avant que je valide ?', gold: null },
      { id: 'zh', text: '请帮我合并这两个文件', gold: null },
      { id: 'short', text: 'hi', gold: null },
    ], skills);
    expect(l.requests.en).toEqual({ language: 'en', script: 'Latin' });
    expect(l.requests.fr).toEqual({ language: 'fr', script: 'Latin' });
    expect(l.requests.zh).toEqual({ language: 'zh', script: 'Han' });
    expect(l.requests.short!.language).toBe('und');
    expect(l.skills.s).toEqual({ language: 'en', script: 'Latin' });
    expect(l.detector).toMatch(/^eld /);
  });
  it('says who reads what', () => {
    expect(useReads({ language: 'en', script: 'Latin' })).toBe('yes');
    expect(useReads({ language: 'und', script: 'Latin' })).toBe('yes');
    expect(useReads({ language: 'fr', script: 'Latin' })).toBe('poorly');
    expect(useReads({ language: 'ja', script: 'Kana' })).toBe('no');
    expect(keywordReads({ language: 'fr', script: 'Latin' })).toBe(true);
    expect(keywordReads({ language: 'zh', script: 'Han' })).toBe(false);
    expect(languageGroup({ language: 'und', script: 'Han' })).toBe('und-Han');
  });
  it('warns once per problem, naming counts and the selectors affected, and not for embeddings that read them', () => {
    const summary = {
      detector: 'eld',
      requests: { a: { language: 'zh', script: 'Han' }, b: { language: 'ja', script: 'Kana' }, c: { language: 'fr', script: 'Latin' }, d: { language: 'en', script: 'Latin' } },
      skills: { s: { language: 'en', script: 'Latin' } },
    };
    const w = languageWarnings(summary, { selectors: ['fused', 'similarity', 'keyword', 'explicit'], embeddings: 'use' });
    expect(w).toHaveLength(2);
    expect(w[0]).toMatch(/^2 of 4 requests are in a script other than Latin \(ja 1, zh 1\): similarity \(use\) cannot read them: error rows; keyword cannot read them/);
    expect(w[1]).toMatch(/^1 of 4 requests are not in English \(fr 1\); the offline embedding model \(use\) reads English only/);
    const gemini = languageWarnings(summary, { selectors: ['similarity', 'keyword'], embeddings: 'gemini' });
    expect(gemini).toHaveLength(1); // keyword still cannot read Han and Kana
    expect(gemini[0]).not.toMatch(/similarity/);
    expect(languageWarnings({ ...summary, requests: { d: summary.requests.d } }, { selectors: ['fused'], embeddings: 'use' })).toEqual([]);
  });
});

describe('eval-trigger on requests the offline models cannot read', () => {
  let dir: string;
  const file = (name: string) => path.join(dir, name);
  const catalogue = [
    { name: 'pdf-tools', description: 'Extract text and tables from PDF files, merge and split PDF documents.' },
    { name: 'weather-report', description: 'Give the current weather and a five-day forecast for a city.' },
    { name: 'email-writer', description: 'Draft and polish professional emails: replies, follow-ups and apologies.' },
  ];
  const requests = [
    { id: 'en-1', text: 'Merge these two PDF files into one', gold: 'pdf-tools' },
    { id: 'en-2', text: 'What will the weather be in Lyon tomorrow?', gold: 'weather-report' },
    { id: 'en-3', text: 'Tell me a joke about penguins', gold: null },
    { id: 'zh-1', text: '请帮我把这两个文件合并成一个', gold: 'pdf-tools' },
    { id: 'zh-2', text: '明天北京的天气怎么样？', gold: 'weather-report' },
    { id: 'zh-3', text: '给我讲一个关于企鹅的笑话', gold: null },
    { id: 'ja-1', text: '明日の東京の天気を教えてください', gold: 'weather-report' },
    { id: 'ja-2', text: 'ペンギンについての冗談を言って', gold: null },
  ];
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'skillbench-languages-'));
    await writeFile(file('catalogue.json'), JSON.stringify(catalogue));
    await writeFile(file('requests.json'), JSON.stringify(requests));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('warns on stderr, makes error rows of what no signal can read, and shows figures per language', async () => {
    const r = await runCli(['eval-trigger', '--no-progress', '--cache-dir', file('cache'), '--skills', file('catalogue.json'), '--requests', file('requests.json'), '--json', file('r.json'), '-o', file('r.md')]);
    // The requests no signal can read are error rows: the run is incomplete (exit 4), and says so.
    expect(r.code).toBe(4);
    const warning = r.stderr.split('\n').filter((l) => l.startsWith('skillbench: warning:'));
    expect(warning).toHaveLength(1);
    expect(warning[0]).toMatch(/5 of 8 requests are in a script other than Latin \(zh 3, ja 2\): similarity \(use\) cannot read them: error rows; keyword cannot read them/);
    const results = await readResults(file('r.json'));
    expect(results.languages!.requests['zh-1']).toEqual({ language: 'zh', script: 'Han' });
    expect(results.languages!.warnings).toHaveLength(1);
    for (const selector of ['similarity', 'keyword', 'fused']) {
      const run = results.runs.find((x) => x.selector === selector)!;
      const errors = run.decisions.filter((d) => d.error !== undefined).map((d) => d.requestId);
      expect(errors, selector).toEqual(['zh-1', 'zh-2', 'zh-3', 'ja-1', 'ja-2']);
      const m = computeMetrics(run, results.requests);
      expect(m.errors).toBe(5); // counted apart: never a "none" that would count the uncovered ones as right
      expect(m.accuracy.n).toBe(3);
    }
    expect(r.stdout).toMatch(/Languages \(detected offline with eld/);
    expect(r.stdout).toMatch(/│ zh\s+│\s+3 \(2 covered\)/);
    expect(r.stdout).toMatch(/- \(3 errors\)/);
    const md = await readFile(file('r.md'), 'utf8');
    expect(md).toContain('#### Languages');
    expect(md).toMatch(/- ⚠️ 5 of 8 requests are in a script other than Latin/);
    expect(md).toMatch(/\| zh \| 3 \(2 covered\) \| n\/a \(0\/0\) \+ 3 errors \|/);
  });
});
