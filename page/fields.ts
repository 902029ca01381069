// Structured content (an input answer, a result's structuredContent) shown
// as a person reads a form: each field's title and its value, never JSON.
import { h } from './dom.js';

/** The titles a schema gives its properties, when there is one. */
type Titles = Record<string, { title?: string } | undefined>;

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
      h('dd', {}, valueView(value)),
    ]),
  );
}
