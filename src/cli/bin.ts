// The entry point of the `ce` binary: runs the command line on this process's arguments.
import { main } from './main.js';

// A reader that stops reading (`ce handoffs notes.md --json | head`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});
process.exitCode = await main(process.argv);
