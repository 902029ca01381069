#!/usr/bin/env node
// The `ce` command line: the compiled bundle (npm run build, which npm ci runs).
import module from 'node:module';

// Node.js 22.1 and later can keep the bundle's compiled code on disk, so that
// later starts skip compiling it (about 13 ms of a room's first answer). The
// cache goes where NODE_COMPILE_CACHE says, else into the system's temporary
// directory; NODE_DISABLE_COMPILE_CACHE=1 turns it off. Node.js 20 has none.
module.enableCompileCache?.();
await import('../dist/ce.js');
