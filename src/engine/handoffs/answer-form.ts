// An accepted answer checked against the form it answers: the request's
// requestedSchema, MCP's restricted JSON Schema (flat, each field a string,
// number, integer, boolean or a multiple choice of strings). The assignee
// who asked reads the answer as the form promised it: a required field is
// there, a number is a number, a choice is one of the choices offered, and
// no field the form does not have (a misspelt name) is taken.
//
// The vocabulary is MCP's, a handful of keywords (PrimitiveSchemaDefinition):
// each is one check below, where a JSON Schema validator would compile each
// form, and a form's other keywords (a `pattern`, say) could make it run for
// as long as they like. `format` (date, email, uri) is a hint for the form's
// controls and is not checked.
import type { InputResponse, RequestedSchema } from '../../../generated/types.js';
import { DomainError } from '../../errors.js';

type Field = RequestedSchema['properties'][string] & {};
/** A field's problem, as a refusal's `details.errors` lists it: a JSON Pointer, the keyword, why. */
interface Problem {
  path: string;
  keyword: string;
  message: string;
}

/** Where a value is in the operation's input: `response.content.branch`, and its JSON Pointer. */
const named = (place: string[]) => place.join('.');
const pointer = (place: string[]) =>
  place.map((part) => `/${part.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');

/** The strings a choice offers: `enum`, or the `const` of each of `oneOf` / `anyOf` (titled choices); null when it offers none. */
function choices(list: unknown, titled: unknown): unknown[] | null {
  if (Array.isArray(list)) return list;
  if (Array.isArray(titled)) return titled.map((option) => (option as { const?: unknown } | null)?.const);
  return null;
}

const said = (values: unknown[]): string => values.map((value) => JSON.stringify(value)).join(', ');
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** What is wrong with one field's value, or null: its keyword and why. */
function fieldProblem(field: Field, value: unknown): [keyword: string, message: string] | null {
  switch (field.type) {
    case 'boolean':
      return typeof value === 'boolean' ? null : ['type', 'must be true or false'];
    case 'number':
    case 'integer': {
      if (!isNumber(value)) return ['type', 'must be a number'];
      if (field.type === 'integer' && !Number.isInteger(value)) return ['type', 'must be an integer'];
      if (isNumber(field.minimum) && value < field.minimum) return ['minimum', `must be ${field.minimum} or more`];
      if (isNumber(field.maximum) && value > field.maximum) return ['maximum', `must be ${field.maximum} or less`];
      return null;
    }
    case 'string': {
      if (typeof value !== 'string') return ['type', 'must be a string'];
      const offered = choices(field.enum, field.oneOf);
      if (offered && !offered.includes(value)) return ['enum', `must be one of ${said(offered)}`];
      const length = [...value].length;
      if (isNumber(field.minLength) && length < field.minLength) {
        return ['minLength', `must be at least ${field.minLength} characters`];
      }
      if (isNumber(field.maxLength) && length > field.maxLength) {
        return ['maxLength', `must be at most ${field.maxLength} characters`];
      }
      return null;
    }
    case 'array': {
      if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
        return ['type', 'must be a list of strings'];
      }
      const items = (field.items ?? {}) as { enum?: unknown; anyOf?: unknown };
      const offered = choices(items.enum, items.anyOf);
      const other = offered && value.find((item) => !offered.includes(item));
      if (other !== null && other !== undefined) {
        return ['enum', `holds ${JSON.stringify(other)}, which is not one of ${said(offered!)}`];
      }
      if (isNumber(field.minItems) && value.length < field.minItems) {
        return ['minItems', `must hold at least ${field.minItems}`];
      }
      if (isNumber(field.maxItems) && value.length > field.maxItems) {
        return ['maxItems', `must hold at most ${field.maxItems}`];
      }
      return null;
    }
  }
}

/**
 * The problems of an answer's content against its form. A declined or
 * cancelled answer gives none (MCP's ElicitResult carries content only when
 * accepted): content sent with one was stored unchecked and shown back.
 */
function answerProblems(form: RequestedSchema, response: InputResponse, where: string[]): [string[], Problem][] {
  if (response.action !== 'accept') {
    if (response.content === undefined || Object.keys(response.content).length === 0) return [];
    const place = [...where, 'content'];
    const message = `is only for an accepted answer; a ${response.action === 'decline' ? 'declined' : 'cancelled'} one gives none`;
    return [[place, { path: pointer(place), keyword: 'x-room', message }]];
  }
  const content = response.content ?? {};
  const fields = Object.keys(form.properties);
  const problems: [string[], Problem][] = [];
  const add = (name: string, keyword: string, message: string) => {
    const place = [...where, 'content', name];
    problems.push([place, { path: pointer(place), keyword, message }]);
  };
  for (const [name, value] of Object.entries(content)) {
    const field = Object.hasOwn(form.properties, name) ? form.properties[name] : undefined;
    if (field === undefined) {
      add(name, 'additionalProperties', `is not a field of the form (it asks for ${fields.join(', ') || 'nothing'})`);
      continue;
    }
    const problem = fieldProblem(field, value);
    if (problem) add(name, ...problem);
  }
  // A name `required` lists that the form lacks is no field to give (checkForm refuses such forms when asked).
  for (const name of form.required ?? []) {
    if (Object.hasOwn(form.properties, name) && !Object.hasOwn(content, name)) add(name, 'required', 'is required');
  }
  return problems;
}

/**
 * Refuses an accepted answer that does not fill in its form, naming each
 * field and why. `where` is the answer's place in the operation's input:
 * `['response']`, `['input_responses', 'in_Ab1']`.
 */
export function checkAnswer(form: RequestedSchema, response: InputResponse, where: string[]): void {
  const problems = answerProblems(form, response, where);
  if (problems.length === 0) return;
  throw new DomainError(
    'invalid_input',
    problems.map(([place, problem]) => `${named(place)} ${problem.message}`).join('; '),
    { errors: problems.map(([, problem]) => problem) },
  );
}

/** Refuses a form whose `required` names a field it does not have: no answer could ever fill it in. */
export function checkForm(form: RequestedSchema, where: string[]): void {
  const missing = (form.required ?? []).filter((name) => !Object.hasOwn(form.properties, name));
  if (missing.length === 0) return;
  const place = [...where, 'required'];
  const message = `names ${missing.join(', ')}, not among its properties`;
  throw new DomainError('invalid_input', `${named(place)} ${message}`, {
    errors: [{ path: pointer(place), keyword: 'required', message }],
  });
}
