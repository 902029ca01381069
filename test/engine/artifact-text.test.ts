// The artifact is UTF-8 text, and the room never rewrites bytes it did not
// understand: a file that is not text is refused when a room would be made
// of it, kept as it is when an outside edit makes it so, and every hash and
// size is that of the bytes on disk.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import {
  approveProposal,
  getProposal,
  openRoom,
  proposeChange,
  readArtifact,
  syncArtifact,
  listHistory,
  type DomainError,
} from '../helpers/engine.js';
import { sidecarPath } from '../../src/store/sidecar.js';
import { expectRefused } from '../helpers/expect-refused.js';
import { caller, makeRoom, tempDir, type TestRoom } from '../helpers/room.js';

const alice = caller('alice');
const approver = caller('dave', ['read', 'approve']);
const sha256 = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
/** "café" in Latin-1: 0xE9 is not UTF-8. */
const LATIN1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]);

let t: TestRoom | null = null;
afterEach(() => {
  t?.close();
  t = null;
});

function refusal(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    return error as DomainError;
  }
  throw new Error('expected a refusal');
}

describe('making a room', () => {
  test.each([
    ['Latin-1', LATIN1, 'byte 0xE9 at offset 3 is not valid UTF-8'],
    [
      'a PNG header',
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      'byte 0x89 at offset 0 is not valid UTF-8',
    ],
    ['a NUL byte', Buffer.from('# Notes\n\0tail\n'), 'it holds a NUL byte at offset 8'],
    ['a cut multi-byte character', Buffer.from([0x23, 0x20, 0xe2, 0x82]), 'byte 0xE2 at offset 2 is not valid UTF-8'],
  ])('of %s is refused, naming where and what to do, and writes no sidecar', (_name, bytes, problem) => {
    const file = path.join(tempDir(), 'notes.md');
    writeFileSync(file, bytes);
    const error = refusal(() => openRoom(file));
    expect(error).toMatchObject({ code: 'invalid_input' });
    expect(error.message).toBe(
      `${file} is not UTF-8 text (${problem}); a room's file must be UTF-8 text without NUL bytes: ${
        problem.includes('NUL')
          ? "remove them first (for example with tr -d '\\000')"
          : 'convert it first (for example with iconv -f latin1 -t utf-8)'
      }`,
    );
    expect(existsSync(sidecarPath(file))).toBe(false);
    expect(readFileSync(file)).toEqual(bytes);
  });

  test('of UTF-8 text keeps every byte: a byte order mark, a real U+FFFD, CRLF', () => {
    const file = path.join(tempDir(), 'notes.md');
    const bytes = Buffer.from('\uFEFF# Notes \uFFFD\r\nline\r\n', 'utf8');
    writeFileSync(file, bytes);
    const room = openRoom(file);
    try {
      const revision = syncArtifact(room)!;
      expect(revision).toMatchObject({
        number: 1,
        source: 'initial',
        size: bytes.length,
        hash: sha256(bytes),
        utf8: true,
      });
      expect(readArtifact(room, alice).content).toBe('\uFEFF# Notes \uFFFD\r\nline\r\n');
      const proposal = proposeChange(room, alice, {
        base_revision: 1,
        content: '\uFEFF# Notes \uFFFD\r\nline\r\nmore\r\n',
        summary: 'A change',
      });
      approveProposal(room, approver, { proposal_id: proposal.proposal.proposal_id });
      expect(readFileSync(file)).toEqual(Buffer.from('\uFEFF# Notes \uFFFD\r\nline\r\nmore\r\n', 'utf8'));
      expect(readArtifact(room, alice).revision).toMatchObject({ number: 2, hash: sha256(readFileSync(file)) });
    } finally {
      room.close();
    }
  });
});

