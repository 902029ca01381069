// The operation commands of ce, built from the operation table: each is the
// operation's command name, FILE, its arguments and flags as the table maps
// them to input fields, --participant where the operation acts as one, and
// --json. Its action builds the input, runs it through the executor and
// prints the answer.
import { existsSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { operations, type Operation, type OperationId } from '../../generated/operations.js';
import type { TaskUpdateOutput } from '../../generated/types.js';
import { caFile, restBaseOf, sessionToken } from './connect.js';
import { execute, type RoomTarget } from './executor.js';
import { inDoorTerms, isDomainError } from '../errors.js';
import { camel, flagPlaces, inFlagTerms } from './flag-places.js';
import { fieldValue, flagName, flagTerms, parserOf } from './flags.js';
import { FILE_ARGUMENT } from './options.js';
import { answer, CommandFailure } from './output.js';
import { renderPlain, type RenderContext } from './render/index.js';
import { terminal } from './terminal.js';

/** `participant add` is `add` in the group `participant`; a group is made when first needed. */
function parentOf(program: Command, words: string[]): Command {
  if (words.length === 1) return program;
  const name = words[0]!;
  return (
    program.commands.find((c) => c.name() === name) ?? program.command(name) // described once its commands are known
  );
}

/** Said by every command that acts as a participant on a room here (ce edit and ce open too) when none is named. */
export const MISSING_PARTICIPANT = 'missing --participant (who acts, with FILE)';

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
  // FILE, or no FILE when --url (or CE_URL) names the room: commander takes them all as optional, and which is
  // which is worked out from how many were given.
  const command = parentOf(program, words)
    .command(words.at(-1)!)
    .description(operation.summary)
    .usage(
      `(<file> | --url <url>) ${operation.cli.arguments.map((a) => `<${a.field}>`).join(' ')} [options]`.replace(
        '  ',
        ' ',
      ),
    )
    .argument(`[file]`, FILE_ARGUMENT[1]);
  for (const argument of operation.cli.arguments) command.argument(`[${argument.field}]`, argument.description);
  for (const option of operation.cli.options) {
    // A required flag is marked in the help and checked by checkFlags, after commander has named any unknown one.
    const flag = new Option(option.flags, option.required ? `${option.description} (required)` : option.description);
    const parse = parserOf(option);
    if (parse) flag.argParser(parse);
    command.addOption(flag);
  }
  // Required with FILE where the operation acts as a participant; with --url the session is the participant.
  const acting = PARTICIPANT_HELP[operation.actor];
  if (acting) command.addOption(new Option('--participant <name>', acting));
  remoteRoomOptions(command).option('--json', 'print the result as one JSON document');
  if ('example' in operation.cli) command.addHelpText('after', `\nExample:\n  $ ${operation.cli.example}`);
  command.action(async (...rest: unknown[]) => {
    const options = (rest.at(-2) ?? {}) as Record<string, unknown>;
    const positionals = (rest.slice(0, operation.cli.arguments.length + 1) as (string | undefined)[]).filter(
      (value): value is string => value !== undefined,
    );
    const { target, values, room } = whichRoom(operation, positionals, options);
    checkFlags(operation, options);
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
    if (participant !== null && 'url' in target) {
      throw new InvalidArgumentError(
        '--participant acts for the local operator; with --url the session token says who acts',
      );
    }
    if (participant === null && 'file' in target && operation.actor === 'participant') {
      throw new InvalidArgumentError(MISSING_PARTICIPANT);
    }
    const output = await execute(target, operation, input, participant).catch((error: unknown) => {
      throw isDomainError(error)
        ? inFlagTerms(inDoorTerms(error, flagTerms(operation)), flagPlaces(operation, options))
        : error;
    });
    nothingDone(operation.id as OperationId, output, room);
    const context: RenderContext = {
      room,
      input,
      more: (flags) => {
        const line = ['ce', ...words, ...room.split(' '), ...values];
        // The room's own flags too: the next page of a room reached by --url needs its --ca and --token-file.
        for (const option of [...operation.cli.options.map(flagName), '--participant', '--token-file', '--ca']) {
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

/**
 * tasks/update ignores a key that is not open, as MCP says; a person who
 * typed the key is told, and the command fails (exit 1): nothing was answered.
 */
function nothingDone(id: OperationId, output: unknown, room: string): void {
  if (id !== 'answerTaskInput') return;
  const { task, answered } = output as TaskUpdateOutput;
  if (answered.length > 0) return;
  throw new CommandFailure(
    'not_found',
    `nothing answered: task ${task.taskId} has no open input request with that key (ce task ${room} ${task.taskId} --participant NAME lists them)`,
  );
}

/** `--a`, `--a or --b`, `--a, --b or --c`. */
const either = (flags: string[]): string =>
  flags.length < 2 ? (flags[0] ?? '') : `${flags.slice(0, -1).join(', ')} or ${flags.at(-1)}`;

/**
 * The flags in the user's terms, before anything is sent: a required flag
 * left out is named, and so are the flags of which the input takes exactly
 * one (`missing --content-file or --diff-file`; `give one of ..., not both`).
 */
function checkFlags(operation: Operation, options: Record<string, unknown>): void {
  const given = (flag: string) => options[camel(flag)] !== undefined;
  const missing = operation.cli.options.filter((o) => o.required && !given(flagName(o))).map(flagName);
  if (missing.length > 0) throw new InvalidArgumentError(`missing ${missing.join(' and ')}`);
  // A change that takes no argument and no required flag (ce settings-update) is told what to change by its flags.
  const every = operation.cli.options.map(flagName);
  if (operation.changes && operation.cli.arguments.length === 0 && every.length > 0 && !every.some(given)) {
    throw new InvalidArgumentError(`missing ${either(every)}: give at least one, what to change`);
  }
  if (!('exactlyOne' in operation.cli)) return;
  const exclusive: readonly string[] = operation.cli.exactlyOne;
  // Only where every field of the choice is a flag: a field given as an argument makes the choice itself.
  // A required flag of the field (--key beside --answer) is no choice: it was checked above.
  const flags = exclusive.map((field) =>
    operation.cli.options.filter((o) => o.field === field && !o.required).map(flagName),
  );
  if (flags.some((forField) => forField.length === 0)) return;
  const all = flags.flat();
  const chosen = all.filter(given);
  if (chosen.length === 0) throw new InvalidArgumentError(`missing ${either(all)}`);
  if (chosen.length > 1) {
    const not = chosen.length === 2 && all.length === 2 ? 'both' : chosen.join(' and ');
    throw new InvalidArgumentError(`give one of ${either(all)}, not ${not}`);
  }
}

/**
 * The room a command works on, and its own arguments: FILE first when all of
 * them are given, or the room at --url (CE_URL) when FILE is left out.
 * `room` is how a command line names it again (in a `more:` hint).
 */
export function whichRoom(
  operation: Operation,
  positionals: string[],
  options: Record<string, unknown>,
): { target: RoomTarget; values: string[]; room: string } {
  const expected = operation.cli.arguments.length;
  const url = options.url as string | undefined;
  if (positionals.length === expected + 1) {
    if (url !== undefined) throw new InvalidArgumentError('give FILE or --url, not both');
    if (options.tokenFile !== undefined || options.ca !== undefined) {
      throw new InvalidArgumentError('--token-file and --ca go with --url; with FILE the room is on this machine');
    }
    return { target: { file: positionals[0]! }, values: positionals.slice(1), room: positionals[0]! };
  }
  const address = url ?? terminal().env.CE_URL;
  if (positionals.length === expected && address !== undefined) {
    return {
      target: {
        url: restBaseOf(address),
        token: sessionToken(options.tokenFile as string | undefined),
        ...caOption(options.ca as string | undefined),
      },
      values: positionals,
      room: `--url ${address}`,
    };
  }
  if (positionals.length > expected + 1) throw new InvalidArgumentError('too many arguments');
  // With --url the words are the arguments. Without, the first is FILE, unless there are as many words as
  // arguments and the first names no file: then FILE was left out (`ce handoff ho_…`).
  const missing =
    address !== undefined
      ? operation.cli.arguments[positionals.length]!.field
      : positionals.length === 0 || (positionals.length === expected && !existsSync(positionals[0]!))
        ? 'file'
        : operation.cli.arguments[positionals.length - 1]!.field;
  throw new InvalidArgumentError(
    missing === 'file'
      ? "missing required argument 'file' (or --url, or CE_URL)"
      : `missing required argument '${missing}'`,
  );
}

const caOption = (file: string | undefined): { ca?: Buffer } => {
  const ca = caFile(file);
  return ca ? { ca } : {};
};

/** --url, --token-file and --ca: the room anywhere, in place of FILE, as a session (whichRoom reads them). */
export const remoteRoomOptions = (command: Command): Command =>
  command
    .option('--url <url>', 'a room anywhere, by its address (http(s)://host:port), in place of FILE; else CE_URL')
    .option('--token-file <file>', 'with --url: a file holding the session token (else CE_TOKEN)')
    .option('--ca <file>', 'with --url: trust this CA certificate (PEM) for an https room');

export function operationCommands(program: Command): void {
  for (const operation of Object.values(operations) as Operation[]) addOperationCommand(program, operation);
  // A group says what it holds: `the room's participants: add, list, remove`.
  for (const group of program.commands.filter((c) => c.commands.length > 0)) {
    group.description(`the room's ${group.name()}s: ${group.commands.map((c) => c.name()).join(', ')}`);
  }
}
