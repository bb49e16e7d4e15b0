// The HTML report's page: the shell around the sections (head, Content-Security-Policy, header with the gate badge
// and the run's line, the section links, footer), its inline CSS, and the stable ids of the charts' clip paths.
import type { ResultsFile } from '../types.js';
import { incompleteText } from '../completeness.js';
import { CASES_SCRIPT } from './cases-html.js';
import { escapeHtml as e, isQuality, when } from './format.js';
import { REQUESTS_CSS, REQUESTS_SCRIPT } from './requests-html.js';

/** The page around the sections (exported for the improve report, which has no failure filter: `script` ''). */
export function page(results: ResultsFile, sections: string[], script = `${CASES_SCRIPT}\n${REQUESTS_SCRIPT}`): string {
  const nav = [...sections.join('').matchAll(/<section id="([a-z-]+)"><h2>([^<]+)<\/h2>/g)]
    .map(([, id, title]) => `<a href="#${id}">${title}</a>`)
    .join('');
  const title = `skillbench ${results.command} report`;
  return stableClipIds(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="generator" content="skillbench ${e(results.skillbenchVersion)}">
<title>${e(title)}</title>
<style>${CSS}
${REQUESTS_CSS}</style>
</head>
<body>
<header>
<div class="title"><h1>skillbench <span>${e(results.command)}</span></h1>${gateBadge(results)}</div>
<p class="meta">${metaLine(results)}</p>
<nav>${nav}</nav>
</header>
<main>
${sections.join('\n')}
</main>
<footer>Rendered by skillbench ${e(results.skillbenchVersion)} from a results file (schema ${e(results.schema)} v${results.version}); every figure is recomputed from its decisions. This page loads nothing from the network.</footer>
${script ? `<script>${script}</script>` : ''}
</body>
</html>
`);
}

/**
 * vega numbers its clip paths from a counter global to the process, so the same results would give different bytes
 * from one render to the next. Renumber them in order of appearance: unique within the page, and reproducible.
 */
function stableClipIds(html: string): string {
  const ids = new Map<string, string>();
  // Only inside the charts: escaped user text cannot contain `<svg`, so it is never touched.
  return html.replace(/<svg [\s\S]*?<\/svg>/g, (svg) =>
    svg.replace(/(id="|url\(#)(clip\d+)\b/g, (_m, prefix: string, id: string) => {
      if (!ids.has(id)) ids.set(id, `chart-clip-${ids.size + 1}`);
      return `${prefix}${ids.get(id)}`;
    }),
  );
}

function metaLine(results: ResultsFile): string {
  const quality = isQuality(results);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const parts = [
    plural(results.requests.length, quality ? 'case' : 'request'),
    `${plural(results.catalogue.skills.length, 'skill')} from <code>${e(results.catalogue.source)}</code>`,
    plural(results.runs.length, quality ? 'mode' : results.command === 'suggest-eval' ? 'arm' : results.command === 'improve' ? 'scored description' : 'selector'),
    results.catalogue.format ? `catalogue format ${e(results.catalogue.format)}` : '',
    `created ${e(when(results.createdAt))}`,
  ];
  return parts.filter(Boolean).join(' · ');
}

function gateBadge(results: ResultsFile): string {
  const incomplete = incompleteText(results.completeness);
  const warn = incomplete ? `<span class="badge fail" title="${e(incomplete)}">⚠ incomplete</span><p class="verdict fail">${e(incomplete)}</p>` : '';
  if (!results.gate) return warn;
  if (warn) return warn + (results.gate.passed ? '' : '<span class="badge fail">✗ gate failed</span>');
  return results.gate.passed
    ? '<span class="badge pass">✓ gate passed</span>'
    : '<span class="badge fail">✗ gate failed</span>';
}

const CSS = `
:root{--fg:#111827;--muted:#6b7280;--line:#e5e7eb;--bg:#f8fafc;--card:#fff;--wrong:#c2410c;--needless:#1d4ed8;--ok:#15803d;--bad:#b91c1c}
*{box-sizing:border-box}
body{margin:0;font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header{background:#0f172a;color:#f8fafc;padding:20px 32px 0}
header .title{display:flex;align-items:center;gap:16px;flex-wrap:wrap}
h1{margin:0;font-size:22px;font-weight:650}h1 span{color:#93c5fd}
.meta{margin:6px 0 12px;color:#cbd5e1}.meta code{color:#e2e8f0}
nav{display:flex;gap:4px;flex-wrap:wrap}nav a{color:#cbd5e1;text-decoration:none;padding:6px 10px;border-radius:6px 6px 0 0}nav a:hover{background:#1e293b;color:#fff}
.badge{padding:3px 10px;border-radius:999px;font-weight:600;font-size:13px}.badge.pass{background:#dcfce7;color:#14532d}.badge.fail{background:#fee2e2;color:#7f1d1d}
main{max-width:1180px;margin:0 auto;padding:8px 24px 24px}
section{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:16px 20px;margin:18px 0}
h2{margin:0 0 8px;font-size:17px}h3{font-size:15px;margin:14px 0 6px}
.lede{color:var(--muted);margin:0 0 12px;max-width:900px}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{padding:6px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
thead th{background:#f1f5f9;font-weight:600;white-space:nowrap}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.pct{font-weight:600}.kn,.sub{color:var(--muted);font-size:12px}
tr.ceiling th,tr.ceiling td{background:repeating-linear-gradient(135deg,#fff,#fff 6px,#f3f4f6 6px,#f3f4f6 12px)}
.tag{border:1px dashed #6b7280;border-radius:4px;padding:0 5px;font-size:11px;font-weight:500;color:#374151}
.scroll{overflow-x:auto}
figure.chart{margin:14px 0 0;overflow-x:auto}figure.chart svg{max-width:100%;height:auto}
.charts{display:flex;flex-wrap:wrap;gap:12px 28px;align-items:flex-start}
.selector-block{border-top:1px solid var(--line);padding-top:6px;margin-top:10px}
dl.facts{display:grid;grid-template-columns:max-content auto;gap:2px 16px;margin:6px 0}dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;font-variant-numeric:tabular-nums}
.verdict{font-size:16px;font-weight:650}.verdict.pass{color:var(--ok)}.verdict.fail{color:var(--bad)}
tr.worse td:last-child{color:var(--bad);font-weight:600}tr.better td:last-child{color:var(--ok);font-weight:600}
.delta{font-size:12px}.delta.worse{color:var(--bad)}.delta.better{color:var(--ok)}
.filters{display:flex;gap:10px;align-items:center;margin-bottom:8px;flex-wrap:wrap}
.filters input{flex:1;min-width:240px;padding:7px 10px;border:1px solid #cbd5e1;border-radius:6px;font:inherit}
.filters select{padding:6px;border:1px solid #cbd5e1;border-radius:6px;font:inherit}
table.failures td{word-break:break-word}table.failures td:nth-child(-n+2),table.failures td:last-child{white-space:nowrap;word-break:normal}
td.text{min-width:260px;max-width:520px}td.text div{display:-webkit-box;-webkit-line-clamp:3;-webkit-box-orient:vertical;overflow:hidden}
.kind{font-size:11px;padding:1px 6px;border-radius:4px;font-weight:600}.kind.wrong{background:#ffedd5;color:#9a3412}.kind.needless{background:#dbeafe;color:#1e3a8a}.kind.error{background:#fee2e2;color:#7f1d1d}.kind.ok{background:#dcfce7;color:#14532d}
.err{color:var(--bad)}
code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace}
footer{color:var(--muted);font-size:12px;text-align:center;padding:8px 24px 28px}
ul.look-at{margin:0 0 12px;padding-left:18px}ul.look-at>li{margin:4px 0}ul.look-at ul{margin:2px 0;color:#374151}
ul.skill-changes{padding-left:18px}p.diff{margin:4px 0 10px;line-height:1.6}del{background:#fee2e2;color:#7f1d1d}ins{background:#dcfce7;color:#14532d;text-decoration:none}
`.trim();
