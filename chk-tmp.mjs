import { loadCatalogue } from './dist/catalogue.js';
import { termVector, cosine, nearDuplicates } from './dist/near-duplicates.js';
const cat = await loadCatalogue(process.argv[2]);
const sorted = [...cat.skills].sort((a, b) => (a.name < b.name ? -1 : 1));
const v = sorted.map((s) => termVector(s.description));
const hasEarlier = new Set(); let pairs = 0;
const t0 = performance.now();
if (!process.argv[3]) for (let i = 0; i < sorted.length; i++) for (let j = i + 1; j < sorted.length; j++) if (cosine(v[i], v[j]) >= 0.8) { pairs++; hasEarlier.add(sorted[j].name); }
console.log('exact pairs', pairs, 'skills with an earlier similar', hasEarlier.size, ((performance.now()-t0)/1000).toFixed(1), 's');
const stats = {};
const t1 = performance.now();
const w = nearDuplicates(cat.skills, 0.8, stats);
console.log('new warnings', w.length, w.at(-1).message, 'comparisons', stats.comparisons, 'scanned', stats.scanned, ((performance.now()-t1)/1000).toFixed(2), 's');
