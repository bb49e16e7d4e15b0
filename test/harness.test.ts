// The agent loop end to end through the REAL SDKs (Gemini, Claude) against the local wire-format server: scripted
// model turns (activate, run the script, read files, answer) in both modes. The server answers a usage that is a
// deterministic function of the request body it received, so every token figure of the run can be recomputed from
// the recorded requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { anthropic, fault, gemini, openai, startWireServer, type Api, type Recorded, type Reply, type WireServer } from './support/wire-server.js';
import { loadCatalogue } from '../src/catalogue.js';
import { createChatClient } from '../src/client.js';
import { runAgent, type AgentRun } from '../src/harness.js';
import { renderCatalogue, renderSkillContent } from '../src/prompt.js';
import { bwrapWorks } from '../src/sandbox.js';
import { countTokens } from '../src/tokenizer.js';
import type { Catalogue } from '../src/types.js';

const SKILLS = join(import.meta.dirname, '..', 'skills');
const EXPENSE = 'expense-report-checker';
const canSandbox = await bwrapWorks();

/** The server's usage rule: a quarter of the request body's JSON length, rounded up. */
const tokensOf = (body: unknown) => Math.ceil(JSON.stringify(body).length / 4);

type Step = { calls: { name: string; args: Record<string, unknown> }[] } | { text: string };

/** A scripted model: answers step i to the i-th request, with usage computed from the body received. */
function scripted(api: Api, steps: Step[]) {
  let i = 0;
  return (req: Recorded): Reply => {
    const step = steps[Math.min(i++, steps.length - 1)]!;
    const usage = { input: tokensOf(req.body), output: 11 };
    if ('text' in step) return api === 'gemini' ? gemini.text(step.text, usage) : api === 'openai' ? openai.text(step.text, usage) : anthropic.text(step.text, usage);
    if (api === 'openai') return openai.toolCalls(step.calls, usage);
    return api === 'gemini'
      ? gemini.functionCalls(step.calls, usage)
      : anthropic.toolUses(step.calls.map((c) => ({ name: c.name, input: c.args })), usage);
  };
}

const ANSWER = 'Reimbursable total: 551.80 EUR. Lines needing attention: the hotel (capped), the beers (alcohol), a missing receipt and a weekend line pending approval.';

/** The demo expense case as the design describes it: activate, run the script, read the template, read the policy, answer. */
const PROGRESSIVE_STEPS: Step[] = [
  { calls: [{ name: 'activate_skill', args: { name: EXPENSE } }] },
  { calls: [{ name: 'run_skill_script', args: { name: EXPENSE, path: 'scripts/check_expenses.mjs', args: ['assets/sample-expenses.csv'] } }] },
  { calls: [{ name: 'read_skill_file', args: { name: EXPENSE, path: 'assets/report.md' } }] },
  { calls: [{ name: 'read_skill_file', args: { name: EXPENSE, path: 'references/policy.md' } }] },
  { text: ANSWER },
];
/** Load-all: everything is in the prompt already; the script still has to run. */
const LOAD_ALL_STEPS: Step[] = [
  { calls: [{ name: 'run_skill_script', args: { name: EXPENSE, path: 'scripts/check_expenses.mjs', args: ['assets/sample-expenses.csv'] } }] },
  { text: ANSWER },
];

let server: WireServer;
let catalogue: Catalogue;
let cacheDir: string;

