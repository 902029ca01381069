// A room under `litestream replicate -exec`, as README's "Running many
// rooms" sets it up, killed and brought back from its replica, 20 times:
// a mixed load (creates, cancels, approved edits), SIGKILL of Litestream and
// the room at a random moment, `litestream restore` into a fresh directory,
// `ce restore --sidecar`, then the room served again. Every write
// acknowledged more than two sync intervals before the kill is there, the
// file is the latest revision, the sidecar passes its integrity check.
// Opt-in (`npm run test:scale-out`): it installs Litestream from npm.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, onTestFinished, test } from 'vitest';
import { addParticipant, createSession, LOCAL_OPERATOR, openRoom } from '../helpers/engine.js';
import { ceServe } from '../helpers/ce-serve.js';
import { withRoomFile } from '../helpers/room-file.js';
import { tempDir } from '../helpers/room.js';
import { CE_BIN, ce, okJson } from '../helpers/run-ce.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { litestreamBinary } from './tools.js';
import { hashBytes } from '../../src/store/artifact-file.js';
import { sidecarPath } from '../../src/store/sidecar.js';

const ROUNDS = Number(process.env.SCALE_OUT_ROUNDS ?? 20);
const EXAMPLE = fileURLToPath(new URL('../../examples/litestream.yml', import.meta.url));
/** examples/litestream.yml's sync-interval. */
const SYNC_MS = 1000;

interface Acknowledged {
  at: number;
  summary?: string;
  content?: string;
}

