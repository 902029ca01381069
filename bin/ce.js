#!/usr/bin/env node
// The `ce` command line: the compiled bundle (npm run build, which npm ci runs).
await import('../dist/ce.js');
