// Preloaded (node --import) into a benchmarked skillbench process: writes its peak memory and CPU time to the file
// named by SKILLBENCH_BENCH_STATS when it exits, so the bench measures the real launcher without an external `time`.
import { writeFileSync } from 'node:fs';

const file = process.env.SKILLBENCH_BENCH_STATS;
if (file) {
  process.on('exit', () => {
    const r = process.resourceUsage();
    writeFileSync(file, JSON.stringify({ maxRssKb: r.maxRSS, userMs: r.userCPUTime / 1000, systemMs: r.systemCPUTime / 1000 }));
  });
}
