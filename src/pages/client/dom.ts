/** Elements built with text only: every string from the server goes in as textContent, never as HTML (PAGE-5). */
export interface ElementOptions {
  className?: string;
  text?: string;
  dataset?: Record<string, string>;
  onclick?: (event: MouseEvent) => void;
  ariaLabel?: string;
  title?: string;
  type?: string;
  name?: string;
  autocomplete?: string;
  required?: boolean;
  src?: string;
  alt?: string;
  href?: string;
  role?: string;
  target?: string;
  rel?: string;
  referrerpolicy?: string;
  draggable?: string;
  sandbox?: string;
  loading?: string;
}

export function el(tag: string, options: ElementOptions = {}, children: (Node | string)[] = []): HTMLElement {
  const element = document.createElement(tag);
  const { className, text, dataset, onclick, ariaLabel, ...attributes } = options;
  if (className) element.className = className;
  if (text !== undefined) element.textContent = text;
  if (dataset) Object.assign(element.dataset, dataset);
  if (onclick) element.addEventListener('click', onclick);
  if (ariaLabel) element.setAttribute('aria-label', ariaLabel);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === true) element.setAttribute(name, '');
    else if (typeof value === 'string') element.setAttribute(name, value);
  }
  for (const child of children) element.append(child);
  return element;
}

export function shortTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/**
 * VIEW-7: the JSON a page was served with in `<script type="application/json" id="…">`, read once and taken out of
 * the document (later reads ask the API); null when the block is missing or does not parse.
 */
export function takeServedJson<T>(id: string): T | null {
  const block = document.getElementById(id);
  if (!block) return null;
  block.remove();
  try {
    return JSON.parse(block.textContent ?? '') as T;
  } catch {
    return null;
  }
}
