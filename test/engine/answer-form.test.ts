// An accepted answer fills in the form it answers (the request's
// requestedSchema): required fields there, each field of its type and among
// its choices, within its bounds, and no field the form lacks. A refusal
// names every field and why, and writes nothing, by the handoff
// (handoff_answer) and by the task (tasks/update) alike. A declined or
// cancelled answer carries no content, and is refused with some. A form whose `required`
// names a field it does not have is refused when asked.
import { afterEach, expect, test } from 'vitest';
import type { RequestedSchema } from '../../generated/types.js';
import {
  acceptHandoff,
  answerHandoffInput,
  answerTaskInput,
  createHandoff,
  getHandoff,
  requestHandoffInput,
} from '../helpers/engine.js';
import { expectRefused } from '../helpers/expect-refused.js';
import { ALL_CAPS, caller, makeRoom, type TestRoom } from '../helpers/room.js';

const alice = caller('alice', ALL_CAPS);
const bob = caller('bob', ALL_CAPS);
let t: TestRoom;
afterEach(() => t?.close());

/** Every shape of field MCP's forms have. */
const FORM: RequestedSchema = {
  type: 'object',
  properties: {
    branch: { type: 'string', minLength: 2, maxLength: 8 },
    spelling: { type: 'string', enum: ['British', 'American'] },
    tone: {
      type: 'string',
      oneOf: [
        { const: 'dry', title: 'Dry' },
        { const: 'warm', title: 'Warm' },
      ],
    },
    pages: { type: 'integer', minimum: 1, maximum: 50 },
    ratio: { type: 'number' },
    urgent: { type: 'boolean' },
    parts: { type: 'array', items: { type: 'string', enum: ['intro', 'body', 'end'] }, maxItems: 2 },
  },
  required: ['branch', 'pages'],
};

/** A handoff alice gave bob, which bob accepted and asked about with `form`. */
function asked(form: RequestedSchema = FORM) {
  t = makeRoom();
  const { handoff } = createHandoff(t.room, alice, { summary: 'Proofread', assignee: 'bob' });
  acceptHandoff(t.room, bob, { handoff_id: handoff.handoff_id });
  const { key, task } = requestHandoffInput(t.room, bob, {
    handoff_id: handoff.handoff_id,
    message: 'How?',
    requested_schema: form,
  });
  return { id: handoff.handoff_id, key, taskId: task!.taskId };
}

test('an answer that fills in the form is taken as given', () => {
  const { id } = asked();
  const content = {
    branch: 'main',
    spelling: 'British',
    tone: 'warm',
    pages: 12,
    ratio: 0.5,
    urgent: false,
    parts: ['intro', 'end'],
  };
  const out = answerHandoffInput(t.room, alice, { handoff_id: id, response: { action: 'accept', content } });
  expect(out.task.status).toBe('working');
  expect(out.handoff.inputs[0]!.response).toEqual({ action: 'accept', content });
});

test('each field that does not fit is named with why, in one refusal; nothing is written', () => {
  const { id } = asked();
  const error = expectRefused(
    t.room,
    () =>
      answerHandoffInput(t.room, alice, {
        handoff_id: id,
        response: {
          action: 'accept',
          content: {
            branch: 'x',
            spelling: 'Canadian',
            tone: 'cold',
            pages: 2.5,
            ratio: 'half',
            urgent: 'yes',
            parts: ['intro', 'appendix'],
            colour: 'red',
          },
        },
      }),
    'invalid_input',
    [
      'response.content.branch must be at least 2 characters',
      'response.content.spelling must be one of "British", "American"',
      'response.content.tone must be one of "dry", "warm"',
      'response.content.pages must be an integer',
      'response.content.ratio must be a number',
      'response.content.urgent must be true or false',
      'response.content.parts holds "appendix", which is not one of "intro", "body", "end"',
      'response.content.colour is not a field of the form (it asks for branch, spelling, tone, pages, ratio, urgent, parts)',
    ].join('; '),
  );
  expect(error.details?.errors).toContainEqual({
    path: '/response/content/colour',
    keyword: 'additionalProperties',
    message: expect.stringContaining('is not a field of the form'),
  });
  expectRefused(
    t.room,
    () => answerHandoffInput(t.room, alice, { handoff_id: id, response: { action: 'accept', content: { pages: 99 } } }),
    'invalid_input',
    'response.content.pages must be 50 or less; response.content.branch is required',
  );
  expectRefused(
    t.room,
    () =>
      answerHandoffInput(t.room, alice, {
        handoff_id: id,
        response: { action: 'accept', content: { branch: 'a-long-name', pages: 0, parts: ['intro', 'body', 'end'] } },
      }),
    'invalid_input',
    'response.content.branch must be at most 8 characters; response.content.pages must be 1 or more; response.content.parts must hold at most 2',
  );
  // Accepted with no content at all: the required fields are missing.
  expectRefused(
    t.room,
    () => answerHandoffInput(t.room, alice, { handoff_id: id, response: { action: 'accept' } }),
    'invalid_input',
    'response.content.branch is required; response.content.pages is required',
  );
  expect(getHandoff(t.room, alice, { handoff_id: id }).handoff.inputs[0]!.response).toBeNull();
});