beforeAll(async () => {
  server = await startWireServer({});
  catalogue = await loadCatalogue(SKILLS);
  cacheDir = mkdtempSync(join(tmpdir(), 'skillbench-harness-cache-'));
});
afterAll(async () => {
  await server.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

async function clientFor(api: 'gemini' | 'anthropic' | 'openai') {
  const env = api === 'gemini' ? { GEMINI_API_KEY: 'test-key' } : api === 'openai' ? { OPENAI_API_KEY: 'test-key' } : { ANTHROPIC_API_KEY: 'test-key' };
  return createChatClient(
    { provider: api, baseUrl: server.baseUrl(api), cacheDir, cache: false, timeout: 20 },
    { env, maxRetries: 0 },
  );
}

/** Runs steps against a fresh handler; returns the run and the requests it made. */
async function drive(api: 'gemini' | 'anthropic' | 'openai', mode: 'progressive' | 'load-all', steps: Step[], maxTurns?: number): Promise<{ run: AgentRun; sent: Recorded[] }> {
  const before = server.requests.length;
  server.setHandlers({ [api]: scripted(api, steps) });
  const client = await clientFor(api);
  const run = await runAgent(client, catalogue, 'Check the demo expense report and tell me what is reimbursable.', { mode, maxTurns });
  return { run, sent: server.requests.slice(before).filter((r) => r.api === api) };
}

/** The system text as each API carries it: [catalogue block, loaded-skills block?]. */
function systemTexts(api: Api, body: Record<string, unknown>): string[] {
  if (api === 'gemini') return ((body.systemInstruction as { parts: { text: string }[] }).parts ?? []).map((p) => p.text);
  return (body.system as { text: string }[]).map((b) => b.text);
}

function toolNames(api: Api, body: Record<string, unknown>): string[] {
  if (api === 'gemini') return ((body.tools as { functionDeclarations: { name: string }[] }[] | undefined) ?? []).flatMap((t) => t.functionDeclarations.map((d) => d.name));
  return ((body.tools as { name: string }[] | undefined) ?? []).map((t) => t.name);
}

describe.skipIf(!canSandbox)('harness: the demo expense case through the real SDKs (skipped: no sandbox for the script)', () => {
  for (const api of ['gemini', 'anthropic'] as const) {
    describe(api, () => {
      it('progressive: five calls; every token figure matches the requests the server received', async () => {
        const { run, sent } = await drive(api, 'progressive', PROGRESSIVE_STEPS);
        expect(run.stop).toBe('answer');
        expect(run.answer).toBe(ANSWER);
        expect(run.calls).toHaveLength(5);
        expect(sent).toHaveLength(5);
        // Per call and cumulated, exactly as the provider (here the server) counted them.
        const perCall = sent.map((r) => tokensOf(r.body));
        expect(run.calls.map((c) => c.usage.inputTokens)).toEqual(perCall);
        let sum = 0;
        expect(run.calls.map((c) => c.cumulativeInputTokens)).toEqual(perCall.map((t) => (sum += t)));
        expect(run.inputTokens).toBe(sum);
        expect(run.outputTokens).toBe(5 * 11);
        expect(run.finalPromptTokens).toBe(perCall[4]);
        expect(run.resentTokens).toBe(sum - perCall[4]!);

        // The tool calls were executed and their results went back to the model.
        expect(run.calls.slice(0, 4).map((c) => c.toolCalls[0]!.level)).toEqual(['body', 'script', 'resource', 'resource']);
        expect(run.calls.flatMap((c) => c.toolCalls).every((t) => !t.isError)).toBe(true);
        const script = run.calls[1]!.toolCalls[0]!;
        expect(script.script).toMatchObject({ exitCode: 0, timedOut: false, truncated: false });
        const stdout = /<stdout>\n([\s\S]*)\n<\/stdout>/.exec(script.result)![1]!;
        expect(JSON.parse(stdout).policy).toBe('AN-EXP-2026');
        expect(JSON.stringify(sent[2]!.body)).toContain('AN-EXP-2026'); // script output reached the third request

        // Level accounting: each level counted once with the offline tokenizer on what was sent.
        const skill = catalogue.skills.find((s) => s.name === EXPENSE)!;
        const level = (s: string) => run.levels.find((l) => l.source === s)!;
        expect(level('bodies').once).toBe(countTokens(renderSkillContent(skill)));
        const files = ['assets/report.md', 'references/policy.md'].map((p) => countTokens(readFileSync(join(skill.dir!, p), 'utf8')));
        expect(level('resources').once).toBe(files[0]! + files[1]!);
        expect(level('scripts').once).toBe(run.calls[1]!.toolCalls[0]!.resultTokens);
        // The body entered at call 2 and was carried by calls 2..5; the catalogue by all five.
        expect(level('bodies').carried).toBe(level('bodies').once * 4);
        expect(level('system').carried).toBe(level('system').once * 5);
        expect(run.activated).toEqual([EXPENSE]);
        expect(run.scriptRuns).toBe(1);
      });

      it('progressive: the catalogue block is byte-identical on every call; the loaded block follows it', async () => {
        const { sent } = await drive(api, 'progressive', PROGRESSIVE_STEPS);
        const systems = sent.map((r) => systemTexts(api, r.body));
        const prefix = systems[0]![0]!;
        expect(prefix).toContain(renderCatalogue(catalogue.skills, 'lines'));
        for (const s of systems) expect(s[0]).toBe(prefix);
        expect(systems[0]).toHaveLength(1);
        for (const s of systems.slice(1)) {
          expect(s).toHaveLength(2);
          expect(s[1]).toContain(`- ${EXPENSE} (version `);
        }
        // The body is not in the system prompt: it arrives once, as the activate_skill result.
        const body = catalogue.skills.find((s) => s.name === EXPENSE)!.body.trim().slice(0, 200);
        for (const s of systems) expect(s.join('\n')).not.toContain(body);
        expect(JSON.stringify(sent[1]!.body)).toContain(JSON.stringify(body).slice(1, 80));
        // The three skill tools on every call (this skill unlocks no profile).
        for (const r of sent) expect(toolNames(api, r.body)).toEqual(['activate_skill', 'read_skill_file', 'run_skill_script']);
        if (api === 'anthropic') {
          const first = (sent[0]!.body.system as { cache_control?: unknown }[])[0]!;
          expect(first.cache_control).toEqual({ type: 'ephemeral' });
        }
      });

      it('load-all: every body and file in the system prompt, only run_skill_script and profile tools, fewer calls', async () => {
        const { run, sent } = await drive(api, 'load-all', LOAD_ALL_STEPS);
        expect(run.stop).toBe('answer');
        expect(run.calls).toHaveLength(2);
        const perCall = sent.map((r) => tokensOf(r.body));
        expect(run.inputTokens).toBe(perCall[0]! + perCall[1]!);
        const system = systemTexts(api, sent[0]!.body).join('\n');
        const skill = catalogue.skills.find((s) => s.name === EXPENSE)!;
        expect(system).toContain(readFileSync(join(skill.dir!, 'references', 'policy.md'), 'utf8').trim().slice(0, 300));
        for (const s of catalogue.skills.filter((x) => x.state !== 'never')) expect(system).toContain(`<skill name="${s.name}"`);
        const names = toolNames(api, sent[0]!.body);
        expect(names[0]).toBe('run_skill_script');
        expect(names).not.toContain('activate_skill');
        expect(names).not.toContain('read_skill_file');
        expect(run.levels.find((l) => l.source === 'bodies')!.once).toBe(0);
      });

      it('progressive costs fewer input tokens than load-all on the demo case', async () => {
        const p = await drive(api, 'progressive', PROGRESSIVE_STEPS);
        const l = await drive(api, 'load-all', LOAD_ALL_STEPS);
        expect(p.run.calls.length).toBeGreaterThan(l.run.calls.length);
        expect(p.run.inputTokens).toBeLessThan(l.run.inputTokens);
      });
    });
  }
});

describe.skipIf(!canSandbox)('harness: the OpenAI SDK runs the same loop (skipped: no sandbox for the script)', () => {
  it('progressive: five calls, cumulative input equals the sum the server counted', async () => {
    const { run, sent } = await drive('openai', 'progressive', PROGRESSIVE_STEPS);
    expect(run.stop).toBe('answer');
    expect(sent).toHaveLength(5);
    expect(run.inputTokens).toBe(sent.reduce((t, r) => t + tokensOf(r.body), 0));
    const last = sent[4]!.body.messages as { role: string; tool_call_id?: string; content: string }[];
    expect(last.filter((m) => m.role === 'tool')).toHaveLength(4);
    expect(run.calls.flatMap((c) => c.toolCalls).every((t) => !t.isError)).toBe(true);
  });
});

describe('harness: loop limits and failures', () => {
  it('a refused read goes back to the model as a tool error and the loop goes on', async () => {
    const { run, sent } = await drive('anthropic', 'progressive', [
      { calls: [{ name: 'read_skill_file', args: { name: EXPENSE, path: '../hr-policy-qa/SKILL.md' } }] },
      { text: 'done' },
    ]);
    expect(run.stop).toBe('answer');
    expect(run.calls[0]!.toolCalls[0]).toMatchObject({ isError: true, level: 'error' });
    const result = (sent[1]!.body.messages as { content: unknown }[])[2]!.content as { type: string; is_error?: boolean; content: string }[];
    expect(result[0]).toMatchObject({ type: 'tool_result', is_error: true });
    expect(result[0]!.content).toMatch(/leaves the skill folder/);
  });

  it('stops at --max-turns without running the last turn\'s tools', async () => {
    const { run, sent } = await drive('gemini', 'progressive', [{ calls: [{ name: 'activate_skill', args: { name: EXPENSE } }] }], 3);
    expect(run.stop).toBe('max-turns');
    expect(run.answer).toBeNull();
    expect(sent).toHaveLength(3);
    expect(run.calls[2]!.toolCalls[0]!.skipped).toBe(true);
    expect(run.calls[1]!.toolCalls[0]!.result).toMatch(/already loaded/);
  });

  it('a provider failure ends the run with stop "error" and keeps the trace', async () => {
    const before = server.requests.length;
    let i = 0;
    server.setHandlers({
      gemini: (req) => (i++ === 0 ? gemini.functionCall('activate_skill', { name: EXPENSE }, { input: tokensOf(req.body) }) : fault.status(400, { body: { error: { code: 400, message: 'bad request', status: 'INVALID_ARGUMENT' } } })),
    });
    const run = await runAgent(await clientFor('gemini'), catalogue, 'hello', { mode: 'progressive' });
    expect(run.stop).toBe('error');
    expect(run.errorKind).toBe('provider');
    expect(run.error).toBeTruthy();
    expect(run.calls).toHaveLength(1);
    expect(server.requests.length - before).toBe(2);
  });
});

describe('harness: skill states and tool profiles through the loop', () => {
  it('always bodies in the system prompt, never skills absent, profile tools from the turn after the activation', async () => {
    const fixture = await loadCatalogue(join(import.meta.dirname, '..', 'fixtures', 'harness', 'catalogue'));
    const before = server.requests.length;
    server.setHandlers({
      anthropic: scripted('anthropic', [
        { calls: [{ name: 'activate_skill', args: { name: 'notes' } }] },
        { calls: [{ name: 'lookup_customer', args: { email: 'ana@example.com' } }] },
        { calls: [{ name: 'activate_skill', args: { name: 'hidden' } }] },
        { text: 'done' },
      ]),
    });
    const run = await runAgent(await clientFor('anthropic'), fixture, 'Summarise these notes.', { mode: 'progressive' });
    const sent = server.requests.slice(before);
    expect(run.stop).toBe('answer');
    const system = systemTexts('anthropic', sent[0]!.body)[0]!;
    expect(system).toContain('Always answer in plain English'); // the always-state body
    expect(system).toMatch(/^notes: /m);
    expect(JSON.stringify(sent.map((r) => r.body))).not.toContain('Secret instructions');
    expect(system).not.toContain('hidden');
    expect(toolNames('anthropic', sent[0]!.body)).toEqual(['activate_skill', 'read_skill_file', 'run_skill_script']);
    expect(toolNames('anthropic', sent[1]!.body)).toEqual(['activate_skill', 'read_skill_file', 'run_skill_script', 'lookup_customer']);
    expect(run.calls[1]!.toolCalls[0]).toMatchObject({ level: 'profile', isError: true });
    expect(run.calls[1]!.toolCalls[0]!.result).toMatch(/^simulated tool "lookup_customer": not connected/);
    expect(run.calls[2]!.toolCalls[0]).toMatchObject({ level: 'error', isError: true });
    expect(run.activated).toEqual(['notes']);
  });
});

describe.skipIf(!canSandbox)('harness: a script that floods its output (skipped: no sandbox for the script)', () => {
  it('50 MB printed: the model gets 256 KiB plus the marker, and the run ends without minutes of token counting', { timeout: 60_000 }, async () => {
    const fixture = await loadCatalogue(join(import.meta.dirname, '..', 'fixtures', 'harness', 'catalogue'));
    server.setHandlers({
      anthropic: scripted('anthropic', [
        { calls: [{ name: 'activate_skill', args: { name: 'hostile' } }] },
        { calls: [{ name: 'run_skill_script', args: { name: 'hostile', path: 'scripts/flood.mjs', args: ['50'] } }] },
        { text: 'done' },
      ]),
    });
    const run = await runAgent(await clientFor('anthropic'), fixture, 'Flood.', { mode: 'progressive' });
    expect(run.stop).toBe('answer');
    const script = run.calls[1]!.toolCalls[0]!;
    expect(script.script).toMatchObject({ exitCode: 0, truncated: true });
    expect(script.result).toContain('more bytes not shown]');
    expect(script.resultTokens).toBeGreaterThan(1_000); // counted (in pieces), not skipped
    expect(run.levels.find((l) => l.source === 'scripts')!.once).toBe(script.resultTokens);
  });
});

