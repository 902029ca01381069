import type { Terminal } from './terminal.js';

/** Runs a command line (main.ts's or serve-main.ts's) on this process's arguments, as the `ce` binary. */
export async function runAsCe(main: (argv: string[], on?: Terminal) => Promise<number>): Promise<void> {
  // A reader that stops reading (`ce handoffs notes.md --json | head`) is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  process.exitCode = await main(process.argv);
}
