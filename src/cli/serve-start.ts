// What bin/ce.js runs for `ce serve` (dist/serve.cjs): ce serve's bundle,
// dist/chunks/serve.cjs (serve-bin.ts and all it imports, one CommonJS file),
// with V8's code cache (code-cache.ts). What the cache keeps is what V8 has
// compiled two seconds into the start (the start and the requests that come
// with it), or by the end of a process that ends sooner; it is taken and
// written only where the start found none that fits, or one that holds less
// than it compiled. Not what a long run compiled: V8 takes longer to read a
// larger cache at every start (a room that served its page and docs kept
// 30 % more).
import { fileURLToPath } from 'node:url';
import { runCommonJs } from './code-cache.js';

const run = runCommonJs(fileURLToPath(new URL('./chunks/serve.cjs', import.meta.url)));
setTimeout(() => run.take(), 2_000).unref();
process.once('exit', () => run.save());
