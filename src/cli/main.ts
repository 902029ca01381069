// ce: the command line of a Common Room. The operation commands are built
// from the operation table (commands.ts); ce init, ce serve and ce open are
// the operator's own.
import type { Command } from 'commander';
import { backupCommands } from './backup.js';
import { completionCommand } from './completion.js';
import { helpCommand } from './help-topics.js';
import { bridgeCommand } from './bridge-command.js';
import { operationCommands } from './commands.js';
import { openCommand } from './open.js';
import { editCommand } from './edit.js';
import { initCommand } from './init.js';
import { rootCommand, runCommandLine } from './program.js';
import { serveCommand } from './serve.js';
import { statusCommand } from './status.js';
import type { Terminal } from './terminal.js';

export function buildProgram(): Command {
  const program = rootCommand();
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
export const main = (argv: string[], on?: Terminal): Promise<number> => runCommandLine(buildProgram, argv, on);
