// `ce serve` killed with SIGKILL while proposals are made and accepted over
// MCP and REST and an outside editor saves the file now and then: the room
// records each save it sees as an external revision, never one of its own
// writes, and after each restart the file and the sidecar agree
// (test/helpers/proposal-crash-scenario.ts).
import { expect, test } from 'vitest';
import { runCrashRounds } from '../helpers/crash-harness.js';
import { INITIAL_CONTENT, PARTICIPANTS, proposalCrashScenario } from '../helpers/proposal-crash-scenario.js';

const ROUNDS = 20;

test(
  `ce serve killed with SIGKILL ${ROUNDS} times while proposals are accepted and an editor saves the file keeps both and tells them apart`,
  { timeout: 240_000 },
  async () => {
    const { scenario, totals } = proposalCrashScenario({ editor: true });
    await runCrashRounds({
      scenario,
      participants: PARTICIPANTS,
      rounds: ROUNDS,
      killAfterMs: { min: 30, max: 300 },
      content: INITIAL_CONTENT,
    });

    expect(totals.rounds).toBe(ROUNDS);
    // Approvals went through (the editor's saves make many stale; both doors are held to it in the main scenario).
    expect(totals.accepted.mcp + totals.accepted.rest, 'approvals acknowledged').toBeGreaterThan(0);
    expect(totals.editorSaves).toBeGreaterThan(0);
    expect(totals.externalRevisions, "the editor's saves the room recorded").toBeGreaterThan(0);
    expect(totals.lost, 'requests in flight at a kill').toBeGreaterThan(0);
  },
);
