// The operation commands of ce, built from the operation table: each is the
// operation's command name, FILE, its arguments and flags as the table maps
// them to input fields, --participant where the operation acts as one, and
// --json. Its action builds the input, runs it through the executor and
// prints the answer.
import { Command, Option } from 'commander';
import { operations, type Operation, type OperationId } from '../../generated/operations.js';
import { execute } from './executor.js';
import { fieldValue, flagName, parserOf } from './flags.js';
import { FILE_ARGUMENT } from './options.js';
import { answer } from './output.js';
import { renderPlain, type RenderContext } from './render/index.js';

/** `participant add` is `add` in the group `participant`; a group is made when first needed. */
function parentOf(program: Command, words: string[]): Command {
  if (words.length === 1) return program;
  const name = words[0]!;
  return (
    program.commands.find((c) => c.name() === name) ??
    program.command(name).description(`${name} commands (see ce ${name} --help)`)
  );
}

const PARTICIPANT_HELP: Record<Operation['actor'], string | null> = {
  participant: 'act as this participant (with read, write and approve)',
  either: 'act as this participant (read, write, approve) instead of the local operator',
  operator: null,
};

/** A word as a shell would need it quoted to read it back the same. */
const shellWord = (text: string): string =>
  /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;

function addOperationCommand(program: Command, operation: Operation): void {
  const words = operation.cli.command.split(' ');
  const command = parentOf(program, words)
    .command(words.at(-1)!)
    .description(operation.summary)
    .argument(...FILE_ARGUMENT);
  for (const argument of operation.cli.arguments) command.argument(`<${argument.field}>`, argument.description);
  for (const option of operation.cli.options) {
    const flag = new Option(option.flags, option.description);
    const parse = parserOf(option);
    if (parse) flag.argParser(parse);
    if (option.required) flag.makeOptionMandatory();
    command.addOption(flag);
  }
  const acting = PARTICIPANT_HELP[operation.actor];
  if (acting) {
    const flag = new Option('--participant <name>', acting);
    if (operation.actor === 'participant') flag.makeOptionMandatory();
    command.addOption(flag);
  }
  command.option('--json', 'print the result as one JSON document');
  if ('example' in operation.cli) command.addHelpText('after', `\nExample:\n  $ ${operation.cli.example}`);
  command.action(async (file: string, ...rest: unknown[]) => {
    const options = (rest.at(-2) ?? {}) as Record<string, unknown>;
    const values = rest.slice(0, operation.cli.arguments.length) as string[];
    const input: Record<string, unknown> = {};
    operation.cli.arguments.forEach((argument, i) => (input[argument.field] = values[i]));
    const given = Object.fromEntries(
      operation.cli.options.map((option) => [camel(flagName(option)), options[camel(flagName(option))]]),
    );
    for (const option of operation.cli.options) {
      const value = options[camel(flagName(option))];
      if (value === undefined || Object.hasOwn(input, option.field)) continue;
      input[option.field] = fieldValue(option, value, given);
    }
    const participant = acting ? ((options.participant as string | undefined) ?? null) : null;
    const output = await execute(file, operation, input, participant);
    const context: RenderContext = {
      file,
      input,
      more: (flags) => {
        const line = ['ce', ...words, file, ...values];
        for (const option of [...operation.cli.options.map((o) => flagName(o)), '--participant']) {
          const value = options[camel(option)];
          if (value !== undefined && !(option in flags)) line.push(option, String(value));
        }
        for (const [flag, value] of Object.entries(flags)) line.push(flag, String(value));
        return line.map(shellWord).join(' ');
      },
    };
    answer({ json: options.json === true }, output, (result) =>
      renderPlain(operation.id as OperationId, result, context),
    );
  });
}

/** `--idempotency-key` → `idempotencyKey`, as commander names option values. */
const camel = (flag: string): string => flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

export function operationCommands(program: Command): void {
  for (const operation of Object.values(operations) as Operation[]) addOperationCommand(program, operation);
}
