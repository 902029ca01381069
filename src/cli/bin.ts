// The entry point of the `ce` binary (dist/ce.js): the whole command line.
// `ce serve` starts from a bundle of its own (serve-bin.ts), which bin/ce.js
// picks: a room's start is what MCP clients and scripts wait on.
import { main } from './main.js';
import { runAsCe } from './run-as-ce.js';

await runAsCe(main);
