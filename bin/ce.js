#!/usr/bin/env node
// The `ce` command line: the compiled bundle (npm run build, which npm ci runs).
// `ce serve` runs from a bundle of its own, one file (scripts/build.js).
import module from 'node:module';

// Node.js 22.1 and later keep the bundle's compiled code on disk, so that
// later starts skip compiling it; Node.js 20 has no such cache. Where it goes
// and how to turn it off: docs/reference.md, Performance.
module.enableCompileCache?.();
await import(process.argv[2] === 'serve' ? '../dist/chunks/serve.js' : '../dist/ce.js');
