// Generated catalogues for the scale benchmarks (bench/scale.bench.mjs): N skills with realistic-looking, mostly
// distinct descriptions, deterministic for a given seed, as a folder of SKILL.md files or a JSON list, plus a request
// set. Words are drawn from a Zipf-Mandelbrot distribution over a fixed vocabulary (common words are shared by many skills,
// rare ones by few), and about 1 skill in 50 gets a near copy of an earlier one's description, as in real catalogues.
//   node bench/generate-catalogue.mjs 10000 /tmp/cat10k            a folder of 10,000 skills
//   node bench/generate-catalogue.mjs 10000 /tmp/cat10k.json       the same as a JSON list
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

// skillbench's own seeded generator (mulberry32), from dist/: the same catalogue on every machine.
const { seededRandom: prng } = await import(pathToFileURL(path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', 'dist', 'random.js')).href);

const SYLLABLES = 'ba be bi bo bu ca ce ci co cu da de di do du fa fe fi fo fu ga ge gi go gu la le li lo lu ma me mi mo mu na ne ni no nu pa pe pi po pu ra re ri ro ru sa se si so su ta te ti to tu va ve vi vo vu za ze zi zo zu'.split(' ');
const COMMON = (
  'file files data report reports text document documents table tables chart charts image images code project ' +
  'repository issue issues ticket tickets email emails message messages calendar meeting meetings invoice invoices ' +
  'expense expenses budget customer customers order orders product products review reviews test tests build deploy ' +
  'server servers database query queries schema log logs metric metrics alert alerts user users account accounts ' +
  'policy policies contract contracts slide slides spreadsheet spreadsheets summary summaries translation notes'
).split(' ');
const VERBS = 'create check convert summarise analyse format fix draft review search compare export import validate merge split clean plan track schedule translate extract'.split(' ');

/** A vocabulary of common words then pseudo-words, in rank order (rank 1 is the most frequent). */
function vocabulary(size, rand) {
  const words = [...COMMON];
  const seen = new Set(words);
  while (words.length < size) {
    const n = 2 + Math.floor(rand() * 3);
    let w = '';
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(rand() * SYLLABLES.length)];
    if (!seen.has(w)) {
      seen.add(w);
      words.push(w);
    }
  }
  return words;
}

/**
 * Zipf-Mandelbrot sampler over ranks 0..n-1 (P(r) proportional to 1 / (r + 10)), by inverse CDF on a precomputed
 * table: the most frequent word is about 1.2% of all words, as in MetaTool's tool descriptions once stop words are
 * left out.
 */
function zipf(n, rand) {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) cdf[i] = sum += 1 / (i + 10);
  return () => {
    const x = rand() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/**
 * `n` skills {name, description, body}. Names are unique (`<verb>-<word>-<word>-<index>`), descriptions 12-30 words
 * with a "Use when" cue, bodies a few lines. Deterministic for (n, seed).
 */
export function generateSkills(n, seed = 13) {
  const rand = prng(seed);
  const words = vocabulary(20_000, rand);
  const pick = zipf(words.length, rand);
  const skills = [];
  for (let i = 0; i < n; i++) {
    const verb = VERBS[Math.floor(rand() * VERBS.length)];
    const topic = [words[pick()], words[pick()]];
    const name = `${verb}-${topic[0]}-${topic[1]}-${i}`.toLowerCase();
    let description;
    if (i > 0 && rand() < 0.02) {
      // A near copy of an earlier skill: the same text with one word changed.
      const earlier = skills[Math.floor(rand() * skills.length)].description.split(' ');
      earlier[earlier.length - 1] = words[pick()] + '.';
      description = earlier.join(' ');
    } else {
      const len = 12 + Math.floor(rand() * 19);
      const extra = Array.from({ length: len - 6 }, () => words[pick()]);
      description = `${verb[0].toUpperCase()}${verb.slice(1)} ${topic.join(' ')} ${extra.join(' ')}. Use when the user asks to ${verb} ${topic[0]} ${words[pick()]}.`;
    }
    const body = `# ${name}\n\n1. Read the ${topic[0]} the user gave.\n2. ${verb[0].toUpperCase()}${verb.slice(1)} it: ${Array.from({ length: 20 }, () => words[pick()]).join(' ')}.\n3. Report what changed.\n`;
    skills.push({ name, description, body });
  }
  return skills;
}

/** `count` requests: half paraphrase a skill's description (gold = that skill), half name nothing in the catalogue. */
export function generateRequests(skills, count, seed = 7) {
  const rand = prng(seed);
  const out = [];
  for (let i = 0; i < count; i++) {
    if (i % 2 === 0) {
      const s = skills[Math.floor(rand() * skills.length)];
      const words = s.description.replace(/[.]/g, '').split(' ');
      out.push({ id: `r${i}`, text: `Please ${words.slice(0, 6).join(' ').toLowerCase()} for me`, skill: s.name });
    } else {
      out.push({ id: `r${i}`, text: `What is the weather like in city number ${i} tomorrow?`, skill: null });
    }
  }
  return out;
}

export function writeFolderCatalogue(dir, skills) {
  for (const s of skills) {
    const d = path.join(dir, s.name);
    mkdirSync(d, { recursive: true });
    writeFileSync(path.join(d, 'SKILL.md'), `---\nname: ${s.name}\ndescription: ${JSON.stringify(s.description)}\n---\n\n${s.body}`);
  }
}

export function writeJsonCatalogue(file, skills) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(skills.map(({ name, description }) => ({ name, description })), null, 1) + '\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const [n, out] = [Number(process.argv[2]), process.argv[3]];
  if (!Number.isInteger(n) || n < 1 || !out) {
    console.error('usage: node bench/generate-catalogue.mjs <skills> <folder | file.json>');
    process.exit(2);
  }
  const skills = generateSkills(n);
  if (out.endsWith('.json')) writeJsonCatalogue(out, skills);
  else writeFolderCatalogue(out, skills);
  console.log(`wrote ${n} skills to ${out}`);
}
