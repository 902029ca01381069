#!/usr/bin/env node
// The `ce` command line: the compiled bundle (npm run build; npm start, npm test
// and npm pack build it first).
// `ce serve` runs from a bundle of its own, one CommonJS file, through V8's
// code cache (src/cli/serve-start.ts); required, as an import would make node
// read the file once more for what a module could import of it.
import module from 'node:module';

// Node.js 22.1 and later keep the command line's compiled code on disk, so
// that later commands skip compiling it. Where it goes and how to turn it
// off: docs/reference.md, Performance.
module.enableCompileCache?.();
if (process.argv[2] === 'serve') module.createRequire(import.meta.url)('../dist/serve.cjs');
else await import('../dist/ce.js');
