// Preloaded into the servers of the fan-out benchmark (node --expose-gc
// --import): on SIGUSR2 the process collects its garbage and writes its
// memory figures to the file BENCH_MEMORY_FILE names, so memory per stream
// is measured after a full collection, not whenever the heap last grew.
import { writeFileSync } from 'node:fs';

process.on('SIGUSR2', () => {
  (globalThis as { gc?: () => void }).gc?.();
  writeFileSync(process.env.BENCH_MEMORY_FILE!, JSON.stringify(process.memoryUsage()));
});
