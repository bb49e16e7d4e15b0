// JUnit XML: one test suite per selector, one test case per request (and run), so CI systems list the failures
// natively. A wrong or needless load is a <failure> with what was expected and what was loaded; a failed call is an
// <error>. classname = selector, name = request id and text. For eval-quality results a test case is a quality case
// in one mode, and a failure is an answer that failed its checks.
import type { ResultsFile } from '../types.js';
import { incompleteText } from '../completeness.js';
import { decisionRows, expectedText, hasRepeats, isQuality, loaded, outcomeOf, passedOf, skillText, whyFailed } from './format.js';

export function renderJunit(results: ResultsFile): string {
  const repeats = hasRepeats(results);
  const quality = isQuality(results);
  const suites: string[] = [];
  let tests = 0;
  let failures = 0;
  let errors = 0;
  let totalTime = 0;
  for (const run of results.runs) {
    const cases: string[] = [];
    let suiteFailures = 0;
    let suiteErrors = 0;
    let suiteTime = 0;
    const rows = decisionRows(results, run);
    for (const { d, r } of rows) {
      const name = `${r.id}: ${oneLine(r.text)}${repeats ? ` (run ${d.run + 1})` : ''}`;
      const seconds = (d.latencyMs ?? 0) / 1000;
      suiteTime += seconds;
      const open = `    <testcase classname="${xml(run.selector)}" name="${xml(name)}" time="${seconds.toFixed(3)}"`;
      const outcome = outcomeOf(d, r);
      const passed = quality ? passedOf(d) : undefined;
      if (passed !== undefined && d.error === undefined) {
        // eval-quality: a case passes when its answer passed every check; a failure names the checks that failed.
        if (passed) cases.push(`${open}/>`);
        else {
          suiteFailures++;
          const why = whyFailed(d) || 'the answer failed its checks';
          cases.push(`${open}>\n      <failure message="${xml(oneLine(why))}" type="quality-check">${xmlText(`${why}\nrequest: ${r.text}`)}</failure>\n    </testcase>`);
        }
      } else if (outcome === 'correct') {
        cases.push(`${open}/>`);
      } else if (outcome === 'error') {
        suiteErrors++;
        cases.push(`${open}>\n      <error message="${xml(oneLine(d.error ?? ''))}" type="provider-error">${xmlText(d.error ?? '')}</error>\n    </testcase>`);
      } else {
        suiteFailures++;
        const expected = expectedText(r);
        const got = skillText(loaded(d));
        const score = d.scores?.[0] ? `\nscore: ${d.scores[0].score}` : '';
        cases.push(
          `${open}>\n      <failure message="${xml(`${outcome}: expected ${expected}, got ${got}`)}" type="${outcome}">` +
            `${xmlText(`expected: ${expected}\ngot: ${got}${score}\nrequest: ${r.text}`)}</failure>\n    </testcase>`,
        );
      }
    }
    tests += rows.length;
    failures += suiteFailures;
    errors += suiteErrors;
    totalTime += suiteTime;
    const props = [
      ['selector.kind', run.kind],
      ...(run.ceiling ? [['ceiling', 'true']] : []),
      ...(run.provider ? [['provider', run.provider]] : []),
      ...(run.model ? [['model', run.model]] : []),
      ...(run.threshold ? [['threshold', `${run.threshold.value} (${run.threshold.source})`]] : []),
    ]
      .map(([k, v]) => `      <property name="${xml(k!)}" value="${xml(v!)}"/>`)
      .join('\n');
    suites.push(
      `  <testsuite name="${xml(run.selector)}" tests="${rows.length}" failures="${suiteFailures}" errors="${suiteErrors}" skipped="0" ` +
        `time="${suiteTime.toFixed(3)}" timestamp="${xml(results.createdAt)}">\n    <properties>\n${props}\n    </properties>\n` +
        `${cases.join('\n')}${cases.length ? '\n' : ''}  </testsuite>`,
    );
  }
  // An incomplete run is one more failing test case, so CI shows it in words even when every decision made passed.
  const incomplete = incompleteText(results.completeness);
  if (incomplete) {
    tests++;
    errors++;
    suites.push(
      `  <testsuite name="completeness" tests="1" failures="0" errors="1" skipped="0" time="0.000" timestamp="${xml(results.createdAt)}">\n` +
        `    <testcase classname="completeness" name="every call answered" time="0.000">\n      <error message="${xml(incomplete)}" type="incomplete">${xmlText(incomplete)}</error>\n    </testcase>\n  </testsuite>`,
    );
  }
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<testsuites name="skillbench ${xml(results.command)}" tests="${tests}" failures="${failures}" errors="${errors}" time="${totalTime.toFixed(3)}">\n` +
    `${suites.join('\n')}${suites.length ? '\n' : ''}</testsuites>\n`
  );
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Escapes text for an XML attribute value, dropping characters XML 1.0 cannot hold; line breaks kept as references. */
export function xml(value: string): string {
  return xmlText(value).replace(/\n/g, '&#10;').replace(/\r/g, '&#13;');
}

/** Escapes text for XML element content. */
function xmlText(value: string): string {
  return value
    .replace(/[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}
