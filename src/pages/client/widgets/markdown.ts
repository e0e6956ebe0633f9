/**
 * VIEW-3: the page's one place that makes markup from board text: a notebook's markdown rendered by marked and
 * sanitized by DOMPurify (no script, event handler, style, form, frame, object, SVG or MathML, no input but a task
 * list's disabled checkbox; links and images keep
 * only the addresses sanitize.ts allows). Bundled on its own into generated/pages/markdown.js, which the page loads
 * only when a board shows a notebook (notebook.ts), so boards without one never load marked and DOMPurify.
 */
import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import { safeImage, safeLink } from './sanitize';

export interface MarkdownRenderer {
  render(markdown: string): DocumentFragment;
}

let configured = false;

/** DOMPurify set up once (a configuration passed on every call is parsed again on every call). */
function configure(): void {
  configured = true;
  DOMPurify.setConfig({
    RETURN_DOM_FRAGMENT: true,
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'form', 'button', 'textarea', 'select', 'option', 'iframe', 'frame', 'object', 'embed', 'link', 'meta', 'base', 'svg', 'math', 'template'],
    FORBID_ATTR: ['style', 'srcset', 'action', 'formaction', 'xlink:href'],
    ALLOW_DATA_ATTR: false,
  });
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'A') {
      const href = node.getAttribute('href');
      if (href !== null && !/^mailto:/i.test(href) && safeLink(href) === null) node.removeAttribute('href');
      node.setAttribute('rel', 'noopener noreferrer');
      node.setAttribute('target', '_blank');
    }
    if (node.tagName === 'IMG') {
      const src = node.getAttribute('src');
      if (src !== null && safeImage(src) === null) node.removeAttribute('src');
      node.setAttribute('referrerpolicy', 'no-referrer');
    }
  });
}

const markdown = new Marked({ async: false, gfm: true, breaks: false });

/**
 * VIEW-8: the one input markdown may hold, a task list's checkbox (`- [x] done`, which marked writes as
 * `<input checked="" disabled="" type="checkbox">`): a disabled checkbox keeps `type`, `checked` and `disabled` and
 * nothing else; any other input (a text field, an enabled checkbox written as HTML) is removed.
 */
function onlyTaskCheckboxes(fragment: DocumentFragment): void {
  for (const input of Array.from(fragment.querySelectorAll('input'))) {
    if (input.getAttribute('type')?.toLowerCase() !== 'checkbox' || !input.hasAttribute('disabled')) {
      input.remove();
      continue;
    }
    const checked = input.hasAttribute('checked');
    for (const attribute of Array.from(input.attributes)) input.removeAttribute(attribute.name);
    input.setAttribute('type', 'checkbox');
    input.setAttribute('disabled', '');
    if (checked) input.setAttribute('checked', '');
    input.closest('li')?.classList.add('task');
  }
}

/** Markdown as inert elements. */
export function renderMarkdown(text: string): DocumentFragment {
  if (!configured) configure();
  const fragment = DOMPurify.sanitize(markdown.parse(text) as string, { RETURN_DOM_FRAGMENT: true }) as unknown as DocumentFragment;
  onlyTaskCheckboxes(fragment);
  return fragment;
}

(window as unknown as { tesseraMarkdown?: MarkdownRenderer }).tesseraMarkdown = { render: renderMarkdown };
