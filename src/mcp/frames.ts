// Frames of JSON-RPC messages serialized once for many listen streams. How
// a message is framed is the transport's (`Framing`: SSE's `event: message`
// lines, or a line of stdio); the fan-out only splices. A notification that
// goes to many streams differs between them only in its subscription id, so
// it is serialized once with a placeholder where the id goes, and each
// stream's frame is the two halves around that stream's JSON-encoded id.
import { randomBytes } from 'node:crypto';

/** What a transport writes around each message's JSON. */
export interface Framing {
  readonly before: string;
  readonly after: string;
}

/** One message, framed. */
export const frame = (message: unknown, framing: Framing): string =>
  framing.before + JSON.stringify(message) + framing.after;

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
export function frameTemplate(build: (subscriptionId: string) => unknown, framing: Framing): FrameTemplate {
  const json = JSON.stringify(build(PLACEHOLDER));
  const at = json.indexOf(PLACEHOLDER_JSON);
  if (at < 0 || json.includes(PLACEHOLDER_JSON, at + 1)) {
    throw new Error('a frame template takes its subscription id exactly once');
  }
  return {
    head: framing.before + json.slice(0, at),
    tail: json.slice(at + PLACEHOLDER_JSON.length) + framing.after,
  };
}

/** The frame of a template for one subscription; `idJson` is the id as JSON (`JSON.stringify(id)`). */
export const spliceFrame = (template: FrameTemplate, idJson: string): string => template.head + idJson + template.tail;
