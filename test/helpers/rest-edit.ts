// An edit made as a client makes one: a proposal on the current revision,
// then its approval, both over REST.
import { expect } from 'vitest';

/** alice proposes a new text and approves it, over real HTTP: the room writes the file. */
export async function approveAnEdit(restUrl: string, token: string, content: string): Promise<void> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const artifact = (await (await fetch(`${restUrl}/artifact`, { headers })).json()) as { revision: { number: number } };
  const proposed = await fetch(`${restUrl}/proposals`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ base_revision: artifact.revision.number, content, summary: 'An edit' }),
  });
  expect(proposed.status).toBe(201);
  const { proposal } = (await proposed.json()) as { proposal: { proposal_id: string } };
  const approved = await fetch(`${restUrl}/proposals/${proposal.proposal_id}/approve`, {
    method: 'POST',
    headers,
    body: '{}',
  });
  expect(approved.status).toBe(200);
}
