// `ce serve` killed with SIGKILL while writers propose and approvers accept
// changes to the artifact over MCP and REST: after each kill and each
// restart the file and the sidecar agree (test/helpers/proposal-crash-scenario.ts).
import { expect, test } from 'vitest';
import { runCrashRounds } from '../helpers/crash-harness.js';
import { INITIAL_CONTENT, PARTICIPANTS, proposalCrashScenario } from '../helpers/proposal-crash-scenario.js';

const ROUNDS = 50;

test(
  `ce serve killed with SIGKILL ${ROUNDS} times while proposals are made and accepted keeps the file and the sidecar agreeing`,
  { timeout: 300_000 },
  async () => {
    const { scenario, totals } = proposalCrashScenario();
    await runCrashRounds({
      scenario,
      participants: PARTICIPANTS,
      rounds: ROUNDS,
      killAfterMs: { min: 30, max: 300 },
      content: INITIAL_CONTENT,
    });

    // The load did what it is for: proposals made and accepted through both doors, stale ones refused, requests cut by kills.
    expect(totals.rounds).toBe(ROUNDS);
    for (const door of ['mcp', 'rest'] as const) {
      expect(totals.proposed[door], door).toBeGreaterThan(0);
      expect(totals.accepted[door], door).toBeGreaterThan(0);
    }
    expect(totals.refused.conflict, 'approvals of stale proposals').toBeGreaterThan(0);
    expect(totals.lost, 'requests in flight at a kill').toBeGreaterThan(0);
    expect(totals.externalRevisions).toBe(0);
  },
);
