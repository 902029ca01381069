#!/usr/bin/env node
// The `ce` command line. The sources are TypeScript, run through tsx with
// this project's tsconfig (not whatever tsconfig the caller's directory has).
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
await import('../src/cli/main.ts');
