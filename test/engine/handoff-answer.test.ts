// Answering by what the owner holds (handoff_answer): the handoff's id, and
// the key only when more than one question is open. A key that is not open
// is refused, listing the open ones; nothing is written by a refusal.
import { afterEach, expect, test } from 'vitest';
import {
  acceptHandoff,
  answerHandoffInput,
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

/** A handoff alice gave bob, which bob accepted and asked `questions` about. */
function asked(...questions: string[]) {
  t = makeRoom();
  const { handoff } = createHandoff(t.room, alice, { summary: 'Proofread', assignee: 'bob' });
  acceptHandoff(t.room, bob, { handoff_id: handoff.handoff_id });
  const keys = questions.map(
    (message) => requestHandoffInput(t.room, bob, { handoff_id: handoff.handoff_id, message }).key,
  );
  return { id: handoff.handoff_id, keys };
}

test('one open question: answered by the handoff alone, and the task works again', () => {
  const { id, keys } = asked('Which spelling?');
  const out = answerHandoffInput(t.room, alice, {
    handoff_id: id,
    response: { action: 'accept', content: { answer: 'British' } },
  });
  expect(out.key).toBe(keys[0]);
  expect(out.task.status).toBe('working');
  expect(out.handoff.inputs[0]).toMatchObject({
    key: keys[0],
    response: { action: 'accept', content: { answer: 'British' } },
    answered_by: 'alice',
  });
});

test('several open questions: the key says which, and leaving it out is refused, listing them', () => {
  const { id, keys } = asked('Which spelling?', 'How long?');
  expectRefused(
    t.room,
    () => answerHandoffInput(t.room, alice, { handoff_id: id, response: { action: 'decline' } }),
    'invalid_input',
    `key is needed: handoff ${id} has 2 open questions: ${keys[0]} ("Which spelling?"), ${keys[1]} ("How long?")`,
  );
  const first = answerHandoffInput(t.room, alice, { handoff_id: id, key: keys[1]!, response: { action: 'decline' } });
  expect(first).toMatchObject({ key: keys[1], task: { status: 'input_required' } });
  // One is left: now the key may be left out.
  const second = answerHandoffInput(t.room, alice, {
    handoff_id: id,
    response: { action: 'accept', content: { answer: 'British' } },
  });
  expect(second).toMatchObject({ key: keys[0], task: { status: 'working' } });
});

test('a key that is not open, a handoff with no open question, someone not the owner, a made-up handoff: refused, nothing written', () => {
  const { id, keys } = asked('Which spelling?');
  expectRefused(
    t.room,
    () => answerHandoffInput(t.room, alice, { handoff_id: id, key: 'in_nope', response: { action: 'decline' } }),
    'invalid_input',
    `key in_nope is not an open question of handoff ${id}; open: ${keys[0]} ("Which spelling?")`,
  );
  expectRefused(
    t.room,
    () => answerHandoffInput(t.room, bob, { handoff_id: id, response: { action: 'decline' } }),
    'forbidden',
    "only the handoff's owner (alice) answers its questions",
  );
  expectRefused(
    t.room,
    () => answerHandoffInput(t.room, alice, { handoff_id: 'ho_made_up', response: { action: 'decline' } }),
    'not_found',
    'unknown handoff ho_made_up',
  );
  answerHandoffInput(t.room, alice, { handoff_id: id, response: { action: 'decline' } });
  expectRefused(
    t.room,
    () => answerHandoffInput(t.room, alice, { handoff_id: id, key: keys[0]!, response: { action: 'decline' } }),
    'conflict',
    `handoff ${id} has no open question (its task is working)`,
  );
  expect(getHandoff(t.room, alice, { handoff_id: id }).handoff.inputs[0]!.response).toEqual({ action: 'decline' });
});
