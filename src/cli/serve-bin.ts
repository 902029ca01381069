// The entry point of `ce serve` (dist/chunks/serve.js, which bin/ce.js runs
// for `serve`): the command line with that one command (serve-main.ts),
// bundled into one file with the engine, the HTTP server and the log, so
// that a room's start reads one file (scripts/build.js).
import { main } from './serve-main.js';
import { runAsCe } from './run-as-ce.js';

await runAsCe(main);
