#!/usr/bin/env node
// The `ce` command line: the compiled bundle (npm run build; npm start, npm test
// and npm pack build it first).
// This file is CommonJS (bin/package.json): node starts a CommonJS program
// about 6 ms sooner than a module, as it sets up no module loader for it.
// `ce serve` runs from a bundle of its own, one CommonJS file, through V8's
// code cache (src/cli/serve-start.ts); every other command imports the
// command line's bundle, ES modules.
const { enableCompileCache } = require('node:module');

// Node.js 22.1 and later keep the command line's compiled code on disk, so
// that later commands skip compiling it. Where it goes and how to turn it
// off: docs/reference.md, Performance.
enableCompileCache?.();
if (process.argv[2] === 'serve') require('../dist/serve.cjs');
else void import('../dist/ce.js');
