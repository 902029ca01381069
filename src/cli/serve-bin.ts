// The entry point of `ce serve` (dist/chunks/serve.cjs, which bin/ce.js runs
// for `serve` through serve-start.ts): the command line with that one command
// (serve-main.ts), bundled into one file with the engine, the HTTP server and
// the log, so that a room's start reads one file (scripts/build.js).
import { main } from './serve-main.js';
import { runAsCe } from './run-as-ce.js';

// CommonJS has no top-level await: a failure ends the process all the same, as an unhandled rejection.
void runAsCe(main);
