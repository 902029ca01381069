// Where a flag the user typed puts its value in the input, so that the
// room's refusal of that value names the flag, not the field it became:
// `--allow-origin must be an origin`, not `allowed_origins.0`;
// `--content-file: the file's JSON must be object`, not `response.content`.
// The flags whose value is the field's as typed are renamed by flagTerms
// (flags.ts) through inDoorTerms; these are the ones a conversion puts
// somewhere else: into a list, inside an object built around it, or read
// from a file.
import type { Operation } from '../../generated/operations.js';
import { DomainError } from '../errors.js';
import { flagName, type CliOption } from './flags.js';

/** The input path a typed flag's value lands at, and whether the value is a file's text or JSON. */
interface FlagPlace {
  path: string;
  flag: string;
  file: 'text' | 'json' | null;
}

/** Where `option`'s value lands, given every flag typed; null for the flags flagTerms names or none of these. */
function placeOf(option: CliOption, given: Record<string, unknown>): Omit<FlagPlace, 'flag'> | null {
  if (!('as' in option)) return null;
  const field = option.field;
  switch (option.as) {
    case 'list':
    case 'artifact_uris':
      return { path: field, file: null }; // an item's index is left out: the refusal shows its value
    case 'text_file':
      return { path: field, file: 'text' };
    case 'json_file':
      return { path: field, file: 'json' };
    case 'accepted_content':
      return { path: `${field}.content`, file: 'json' };
    case 'accepted_answer':
      return { path: `${field}.content.answer`, file: null };
    case 'text_result':
      return { path: `${field}.content.0.text`, file: null };
    case 'error_message':
      return { path: `${field}.message`, file: null };
    case 'answer': {
      // --key K with --answer or --content-file: the answer is at input_responses.K; --key itself names no value.
      const key = given.key as string | undefined;
      if (key === undefined || /[\s.]/.test(key)) return null;
      if (option.flags.startsWith('--answer')) return { path: `${field}.${key}.content.answer`, file: null };
      if (option.flags.startsWith('--content-file')) return { path: `${field}.${key}.content`, file: 'json' };
      return null;
    }
    default:
      return null;
  }
}

/** The flags typed (`given`: by commander's camelCase names) that a refusal may name, longest path first. */
export function flagPlaces(operation: Operation, given: Record<string, unknown>): FlagPlace[] {
  const options: readonly CliOption[] = operation.cli.options;
  return options
    .filter((option) => given[camel(flagName(option))] !== undefined)
    .flatMap((option) => {
      const place = placeOf(option, given);
      return place ? [{ ...place, flag: flagName(option) }] : [];
    })
    .sort((a, b) => b.path.length - a.path.length);
}

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** How a refusal names a place: the flag, or the file it read and where in it. */
function said(place: FlagPlace, within: string): string {
  if (place.file === null) return place.flag;
  if (within === '') return `${place.flag}: ${place.file === 'json' ? "the file's JSON" : 'the file'}`;
  return `${place.flag}: the file's ${JSON.stringify(within)}`;
}

/**
 * The refusal with each place a typed flag gave named by that flag, where a
 * part of its message starts with it (`FIELD SAID`, parts joined by `; `).
 * Its details (JSON Pointers into the input) stay as they are.
 */
export function inFlagTerms(error: DomainError, places: readonly FlagPlace[]): DomainError {
  if ((error.code !== 'invalid_input' && error.code !== 'too_large') || places.length === 0) return error;
  let message = error.message;
  for (const place of places) {
    const at = new RegExp(`(^|; )${escaped(place.path)}((?:\\.[^\\s.;]+)*) `, 'g');
    message = message.replace(at, (_, start: string, within: string) => `${start}${said(place, within.slice(1))} `);
  }
  return message === error.message ? error : new DomainError(error.code, message, error.details);
}

/** `--idempotency-key` → `idempotencyKey`, as commander names option values. */
export const camel = (flag: string): string =>
  flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
