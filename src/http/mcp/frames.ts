// Server-sent-event frames of JSON-RPC messages. A notification that goes to
// many listen streams differs between them only in its subscription id, so
// it is serialized once with a placeholder where the id goes, and each
// stream's frame is the two halves around that stream's JSON-encoded id.
import { randomBytes } from 'node:crypto';

/** The frame of one message: `event: message`, its JSON on one data line. */
export const sseFrame = (message: unknown): string => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

/** A frame serialized once, waiting for a subscription id between `head` and `tail`. */
export interface FrameTemplate {
  readonly head: string;
  readonly tail: string;
}

/** Stands where the id goes; random, so no text a participant wrote can be taken for it. */
const PLACEHOLDER = `ce-subscription-id-${randomBytes(16).toString('hex')}`;
const PLACEHOLDER_JSON = JSON.stringify(PLACEHOLDER);

/**
 * Serializes `build(placeholder)` once. The frame for an id is then
 * `spliceFrame(template, JSON.stringify(id))`, byte for byte the frame of
 * `build(id)`: JSON.stringify writes a value the same wherever it stands.
 */
export function frameTemplate(build: (subscriptionId: string) => unknown): FrameTemplate {
  const json = JSON.stringify(build(PLACEHOLDER));
  const at = json.indexOf(PLACEHOLDER_JSON);
  if (at < 0 || json.includes(PLACEHOLDER_JSON, at + 1)) {
    throw new Error('a frame template takes its subscription id exactly once');
  }
  return {
    head: `event: message\ndata: ${json.slice(0, at)}`,
    tail: `${json.slice(at + PLACEHOLDER_JSON.length)}\n\n`,
  };
}

/** The frame of a template for one subscription; `idJson` is the id as JSON (`JSON.stringify(id)`). */
export const spliceFrame = (template: FrameTemplate, idJson: string): string => template.head + idJson + template.tail;
