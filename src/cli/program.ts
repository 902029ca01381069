// The root of ce's command line and how a command line runs, shared by the
// whole command line (main.ts) and the one `ce serve` starts with
// (serve-main.ts). Every failure, commander's own included, ends in one
// funnel (reportFailure).
import { Command } from 'commander';
import { reportFailure } from './output.js';
import { terminal, withTerminal, type Terminal } from './terminal.js';
import packageJson from '../../package.json' with { type: 'json' };

/** `ce` with no command yet. */
export function rootCommand(): Command {
  return (
    new Command('ce')
      .description('A room around one markdown file: participants, sessions, handoffs, tasks, proposals, history.')
      .usage('<command> [options]')
      .version(packageJson.version, '-V, --version', 'print the version of ce')
      // Settings are inherited by the commands added after: errors are thrown
      // to the funnel instead of printed and exited on.
      .exitOverride()
      .configureOutput({
        writeOut: (text) => terminal().out(text),
        writeErr: (text) => terminal().err(text),
        outputError: () => {},
      })
  );
}

/** Runs the command line `argv` (as process.argv: node, script, then the words) on `program`; its exit code. */
export async function runCommandLine(program: () => Command, argv: string[], on?: Terminal): Promise<number> {
  const run = async (): Promise<number> => {
    try {
      await program().parseAsync(argv);
      return 0;
    } catch (error) {
      // Read from argv, not the parsed options: a usage error comes before them.
      return reportFailure(error, argv.includes('--json'));
    }
  };
  return on ? withTerminal(on, run) : run();
}
