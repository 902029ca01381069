import type { InputOf } from '../../../generated/operations.js';
import path from 'node:path';
import type { ArtifactReadOutput, Revision } from '../../../generated/types.js';
import { hashBytes, readArtifactBytes, writeArtifactFileAtomically } from '../../store/artifact-file.js';
import type { RevisionRow } from '../../store/rows.js';
import { dataBits } from '../../store/sidecar-files.js';
import { type Actor } from '../access.js';
import { DomainError } from '../../errors.js';
import { appendHistory, toRevision } from '../history.js';
import { change, type Room } from '../room.js';
import { settlePendingWrite } from '../proposals/accepted-write.js';
import { decodeArtifact, notText } from './text.js';
import { refreshMergeable } from '../proposals/mergeable.js';

function readDisk(room: Room): Buffer {
  try {
    return readArtifactBytes(room.artifactPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      // Not a 404: the record asked for exists; the file was taken away outside the room.
      throw new DomainError(
        'conflict',
        `the artifact ${path.basename(room.artifactPath)} is missing on disk; the room reads and changes nothing of it until the file is back`,
        { reason: 'artifact_missing' },
      );
    }
    throw error;
  }
}

export function currentRevision(room: Room): RevisionRow {
  const row = room.workspace.currentRevision();
  if (!row) throw new DomainError('not_found', 'the room has no revision yet; open it for writing once (ce init)');
  return row;
}

/**
 * Records the file as it is on disk when it differs from the current
 * revision: an edit made outside the room becomes an external revision with
 * its event, so it is never lost nor silently overwritten. The first call on
 * a new room records the initial revision.
 */
export function syncArtifact(room: Room): Revision | null {
  // A restore put the sidecar back and the file follows it: written from the revision it names.
  settleFileRewrite(room);
  const bytes = readDisk(room);
  const hash = hashBytes(bytes);
  // A write the room began is settled first: its bytes are the room's, not an outside edit.
  settlePendingWrite(room, hash);
  const current = room.workspace.currentRevision();
  if (current?.hash === hash) return null;
  const decoded = decodeArtifact(bytes);
  if (!current && 'problem' in decoded) throw notText(room.artifactPath, decoded.problem);
  return change(room, ({ now, record }) => {
    // Re-read inside the transaction: another sync may have recorded it.
    const latest = room.workspace.currentRevision();
    if (latest?.hash === hash) return null;
    const row: RevisionRow = {
      number: (latest?.number ?? 0) + 1,
      hash,
      size: bytes.length,
      // Bytes that are not text are kept as they are, never decoded and re-encoded.
      content: 'text' in decoded ? decoded.text : bytes,
      source: latest ? 'external' : 'initial',
      author: null,
      approver: null,
      proposal_id: null,
      at: now,
      merged_base: null,
    };
    room.workspace.insertRevision(row);
    appendHistory(room, { kind: 'revision', at: now, actor: null, revision: row.number });
    if (latest) {
      record({
        type: 'artifact.external_edit',
        actor: null,
        handoffId: null,
        taskId: null,
        payload: { revision: row.number, hash },
      });
      refreshMergeable(room, row, record); // an outside edit is a revision like any other
    }
    return toRevision(row);
  });
}

/**
 * ce restore puts a room's sidecar back first, marked with the revision the
 * file is to be (file_rewrite), then writes the file and removes the mark.
 * After a crash between the two, the next writer finishes it here: the file
 * written from that revision, whatever it holds, and the mark removed with
 * its event. Bytes that are the restored room's, never an outside edit.
 */
function settleFileRewrite(room: Room): void {
  if (!room.sidecar.writable) return;
  const rewrite = room.workspace.getFileRewrite();
  if (!rewrite) return;
  const revision = room.workspace.getRevision(rewrite.revision)!;
  const bytes = typeof revision.content === 'string' ? Buffer.from(revision.content) : revision.content;
  let onDisk: Buffer | null = null;
  try {
    onDisk = readArtifactBytes(room.artifactPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (onDisk === null || hashBytes(onDisk) !== revision.hash) {
    // A file not there (restored into a new place) gets the sidecar's bits, which the restore took from the backup's file.
    writeArtifactFileAtomically(room.artifactPath, bytes, { mode: dataBits(room.sidecar.path) });
  }
  change(
    room,
    ({ record }) => {
      room.workspace.deleteFileRewrite();
      record({
        type: 'artifact.restored',
        actor: null,
        handoffId: null,
        taskId: null,
        payload: { revision: revision.number, hash: revision.hash, reason: rewrite.reason },
      });
    },
    { durableNow: true },
  );
}

/**
 * The artifact as it is on disk and the revision it is. A room open for
 * writing records an outside edit first; a read-only reader reports the
 * newest recorded revision and says when the file differs from it.
 */
export function readArtifact(room: Room, actor: Actor, _args: InputOf<'readArtifact'>): ArtifactReadOutput {
  if (room.sidecar.writable) syncArtifact(room);
  const bytes = readDisk(room);
  const revision = currentRevision(room);
  const decoded = decodeArtifact(bytes);
  if ('problem' in decoded) throw notTextNow(room, decoded.problem);
  return {
    name: path.basename(room.artifactPath),
    revision: toRevision(revision),
    content: decoded.text,
    unrecorded_edit: revision.hash !== hashBytes(bytes),
  };
}

/** The file on disk is not text now: an outside edit, kept as it is, that nothing can read or change as text. */
export const notTextNow = (room: Room, problem: string): DomainError =>
  new DomainError(
    'conflict',
    `the artifact ${path.basename(room.artifactPath)} is not UTF-8 text since an outside edit (${problem}); the room keeps it as it is, and it can be read and changed again once it is saved as UTF-8 text`,
    { reason: 'not_text' },
  );
