// The root of ce's command line and how a command line runs, shared by the
// whole command line (main.ts) and the one `ce serve` starts with
// (serve-main.ts). Every failure, commander's own included, ends in one
// funnel (reportFailure).
import { existsSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { flagForField } from './field-flags.js';
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

/**
 * `participant add` for `participant-add`: a group's command typed the way
 * the commands outside groups are named (`handoff-create`), which
 * commander's suggestions, by spelling, do not find.
 */
function groupCommandFor(root: Command, word: string | undefined): string | null {
  const [group, ...rest] = (word ?? '').split('-');
  const command = root.commands.find((c) => c.name() === group)?.commands.find((c) => c.name() === rest.join('-'));
  return command ? `${group} ${command.name()}` : null;
}

/**
 * `handoff-create` for `handoff create`: a command typed the way a group's
 * are (`participant add`), which commander reads as `handoff` with FILE
 * `create`. Only when no file of that name is here.
 */
function hyphenatedCommandFor(root: Command, [first, second]: (string | undefined)[]): string | null {
  const name = `${first}-${second}`;
  const named = (word: string) => root.commands.some((c) => c.name() === word);
  // The file is looked for last: every command line of two words or more comes through here.
  return second && named(first!) && named(name) && !existsSync(second) ? name : null;
}

/**
 * What the user meant where commander found no command or flag and said
 * nothing better: a group's command typed with a hyphen, or the flag of the
 * field a flag names (field-flags.ts); else null.
 */
function meantInstead(root: Command, error: CommanderError, words: string[]): string | null {
  if (/Did you mean/.test(error.message)) return null;
  if (error.code === 'commander.unknownCommand') return groupCommandFor(root, words[0]);
  if (error.code !== 'commander.unknownOption') return null;
  const typed = /'([^']+)'/.exec(error.message);
  return typed ? flagForField(words, typed[1]!) : null;
}

/** Runs the command line `argv` (as process.argv: node, script, then the words) on `program`; its exit code. */
export async function runCommandLine(program: () => Command, argv: string[], on?: Terminal): Promise<number> {
  const run = async (): Promise<number> => {
    const root = program();
    try {
      const meant = hyphenatedCommandFor(root, argv.slice(2, 4));
      if (meant !== null) {
        const typed = argv.slice(2, 4).join(' ');
        throw new CommanderError(2, 'commander.unknownCommand', `unknown command '${typed}' (Did you mean ${meant}?)`);
      }
      await root.parseAsync(argv);
      return 0;
    } catch (error) {
      const usage = error instanceof CommanderError ? error : null;
      const meant = usage && meantInstead(root, usage, argv.slice(2));
      const said =
        usage && meant ? new CommanderError(2, usage.code, `${usage.message} (Did you mean ${meant}?)`) : error;
      // Read from argv, not the parsed options: a usage error comes before them.
      return reportFailure(said, argv.includes('--json'));
    }
  };
  return on ? withTerminal(on, run) : run();
}