test('the default form takes its one answer; the --answer of ce handoff-answer does not fit a form of other fields', () => {
  t = makeRoom();
  const { handoff } = createHandoff(t.room, alice, { summary: 'Proofread', assignee: 'bob' });
  acceptHandoff(t.room, bob, { handoff_id: handoff.handoff_id });
  requestHandoffInput(t.room, bob, { handoff_id: handoff.handoff_id, message: 'Which spelling?' });
  expectRefused(
    t.room,
    () =>
      answerHandoffInput(t.room, alice, {
        handoff_id: handoff.handoff_id,
        response: { action: 'accept', content: { answer: 7 } },
      }),
    'invalid_input',
    'response.content.answer must be a string',
  );
  const { id } = asked({ type: 'object', properties: { branch: { type: 'string' } } });
  expectRefused(
    t.room,
    () =>
      answerHandoffInput(t.room, alice, { handoff_id: id, response: { action: 'accept', content: { answer: 'x' } } }),
    'invalid_input',
    'response.content.answer is not a field of the form (it asks for branch)',
  );
});

test('a declined or cancelled answer gives no content: content sent with one is refused, and nothing is written', () => {
  const { id } = asked({ type: 'object', properties: { answer: { type: 'string' } } });
  for (const action of ['decline', 'cancel'] as const) {
    const error = expectRefused(
      t.room,
      () => answerHandoffInput(t.room, alice, { handoff_id: id, response: { action, content: { zz: 5, answer: 7 } } }),
      'invalid_input',
      `response.content is only for an accepted answer; a ${action === 'decline' ? 'declined' : 'cancelled'} one gives none`,
    );
    expect(error.details?.errors).toEqual([
      {
        path: '/response/content',
        keyword: 'x-room',
        message: expect.stringMatching(/^is only for an accepted answer/),
      },
    ]);
  }
  answerHandoffInput(t.room, alice, { handoff_id: id, response: { action: 'decline' } });
  expect(getHandoff(t.room, alice, { handoff_id: id }).handoff.inputs[0]!.response).toEqual({ action: 'decline' });
});

test('tasks/update: every answer is checked before any is written, and each is named by its key', () => {
  t = makeRoom();
  const { handoff } = createHandoff(t.room, alice, { summary: 'Proofread', assignee: 'bob' });
  acceptHandoff(t.room, bob, { handoff_id: handoff.handoff_id });
  const first = requestHandoffInput(t.room, bob, { handoff_id: handoff.handoff_id, message: 'Which?', key: 'which' });
  requestHandoffInput(t.room, bob, {
    handoff_id: handoff.handoff_id,
    message: 'How many?',
    key: 'count.v1',
    requested_schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
  });
  const taskId = first.task!.taskId;
  const error = expectRefused(
    t.room,
    () =>
      answerTaskInput(t.room, alice, {
        task_id: taskId,
        input_responses: {
          which: { action: 'accept', content: { answer: 'this' } },
          'count.v1': { action: 'accept', content: { n: 'three' } },
        },
      }),
    'invalid_input',
    'input_responses.count.v1.content.n must be a number',
  );
  expect(error.details?.errors).toEqual([
    { path: '/input_responses/count.v1/content/n', keyword: 'type', message: 'must be a number' },
  ]);
  // Declined, or cancelled: no content. Unknown keys are still passed over.
  const out = answerTaskInput(t.room, alice, {
    task_id: taskId,
    input_responses: {
      which: { action: 'accept', content: { answer: 'this' } },
      'count.v1': { action: 'decline' },
      other: { action: 'accept', content: { anything: 1 } },
    },
  });
  expect(out.answered.sort()).toEqual(['count.v1', 'which']);
  expect(out.task.status).toBe('working');
});

test('a form whose required names a field it does not have is refused when asked', () => {
  t = makeRoom();
  const { handoff } = createHandoff(t.room, alice, { summary: 'Proofread', assignee: 'bob' });
  acceptHandoff(t.room, bob, { handoff_id: handoff.handoff_id });
  const error = expectRefused(
    t.room,
    () =>
      requestHandoffInput(t.room, bob, {
        handoff_id: handoff.handoff_id,
        message: 'How?',
        requested_schema: {
          type: 'object',
          properties: { branch: { type: 'string' } },
          required: ['branch', 'brnach'],
        },
      }),
    'invalid_input',
    'requested_schema.required names brnach, not among its properties',
  );
  expect(error.details?.errors).toEqual([
    { path: '/requested_schema/required', keyword: 'required', message: 'names brnach, not among its properties' },
  ]);
});
