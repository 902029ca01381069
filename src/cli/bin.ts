// The entry point of the `ce` binary: runs the command line on this process's
// arguments. `ce serve` loads only its own command (serve-main.ts): a room's
// start is what MCP clients and scripts wait on.
const { main } = process.argv[2] === 'serve' ? await import('./serve-main.js') : await import('./main.js');

// A reader that stops reading (`ce handoffs notes.md --json | head`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});
process.exitCode = await main(process.argv);
