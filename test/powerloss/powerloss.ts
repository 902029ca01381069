// npm run test:powerloss: power cuts under load, on LazyFS (a FUSE file
// system that drops every byte not yet fsynced when told to: a power cut).
// Not part of npm test: it needs root, /dev/fuse and LazyFS, which
// ../shared/tools/lazyfs/lazyfs-ctl (or LAZYFS_CTL) builds and drives.
//
// Each round: ce serve on a room inside the mount; workers create handoffs
// and cancel them (REST and MCP), and propose and approve new texts of the
// file; every acknowledged write is recorded; at a random moment the room is
// SIGKILLed and the power cut at once. The room then starts again, and the
// check: every acknowledged write is there, PRAGMA integrity_check is ok, the
// handoffs' counts by status agree with the handoffs, and the file is the
// sidecar's latest revision. A few rounds cut the power right
// after ce backup and ce restore report success: the backup, and the room
// restored, are whole and agree. CUTS sets the number of cut rounds (50).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { parseOutsideJson } from '../../src/outside-json.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ctl = process.env.LAZYFS_CTL ?? path.resolve(repo, '../shared/tools/lazyfs/lazyfs-ctl');
const mnt = process.env.PL_MNT ?? '/tmp/lazyfs-work/mnt';
const ce = path.join(repo, 'bin', 'ce.js');
const CUTS = Number(process.env.CUTS ?? 50);
const PROTOCOL = '2026-07-28';

if (!existsSync(ctl)) {
  process.stderr.write(
    `test:powerloss needs LazyFS's driver, and ${ctl} does not exist: set LAZYFS_CTL to the lazyfs-ctl that builds and drives LazyFS.\n`,
  );
  process.exit(2);
}

const lazyfs = (command: string): string =>
  execFileSync(ctl, [command], { encoding: 'utf8', env: { ...process.env, PL_MNT: mnt } });

const ceRun = (args: string[]): string => execFileSync(process.execPath, [ce, ...args], { encoding: 'utf8' });

const sha = (bytes: Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

interface Served {
  child: ChildProcess;
  restUrl: string;
  mcpUrl: string;
}

async function serve(file: string): Promise<Served> {
  const child = spawn(process.execPath, [ce, 'serve', file, '--port', '0', '--json'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`ce serve exited with ${code}: ${err}`)));
  });
  const info = parseOutsideJson(line, 'ce serve --json') as { rest_url: string; mcp_url: string };
  return { child, restUrl: info.rest_url, mcpUrl: info.mcp_url };
}

const kill = (served: Served): Promise<void> =>
  new Promise((resolve) => {
    if (served.child.exitCode !== null || served.child.signalCode !== null) return resolve();
    served.child.once('exit', () => resolve());
    served.child.kill('SIGKILL');
  });

/** What the room acknowledged, to be found again after every cut. */
interface Ledger {
  handoffs: Set<string>;
  cancelled: Set<string>;
  revisions: Map<number, string>;
  writes: number;
}

/** Workers of mixed load until `stop` says so; each acknowledgement is recorded the moment it arrives. */
function load(
  served: Served,
  tokens: { alice: string; dave: string },
  ledger: Ledger,
  round: number,
  stop: () => boolean,
) {
  const rest = (token: string, method: string, route: string, body?: unknown) =>
    fetch(`${served.restUrl}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
  const mcp = (token: string, name: string, args: unknown) =>
    fetch(served.mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': PROTOCOL,
        'mcp-method': 'tools/call',
        'mcp-name': name,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name,
          arguments: args,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': PROTOCOL,
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

  // Tasks a cut left between their create and their cancel: cancelled first, so creates stay under the room's 32.
  const clearLeftovers = async () => {
    try {
      const open = await rest(tokens.alice, 'GET', '/handoffs?status=open&limit=100');
      for (const handoff of (open.body.handoffs ?? []) as { task_id: string }[]) {
        await rest(tokens.alice, 'POST', '/task/cancel', { task_id: handoff.task_id });
      }
    } catch {
      // the room is gone already: the next round clears them
    }
  };

  const handoffWorker = async (worker: number) => {
    for (let i = 0; !stop(); i++) {
      const summary = `r${round} w${worker} #${i}`;
      try {
        const created =
          i % 2 === 0
            ? await rest(tokens.alice, 'POST', '/handoffs', { summary })
            : await mcp(tokens.alice, 'handoff_create', { summary });
        const handoff = created.status === 201 ? created.body.handoff : created.body.result?.structuredContent?.handoff;
        if (!handoff || created.body.result?.isError) continue;
        ledger.handoffs.add(summary);
        ledger.writes += 1;
        const cancelled = await rest(tokens.alice, 'POST', '/task/cancel', { task_id: handoff.task_id });
        if (cancelled.status === 200) {
          ledger.cancelled.add(summary);
          ledger.writes += 1;
        }
      } catch {
        return; // the room is gone: the cut
      }
    }
  };
  const proposalWorker = async () => {
    for (let i = 0; !stop(); i++) {
      try {
        const artifact = await rest(tokens.alice, 'GET', '/artifact');
        if (artifact.status !== 200) continue;
        const content = `# Power\n\nRound ${round}, edit ${i}.\n`;
        const proposed = await rest(tokens.alice, 'POST', '/proposals', {
          base_revision: artifact.body.revision.number,
          content,
          summary: `edit ${i}`,
        });
        if (proposed.status !== 201) continue;
        const approved = await rest(
          tokens.dave,
          'POST',
          `/proposals/${proposed.body.proposal.proposal_id}/approve`,
          {},
        );
        if (approved.status === 200) {
          ledger.revisions.set(approved.body.revision.number, sha(Buffer.from(content)));
          ledger.writes += 1;
        }
      } catch {
        return;
      }
    }
  };
  return clearLeftovers().then(() =>
    Promise.all([handoffWorker(0), handoffWorker(1), handoffWorker(2), proposalWorker()]),
  );
}