describe('an outside edit that leaves the file not UTF-8', () => {
  test('is recorded with the hash and size of its bytes; reading it as text is refused', () => {
    t = makeRoom();
    syncArtifact(t.room);
    writeFileSync(t.artifact, LATIN1);
    const error = refusal(() => readArtifact(t!.room, alice));
    expect(error).toMatchObject({ code: 'conflict', details: { reason: 'not_text' } });
    expect(error.message).toBe(
      'the artifact room.md is not UTF-8 text since an outside edit (byte 0xE9 at offset 3 is not valid UTF-8); the room keeps it as it is, and it can be read and changed again once it is saved as UTF-8 text',
    );
    const { entries } = listHistory(t.room, alice, {});
    expect(entries.at(-1)!.revision).toMatchObject({
      number: 2,
      source: 'external',
      hash: sha256(LATIN1),
      size: LATIN1.length,
      utf8: false,
    });
  });

  test('makes accepting a proposal a conflict that says why, and the file keeps its bytes', () => {
    t = makeRoom();
    syncArtifact(t.room);
    const { proposal } = proposeChange(t.room, alice, {
      base_revision: 1,
      content: '# Proposed\n',
      summary: 'A change',
    });
    writeFileSync(t.artifact, LATIN1);
    syncArtifact(t.room); // recorded first, so the refusal below changes nothing at all
    // The proposal says so, where it said "up to date" with revision 1.
    expect(getProposal(t.room, alice, { proposal_id: proposal.proposal_id }).proposal.mergeable).toEqual({
      status: 'not_text',
      revision: 2,
      conflicts: [],
    });
    expectRefused(
      t.room,
      () => approveProposal(t!.room, approver, { proposal_id: proposal.proposal_id }),
      'conflict',
      /is not UTF-8 text since an outside edit \(byte 0xE9 at offset 3/,
    );
    // Refused, not decided: the proposal is still open, and no revision was made of it.
    expect(getProposal(t.room, alice, { proposal_id: proposal.proposal_id })).toMatchObject({
      proposal: { status: 'open', revision: null },
      revision: null,
    });
    expect(readFileSync(t.artifact)).toEqual(LATIN1);
    // Nothing can be proposed against the bytes either.
    expectRefused(
      t.room,
      () => proposeChange(t!.room, alice, { base_revision: 2, content: '# Fixed\n', summary: 'A change' }),
      'conflict',
      'revision 2 is not UTF-8 text (an outside edit); nothing can be proposed against it',
    );
  });

  test('saving it as UTF-8 again is one more outside edit, and the room works as before', () => {
    t = makeRoom();
    syncArtifact(t.room);
    writeFileSync(t.artifact, LATIN1);
    syncArtifact(t.room);
    const { proposal: before } = proposeChange(t.room, alice, { base_revision: 1, content: 'café\n', summary: 'x' });
    writeFileSync(t.artifact, 'café\n');
    expect(readArtifact(t.room, alice)).toMatchObject({ content: 'café\n', revision: { number: 3, utf8: true } });
    // A proposal made against the text before merges again: onto revision 3, which holds its change already.
    expect(getProposal(t.room, alice, { proposal_id: before.proposal_id }).proposal.mergeable).toMatchObject({
      status: 'already_applied',
      revision: 3,
    });
    const { proposal } = proposeChange(t.room, alice, {
      base_revision: 3,
      content: 'café au lait\n',
      summary: 'A change',
    });
    approveProposal(t.room, approver, { proposal_id: proposal.proposal_id });
    expect(readFileSync(t.artifact, 'utf8')).toBe('café au lait\n');
  });
});

describe('proposed text', () => {
  test.each([
    ['a NUL character', 'a\0b\n', 'it holds a NUL character at index 1'],
    ['an unpaired surrogate', 'a\ud800b\n', 'it holds an unpaired surrogate, which is not UTF-8 text'],
  ])('with %s is refused: it could not be written as UTF-8 text', (_name, content, problem) => {
    t = makeRoom();
    syncArtifact(t.room);
    expectRefused(
      t.room,
      () => proposeChange(t!.room, alice, { base_revision: 1, content, summary: 'A change' }),
      'invalid_input',
      `content is not UTF-8 text: ${problem}`,
    );
  });
});
