// Building the page's elements: text always goes in as text nodes, never as
// markup, so whatever a participant wrote shows as written.

type Child = Node | string | number | null | undefined | false;
type Props = Record<string, unknown>;

/** The page's element of this id (index.html has each). */
export const $ = (id: string): HTMLElement => document.getElementById(id)!;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), value as EventListener);
    } else if (name === 'class') {
      element.className = String(value);
    } else if (value === true) {
      element.setAttribute(name, '');
    } else {
      element.setAttribute(name, String(value));
    }
  }
  append(element, children);
  return element;
}

function append(parent: Node, children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(
      typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child,
    );
  }
}

/** One item of a list kept in place: its key, and a signature of everything it shows. */
export interface Keyed {
  key: string;
  signature: string;
  build(): HTMLElement;
  /**
   * Brings the item's element up to date in place, when given: the element
   * (and whatever part of it the update keeps, a half-filled form say) stays.
   * Without it a changed item is built afresh.
   */
  update?(element: HTMLElement): void;
}

/**
 * Makes `container`'s children the items, in order, keeping the element of
 * every item whose signature did not change (or that updates itself in
 * place): a half-filled form in it survives an update, and so does the focus.
 */
export function reconcile(container: HTMLElement, items: Keyed[]): void {
  const existing = new Map<string, HTMLElement>();
  for (const child of Array.from(container.children) as HTMLElement[]) {
    if (child.dataset.key !== undefined) existing.set(child.dataset.key, child);
  }
  let focus: (() => void) | null = null;
  const wanted = items.map((item) => {
    const old = existing.get(item.key);
    if (old && old.dataset.signature === item.signature) return old;
    if (old && item.update) {
      item.update(old);
      old.dataset.signature = item.signature;
      return old;
    }
    const fresh = item.build();
    fresh.dataset.key = item.key;
    fresh.dataset.signature = item.signature;
    if (old) focus = carryOver(old, fresh) ?? focus;
    return fresh;
  });
  const keep = new Set(wanted);
  for (const child of Array.from(container.children)) if (!keep.has(child as HTMLElement)) child.remove();
  wanted.forEach((element, index) => {
    const at = container.children[index] ?? null;
    if (at !== element) container.insertBefore(element, at);
  });
  (focus as (() => void) | null)?.();
}

type Typed = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;

/** The one element of `fresh` of the same kind as `element` with the same text (a card's button), if there is one. */
function sameControl(element: HTMLElement, fresh: HTMLElement): HTMLElement | null {
  if (!element.textContent) return null; // a field says nothing of which it is: only its id does
  const same = Array.from(fresh.getElementsByTagName(element.tagName)).filter(
    (candidate) => candidate.textContent === element.textContent,
  );
  return same.length === 1 && same[0] instanceof HTMLElement ? same[0] : null;
}

/**
 * An item rebuilt because what it shows changed (a proposal's card when a
 * revision lands) keeps what the person typed or chose: each field they
 * changed is given the same value in the new element, matched by id, and the
 * focus moves there once the new element is in place (the function returned).
 */
function carryOver(old: HTMLElement, fresh: HTMLElement): (() => void) | null {
  const twin = (field: Element): Typed | null => {
    if (!field.id) return null;
    const match = fresh.querySelector(`#${CSS.escape(field.id)}`);
    return match && match.tagName === field.tagName ? (match as Typed) : null;
  };
  for (const field of Array.from(old.querySelectorAll<Typed>('input, textarea, select'))) {
    const other = twin(field);
    if (!other || other.type !== field.type) continue;
    if (field instanceof HTMLSelectElement) {
      const options = Array.from(field.options);
      if (options.every((option) => option.selected === option.defaultSelected)) continue;
      const chosen = new Set(options.filter((option) => option.selected).map((option) => option.value));
      for (const option of Array.from((other as HTMLSelectElement).options)) option.selected = chosen.has(option.value);
    } else if (field.type === 'checkbox' || field.type === 'radio') {
      if (field instanceof HTMLInputElement && field.checked !== field.defaultChecked) {
        (other as HTMLInputElement).checked = field.checked;
      }
    } else if (field.value !== field.defaultValue) other.value = field.value;
  }
  const focused = document.activeElement;
  if (!(focused instanceof HTMLElement) || !old.contains(focused)) return null;
  // By id, or, for a control with none (a card's buttons), the one of its kind with the same text.
  const target =
    (focused.id ? fresh.querySelector<HTMLElement>(`#${CSS.escape(focused.id)}`) : null) ?? sameControl(focused, fresh);
  return target ? () => target.focus() : null;
}

/** A short local time for a timestamp. */
export const when = (iso: string | null | undefined): string => {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
};
