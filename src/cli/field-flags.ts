// `--caps` for `--capabilities`: a flag typed as the name of the input field
// it sets, the name the REST body and the MCP tool use. Where the flag is a
// short form of it (`--base` for base_revision, `--expires-in` for
// expires_in_seconds), commander's suggestions, by spelling, do not find it.
import { operations, type Operation } from '../../generated/operations.js';
import { flagName } from './flags.js';

/** The command `words` (the command line after `ce`) run, by its operation. */
function operationRun(words: readonly string[]): Operation | undefined {
  return (Object.values(operations) as Operation[]).find((operation) => {
    const command = operation.cli.command.split(' ');
    return command.every((word, i) => words[i] === word);
  });
}

/** The flag that sets the field `typed` names (`--capabilities`, `--base-revision=2`), on the command `words` run; else null. */
export function flagForField(words: readonly string[], typed: string): string | null {
  const field = typed.replace(/^--/, '').replace(/=.*$/s, '').replaceAll('-', '_');
  const option = operationRun(words)?.cli.options.find((candidate) => candidate.field === field);
  return option ? flagName(option) : null;
}
