// ce: the command line of a Common Room. The commands are declared once;
// each builds an engine input from its arguments and calls the engine. Every
// failure, commander's own included, ends in one funnel (reportFailure).
import { Command } from 'commander';
import { handoffCommands } from './handoffs.js';
import { historyCommands } from './history.js';
import { reportFailure } from './output.js';
import { participantCommands } from './participants.js';
import { proposalCommands } from './proposals.js';
import { initCommand } from './room.js';
import { serveCommand } from './serve.js';
import { sessionCommands } from './sessions.js';
import { taskCommands } from './tasks.js';

export function buildProgram(): Command {
  const program = new Command('ce')
    .description('A room around one markdown file: participants, sessions, handoffs, tasks, proposals, history.')
    .usage('<command> [options]')
    // Settings are inherited by the commands added below: errors are thrown
    // to the funnel instead of printed and exited on.
    .exitOverride()
    .configureOutput({ outputError: () => {} });
  initCommand(program);
  serveCommand(program);
  participantCommands(program);
  sessionCommands(program);
  handoffCommands(program);
  taskCommands(program);
  proposalCommands(program);
  historyCommands(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return 0;
  } catch (error) {
    // Read from argv, not the parsed options: a usage error comes before them.
    return reportFailure(error, argv.includes('--json'));
  }
}

// A reader that stops reading (`ce handoffs notes.md --json | head`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});
process.exitCode = await main(process.argv);
