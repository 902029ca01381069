// The artifact is UTF-8 text: valid UTF-8 without NUL bytes. The room never
// rewrites bytes it did not understand, so bytes that are not text are kept
// as they are and refused wherever text is needed.
import { readArtifactBytes } from '../../store/artifact-file.js';
import { DomainError } from '../../errors.js';

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export type DecodedArtifact = { text: string } | { problem: string };

/** The text of the bytes, or what keeps them from being artifact text ("byte 0xE9 at offset 3 is not valid UTF-8"). */
export function decodeArtifact(bytes: Uint8Array): DecodedArtifact {
  let text: string;
  try {
    text = strict.decode(bytes);
  } catch {
    return {
      problem: `byte ${hex(bytes[invalidUtf8Offset(bytes)]!)} at offset ${invalidUtf8Offset(bytes)} is not valid UTF-8`,
    };
  }
  const nul = bytes.indexOf(0);
  if (nul !== -1) return { problem: `it holds a NUL byte at offset ${nul}` };
  return { text };
}

/** What keeps a string from being written as artifact text, or null. */
export function textProblem(text: string): string | null {
  const nul = text.indexOf('\0');
  if (nul !== -1) return `it holds a NUL character at index ${nul}`;
  if (!text.isWellFormed()) return 'it holds an unpaired surrogate, which is not UTF-8 text';
  return null;
}

const hex = (byte: number): string => `0x${byte.toString(16).toUpperCase().padStart(2, '0')}`;

/** The offset of the first byte a lenient decoder replaced: where the bytes stop being UTF-8. */
function invalidUtf8Offset(bytes: Uint8Array): number {
  const lenient = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  let offset = 0;
  for (const char of lenient) {
    const size = Buffer.byteLength(char, 'utf8');
    // A real U+FFFD in the file is EF BF BD; anything else under one was replaced.
    if (char === '\uFFFD' && !(bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd)) {
      return offset;
    }
    offset += size;
  }
  return offset;
}

/** Refuses to make a room of a file that is not UTF-8 text, before anything is written. */
export function requireTextFile(file: string): void {
  const decoded = decodeArtifact(readArtifactBytes(file));
  if ('problem' in decoded) throw notText(file, decoded.problem);
}

export const notText = (file: string, problem: string): DomainError =>
  new DomainError(
    'invalid_input',
    `${file} is not UTF-8 text (${problem}); a room's file must be UTF-8 text without NUL bytes: ${fixFor(problem)}`,
  );

/** What to do about it: iconv converts another encoding, but keeps NUL bytes as they are. */
const fixFor = (problem: string): string =>
  problem.includes('NUL')
    ? "remove them first (for example with tr -d '\\000')"
    : 'convert it first (for example with iconv -f latin1 -t utf-8)';
