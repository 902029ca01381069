// What a merge remembers between calls. A revision's text is merged again
// and again: onto it, every open proposal when it lands, and each approval
// after; a proposal's text, at every revision until it is decided. So the
// lines of the last few texts are kept, by their content (a text read again
// from the sidecar is a new string with the same characters), and a diff of
// two texts is kept for as long as both texts' lines are.

/** Texts whose lines are kept: a few revisions and the proposals merged onto them. */
const TEXTS_KEPT = 16;

const linesByText = new Map<string, string[]>();

/** `text`'s lines, the last without its line end: joined with '\n' they are the text again. */
export function rememberLines(text: string): string[] {
  let lines = linesByText.get(text);
  if (lines) {
    linesByText.delete(text); // the newest at the end: the first is the one used least lately
  } else {
    lines = text.split('\n');
    if (linesByText.size >= TEXTS_KEPT) linesByText.delete(linesByText.keys().next().value!);
  }
  linesByText.set(text, lines);
  return lines;
}

/** What `work` gave for the two texts' lines, worked out once while both are kept (weakly: it goes with them). */
const pairs = new WeakMap<string[], WeakMap<string[], unknown>>();

export function rememberPer<T>(first: string[], second: string[], work: (first: string[], second: string[]) => T): T {
  let bySecond = pairs.get(first);
  if (!bySecond) pairs.set(first, (bySecond = new WeakMap()));
  if (bySecond.has(second)) return bySecond.get(second) as T;
  const value = work(first, second);
  bySecond.set(second, value);
  return value;
}
