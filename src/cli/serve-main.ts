// `ce serve` on its own: the root of the command line with that one command,
// so that a room's start (serve-bin.ts) loads none of the other commands'
// modules (10 to 16 ms of its first answer, BENCHMARKS.md). For the same
// words it answers what the whole command line (main.ts) answers:
// test/cli/serve-main.test.ts.
import type { Command } from 'commander';
import { rootCommand, runCommandLine } from './program.js';
import { serveCommand } from './serve.js';
import type { Terminal } from './terminal.js';

export function buildServeProgram(): Command {
  const program = rootCommand();
  serveCommand(program);
  return program;
}

/** Runs `ce serve …` (argv as process.argv); its exit code. */
export const main = (argv: string[], on?: Terminal): Promise<number> => runCommandLine(buildServeProgram, argv, on);
