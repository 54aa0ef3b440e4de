// Preloaded (node --import) into the process a benchmark measures: at exit, writes the
// process's own peak RSS and CPU times to $BENCH_USAGE_FILE. Adds no dependencies and
// nothing to the measured heap but this closure.
import { writeFileSync } from "node:fs";

const file = process.env.BENCH_USAGE_FILE;
if (file) {
  process.on("exit", (code) => {
    const usage = process.resourceUsage();
    writeFileSync(
      file,
      JSON.stringify({ maxRssKb: usage.maxRSS, userMs: usage.userCPUTime / 1000, systemMs: usage.systemCPUTime / 1000, exitCode: code }),
    );
  });
}