/** Litestream replicating FILE's sidecar to `replica`, running `ce serve FILE`; its room's URL and pid once it serves. */
async function replicated(
  litestream: string,
  config: string,
  file: string,
): Promise<{ litestream: ChildProcess; restUrl: string; pid: number; stderr: () => string }> {
  const child = spawn(
    litestream,
    ['replicate', '-config', config, '-exec', `${process.execPath} ${CE_BIN} serve ${file} --port 0 --json`],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  await expect.poll(() => /^\{.*"rest_url"/m.test(out), { timeout: 20_000 }).toBe(true);
  const line = JSON.parse(/^\{.*"rest_url".*$/m.exec(out)![0]) as { rest_url: string; pid: number };
  return { litestream: child, restUrl: line.rest_url, pid: line.pid, stderr: () => err };
}

/** Creates, cancels and approved edits over REST until stopped; what was acknowledged, and when. */
function mixedLoad(restUrl: string, token: string, random: () => number): { stop(): Promise<Acknowledged[]> } {
  const acknowledged: Acknowledged[] = [];
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const post = (route: string, body: unknown) =>
    fetch(`${restUrl}${route}`, { method: 'POST', headers, body: JSON.stringify(body) });
  let running = true;
  const run = async () => {
    for (let i = 0; running; i++) {
      const choice = random();
      if (choice < 0.7) {
        const summary = `handoff ${i}`;
        const created = await post('/handoffs', { summary });
        expect(created.status).toBe(201);
        const { handoff } = (await created.json()) as { handoff: { task_id: string } };
        acknowledged.push({ at: performance.now(), summary });
        // Cancelled at once: a participant holds at most 32 active tasks.
        expect((await post('/task/cancel', { task_id: handoff.task_id })).status).toBe(200);
      } else {
        const artifact = (await (await fetch(`${restUrl}/artifact`, { headers })).json()) as {
          revision: { number: number };
        };
        const content = `# Notes\n\nEdit ${i}.\n`;
        const proposed = await post('/proposals', {
          base_revision: artifact.revision.number,
          content,
          summary: 'edit',
        });
        expect(proposed.status).toBe(201);
        const { proposal } = (await proposed.json()) as { proposal: { proposal_id: string } };
        expect((await post(`/proposals/${proposal.proposal_id}/approve`, {})).status).toBe(200);
        acknowledged.push({ at: performance.now(), content });
      }
    }
  };
  const done = run().catch((error: unknown) => {
    // A request the kill cut off is no failure of the room's: only what was acknowledged counts.
    if (running) throw error;
  });
  return {
    async stop() {
      running = false;
      await done;
      return acknowledged;
    },
  };
}

const kill = (pid: number) => {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
};

describe.skipIf(!process.env.CE_SCALE_OUT)('Litestream (opt-in: npm run test:scale-out)', () => {
  test(
    `${ROUNDS} rounds: killed at a random moment, brought back from the replica`,
    { timeout: ROUNDS * 60_000 },
    async () => {
      const litestream = await litestreamBinary();
      const random = seededRandom(Number(process.env.SCALE_OUT_SEED ?? 27));
      const lost: string[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        const { file, token } = withRoomFile((room) => {
          addParticipant(room, LOCAL_OPERATOR, { name: 'alice' });
          return createSession(room, LOCAL_OPERATOR, {
            participant: 'alice',
            capabilities: ['read', 'write', 'approve'],
          });
        });
        const replica = path.join(tempDir(), 'replica');
        const config = path.join(path.dirname(file), 'litestream.yml');
        // examples/litestream.yml itself, pointed at this room and its replica.
        writeFileSync(
          config,
          readFileSync(EXAMPLE, 'utf8')
            .replaceAll('/srv/notes/notes.md.commonroom.db', sidecarPath(file))
            .replaceAll('file:///mnt/replica/notes', `file://${replica}`),
        );
        const served = await replicated(litestream, config, file);
        onTestFinished(() => {
          kill(served.pid);
          served.litestream.kill('SIGKILL');
        });
        const load = mixedLoad(served.restUrl, token, random);
        await new Promise((resolve) => setTimeout(resolve, 2_000 + random() * 4_000));
        const killedAt = performance.now();
        served.litestream.kill('SIGKILL');
        kill(served.pid);
        const acknowledged = await load.stop();
        const due = acknowledged.filter((write) => write.at < killedAt - 2 * SYNC_MS);

        // Another directory, as another machine would have it: the replica, then the room from its sidecar.
        const dest = path.join(tempDir(), 'notes.md');
        const restoredDb = path.join(path.dirname(dest), 'replica.db');
        const restore = spawnSync(litestream, ['restore', '-config', config, '-o', restoredDb, sidecarPath(file)], {
          encoding: 'utf8',
        });
        expect(restore.status, `${restore.stdout}${restore.stderr}`).toBe(0);
        okJson(await ce(['restore', '--sidecar', restoredDb, dest, '--json']));
        const room = openRoom(dest, { mode: 'read' });
        let summaries: Set<string>;
        let revisions: string[];
        try {
          expect(room.store.db.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
          summaries = new Set(
            (room.store.db.prepare('SELECT summary FROM handoffs').all() as { summary: string }[]).map(
              (r) => r.summary,
            ),
          );
          revisions = (room.store.db.prepare('SELECT content FROM revisions').all() as { content: string }[]).map((r) =>
            String(r.content),
          );
          expect(hashBytes(readFileSync(dest))).toBe(room.workspace.currentRevision()!.hash);
        } finally {
          room.close();
        }
        for (const write of due) {
          if (write.summary !== undefined && !summaries.has(write.summary))
            lost.push(`round ${round}: ${write.summary}`);
          if (write.content !== undefined && !revisions.includes(write.content)) lost.push(`round ${round}: an edit`);
        }
        // It serves again.
        const again = await ceServe(dest);
        onTestFinished(again.kill);
        const read = await fetch(`${again.restUrl}/handoffs?limit=1`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(read.status).toBe(200);
        expect(await again.stop()).toBe(0);
        console.log(
          `round ${round}: ${acknowledged.length} writes acknowledged, ${due.length} more than ${2 * SYNC_MS} ms before the kill, ` +
            `${summaries.size} handoffs and ${revisions.length} revisions restored`,
        );
      }
      expect(lost).toEqual([]);
    },
  );
});
