// A value made once and shared by every reader (a committed task's view): frozen
// all the way down, so that no reader can change what the next one sees. A
// loop, not a recursion, as every walk of stored JSON is.

export function deepFreeze<T>(value: T): T {
  const waiting: unknown[] = [value];
  while (waiting.length > 0) {
    const next = waiting.pop();
    if (next === null || typeof next !== 'object' || Object.isFrozen(next)) continue;
    Object.freeze(next);
    for (const child of Object.values(next)) waiting.push(child);
  }
  return value;
}