/** The sidecar holds every acknowledged write, passes the integrity check, and the file is its latest revision. */
function check(file: string, ledger: Ledger): string[] {
  const problems: string[] = [];
  const db = new Database(`${file}.commonroom.db`, { readonly: true, fileMustExist: true });
  try {
    const [integrity] = db.pragma('integrity_check') as { integrity_check: string }[];
    if (integrity?.integrity_check !== 'ok') problems.push(`integrity_check: ${integrity?.integrity_check}`);
    const handoffs = new Map(
      (db.prepare('SELECT summary, status FROM handoffs').all() as { summary: string; status: string }[]).map((r) => [
        r.summary,
        r.status,
      ]),
    );
    for (const summary of ledger.handoffs) if (!handoffs.has(summary)) problems.push(`lost handoff ${summary}`);
    // The counts by status are the writer's, written in each commit with its changes: they agree after a cut.
    const counted = JSON.stringify(
      db.prepare('SELECT status, count(*) AS n FROM handoffs GROUP BY status ORDER BY status').all(),
    );
    const kept = JSON.stringify(db.prepare('SELECT status, n FROM handoff_counts WHERE n > 0 ORDER BY status').all());
    if (kept !== counted) problems.push(`handoff_counts ${kept}, where the handoffs count ${counted}`);
    for (const summary of ledger.cancelled) {
      if (handoffs.get(summary) !== 'cancelled') problems.push(`lost cancel of ${summary}`);
    }
    const revisions = new Map(
      (db.prepare('SELECT number, hash FROM revisions').all() as { number: number; hash: string }[]).map((r) => [
        r.number,
        r.hash,
      ]),
    );
    for (const [number, hash] of ledger.revisions) {
      if (revisions.get(number) !== hash) problems.push(`lost revision ${number}`);
    }
    const latest = db.prepare('SELECT hash FROM revisions ORDER BY number DESC LIMIT 1').get() as { hash: string };
    if (sha(readFileSync(file)) !== latest.hash) problems.push('the file is not the latest revision');
  } finally {
    db.close();
  }
  return problems;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  if (!existsSync(ctl)) throw new Error(`no lazyfs-ctl at ${ctl}: set LAZYFS_CTL`);
  lazyfs('build');
  lazyfs('mount');
  process.stdout.write(lazyfs('canary'));
  const dir = path.join(mnt, `room-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'notes.md');
  writeFileSync(file, '# Power\n');
  ceRun(['init', file]);
  ceRun(['participant', 'add', file, 'alice']);
  ceRun(['participant', 'add', file, 'dave']);
  const token = (who: string, caps: string) =>
    (
      parseOutsideJson(ceRun(['session', 'create', file, '--participant', who, '--caps', caps, '--json']), 'token') as {
        token: string;
      }
    ).token;
  const tokens = { alice: token('alice', 'read,write'), dave: token('dave', 'read,approve') };
  // The sessions made above must survive the first cut too.
  lazyfs('cut');

  const ledger: Ledger = { handoffs: new Set(), cancelled: new Set(), revisions: new Map(), writes: 0 };
  const failures: string[] = [];
  let served = await serve(file);
  for (let round = 1; round <= CUTS; round++) {
    let stopped = false;
    const work = load(served, tokens, ledger, round, () => stopped);
    await sleep(150 + Math.random() * 1200);
    await kill(served);
    lazyfs('cut');
    stopped = true;
    await work;
    served = await serve(file); // settles a pending write of the file, as after any crash
    await kill(served);
    const problems = check(file, ledger);
    failures.push(...problems.map((p) => `round ${round}: ${p}`));
    process.stdout.write(
      `cut ${round}/${CUTS}: ${ledger.writes} acknowledged so far, ${problems.length === 0 ? 'all there' : problems.join('; ')}\n`,
    );
    served = await serve(file);
  }
  await kill(served);

  // ce backup, and ce restore, followed at once by a power cut.
  for (let round = 1; round <= 3; round++) {
    const copy = path.join(dir, `backup-${round}.md`);
    ceRun(['backup', file, copy]);
    lazyfs('cut');
    const copyProblems = check(copy, { handoffs: new Set(), cancelled: new Set(), revisions: new Map(), writes: 0 });
    failures.push(...copyProblems.map((p) => `backup ${round}: ${p}`));
    const backupFile = readFileSync(copy);
    ceRun(['restore', copy, file]);
    lazyfs('cut');
    served = await serve(file);
    await kill(served);
    const restoreProblems = check(file, { handoffs: new Set(), cancelled: new Set(), revisions: new Map(), writes: 0 });
    if (!readFileSync(file).equals(backupFile))
      restoreProblems.push('the restored file is not the backup, byte for byte');
    failures.push(...restoreProblems.map((p) => `restore ${round}: ${p}`));
    process.stdout.write(
      `backup and restore ${round}, each cut at once: ${copyProblems.length + restoreProblems.length === 0 ? 'whole' : [...copyProblems, ...restoreProblems].join('; ')}\n`,
    );
  }

  rmSync(dir, { recursive: true, force: true });
  lazyfs('umount');
  process.stdout.write(
    `\n${CUTS} power cuts under load, ${ledger.writes} acknowledged writes (${ledger.handoffs.size} creates, ${ledger.cancelled.size} cancels, ${ledger.revisions.size} approvals), ${failures.length} lost or broken; 3 backups and 3 restores cut at once\n`,
  );
  for (const failure of failures) process.stdout.write(`  ${failure}\n`);
  process.exitCode = failures.length === 0 ? 0 : 1;
}

await main();
