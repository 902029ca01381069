// How a flag's text becomes its input field. A plain flag takes the field's
// own kind (a whole number, one of an enum's values, a boolean switch); a
// flag with `as` in the operation table is converted by the function of that
// name. A value that cannot be what the flag takes is a usage error naming
// the flag (exit 2); one of the right kind that the room refuses is the
// engine's to name (exit 1).
import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import type { Operation } from '../../generated/operations.js';
import { OutsideJsonError, parseOutsideJson } from '../outside-json.js';
import { capabilityList, durationSeconds, wholeNumber } from './options.js';

export type CliOption = Operation['cli']['options'][number];

const shown = (text: string): string => JSON.stringify(text);

/** The flag's name without its value placeholder: `--limit <n>` → `--limit`. */
export const flagName = (option: CliOption): string => option.flags.split(' ')[0]!;

/** Commander's parser of the flag's text, for flags whose kind is known before any other flag is read. */
export function parserOf(option: CliOption): ((text: string, previous: unknown) => unknown) | undefined {
  const flag = flagName(option);
  if ('as' in option) {
    switch (option.as) {
      case 'capabilities':
        return capabilityList('choices' in option ? option.choices : []);
      case 'duration':
        return durationSeconds;
      case 'on_off':
        return (text) => {
          if (text === 'on' || text === 'off') return text === 'on';
          throw new InvalidArgumentError(`${flag} must be on or off (got ${shown(text)})`);
        };
      case 'number':
        return (text) => {
          const number = /^\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
          if (Number.isNaN(number)) throw new InvalidArgumentError(`${flag} must be a number (got ${shown(text)})`);
          return number;
        };
      case 'artifact_uris':
        return (text, previous) => [...((previous as unknown[] | undefined) ?? []), { uri: text }];
      case 'list':
        // Repeatable, each a comma-separated list; `--flag ""` alone gives the empty list.
        return (text, previous) => [
          ...((previous as string[] | undefined) ?? []),
          ...text
            .split(',')
            .map((item) => item.trim())
            .filter((item) => item !== ''),
        ];
      default:
        return undefined; // converted once every flag is known (see fieldValue)
    }
  }
  if (option.kind === 'integer') return wholeNumber(flag);
  if ('choices' in option) {
    const choices: readonly string[] = option.choices;
    return (text) => {
      if (!choices.includes(text)) {
        throw new InvalidArgumentError(`${flag} must be one of ${choices.join(', ')} (got ${shown(text)})`);
      }
      return text;
    };
  }
  return undefined;
}

/** Conversions after which the flag's value is the field's, as the user typed it: `--expires-in 0` is `expires_in_seconds` 0. */
const AS_TYPED = new Set(['number', 'duration', 'on_off', 'capabilities']);

/**
 * The flag that gives each field by itself, to name it by in a refusal
 * (`--expires-in must be >= 1`, not `expires_in_seconds`): a field two
 * flags give, or one a flag builds (--answer's `response`), keeps its name.
 */
export function flagTerms(operation: Operation): { field: string; name: string }[] {
  const options: readonly CliOption[] = operation.cli.options;
  return options
    .filter((option) => !('as' in option) || AS_TYPED.has(option.as))
    .filter((option) => options.filter((other) => other.field === option.field).length === 1)
    .map((option) => ({ field: option.field, name: flagName(option) }));
}

/** A file named by a flag, as UTF-8 text; a file that cannot be read is a usage error naming the flag. */
function readFlagFile(flag: string, file: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new InvalidArgumentError(`${flag}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? error})`);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new InvalidArgumentError(`${flag}: ${file} is not UTF-8 text`);
  }
}

/** A JSON file named by a flag, parsed refusing prototype keys; what is wrong with it is a usage error naming the flag. */
function readJsonFile(flag: string, file: string): unknown {
  const text = readFlagFile(flag, file);
  try {
    return parseOutsideJson(text, `${flag} ${file}`);
  } catch (error) {
    if (error instanceof OutsideJsonError) {
      // A place inside the file is named from the file's root: say which file.
      const where = error.kind === 'invalid_unicode' ? `${flag} ${file}: ` : '';
      throw new InvalidArgumentError(`${where}${error.message}`);
    }
    throw error;
  }
}

/**
 * The value of `option`'s field, from the flag's parsed value and, for the
 * flags that need another (--key with --answer), every flag given.
 */
export function fieldValue(option: CliOption, value: unknown, given: Record<string, unknown>): unknown {
  if (!('as' in option)) return value;
  const flag = flagName(option);
  switch (option.as) {
    case 'text_result':
      return { content: [{ type: 'text', text: value }] };
    case 'error_message':
      return { code: -32603, message: value };
    case 'text_file':
      return readFlagFile(flag, value as string);
    case 'json_file':
      return readJsonFile(flag, value as string);
    case 'accepted_answer':
      // --answer A: the request accepted with the one-string form's answer.
      return { action: 'accept', content: { answer: value } };
    case 'accepted_content':
      // --content-file F: the request accepted with the form's fields, as the file gives them.
      return { action: 'accept', content: readJsonFile(flag, value as string) };
    case 'answer': {
      // --key K --answer A: the owner accepts the request K with the one-string form's answer;
      // --key K --content-file F, with the form's fields as the file gives them (one of the two: checkFlags).
      const content =
        given.answer === undefined
          ? readJsonFile('--content-file', given.contentFile as string)
          : { answer: given.answer };
      return { [given.key as string]: { action: 'accept', content } };
    }
    default:
      return value; // already converted by its parser
  }
}
