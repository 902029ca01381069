// ce: the command line of a Common Room. The operation commands are built
// from the operation table (commands.ts); ce init, ce serve and ce open are
// the operator's own. Every failure, commander's own included, ends in one
// funnel (reportFailure).
import { Command } from 'commander';
import { backupCommands } from './backup.js';
import { completionCommand } from './completion.js';
import { helpCommand } from './help-topics.js';
import { bridgeCommand } from './bridge-command.js';
import { operationCommands } from './commands.js';
import { reportFailure } from './output.js';
import { openCommand } from './open.js';
import { editCommand } from './edit.js';
import { initCommand } from './init.js';
import { serveCommand } from './serve.js';
import { statusCommand } from './status.js';
import { terminal, withTerminal, type Terminal } from './terminal.js';
import packageJson from '../../package.json' with { type: 'json' };

export function buildProgram(): Command {
  const program = new Command('ce')
    .description('A room around one markdown file: participants, sessions, handoffs, tasks, proposals, history.')
    .usage('<command> [options]')
    .version(packageJson.version, '-V, --version', 'print the version of ce')
    // Settings are inherited by the commands added below: errors are thrown
    // to the funnel instead of printed and exited on.
    .exitOverride()
    .configureOutput({
      writeOut: (text) => terminal().out(text),
      writeErr: (text) => terminal().err(text),
      outputError: () => {},
    });
  initCommand(program);
  serveCommand(program);
  statusCommand(program);
  openCommand(program);
  editCommand(program);
  bridgeCommand(program);
  backupCommands(program);
  operationCommands(program);
  completionCommand(program);
  helpCommand(program);
  return program;
}

/** Runs the command line `argv` (as process.argv: node, script, then the words); its exit code. */
export async function main(argv: string[], on?: Terminal): Promise<number> {
  const run = async (): Promise<number> => {
    try {
      await buildProgram().parseAsync(argv);
      return 0;
    } catch (error) {
      // Read from argv, not the parsed options: a usage error comes before them.
      return reportFailure(error, argv.includes('--json'));
    }
  };
  return on ? withTerminal(on, run) : run();
}
