// Structured content (an input answer, a result's structuredContent) shown
// as a person reads a form: each field's title and its value, never JSON.
import { h } from './dom.js';

/** A titled choice of a form: its value, and what it reads as. */
type Titled = { const?: unknown; title?: string };
/** The titles a schema gives its properties, and its choices' titles, when there is one. */
type Titles = Record<string, { title?: string; oneOf?: Titled[]; items?: { anyOf?: Titled[] } } | undefined>;

/** A chosen value as its choice is titled (a form's `oneOf`, or `items.anyOf`), else itself. */
function titledValue(value: unknown, choices: Titled[] | undefined): unknown {
  if (!Array.isArray(choices)) return value;
  const titleOf = (one: unknown) => choices.find((choice) => choice.const === one)?.title ?? one;
  return Array.isArray(value) ? value.map(titleOf) : titleOf(value);
}

function valueView(value: unknown): HTMLElement | string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  if (Array.isArray(value)) {
    if (value.every((item) => typeof item !== 'object' || item === null)) return value.map(String).join(', ');
    return h(
      'ol',
      {},
      value.map((item) => h('li', {}, valueView(item))),
    );
  }
  return fieldsView(value as Record<string, unknown>);
}

/** A description list of `content`'s fields, titled from `titles` where it has them. */
export function fieldsView(content: Record<string, unknown>, titles: Titles = {}): HTMLElement {
  return h(
    'dl',
    { class: 'fields' },
    Object.entries(content).flatMap(([name, value]) => [
      h('dt', {}, titles[name]?.title ?? name),
      h('dd', {}, valueView(titledValue(value, titles[name]?.oneOf ?? titles[name]?.items?.anyOf))),
    ]),
  );
}
