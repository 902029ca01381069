// What bin/ce.js runs for `ce serve` (dist/serve.cjs): ce serve's bundle,
// dist/chunks/serve.cjs (serve-bin.ts and all it imports, one CommonJS file),
// with V8's code cache (code-cache.ts). The cache is kept as the process
// ends, where the start found none that fits: by then V8 has compiled what a
// start and the requests after it run.
import { fileURLToPath } from 'node:url';
import { runCommonJs } from './code-cache.js';

const run = runCommonJs(fileURLToPath(new URL('./chunks/serve.cjs', import.meta.url)));
process.once('exit', () => run.save());
