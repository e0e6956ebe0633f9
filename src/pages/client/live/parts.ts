/** Pieces the live views share (LIVEVIEW-3): a labelled bar, a value row, one block per integration. */
import { el } from '../dom';
import type { Result } from './controller';

/** A bar filled to `percent`, beside its value in words: the bar only repeats what the text says. */
export function meterRow(label: string, percent: number, valueText: string): HTMLElement {
  const fill = el('span', { className: 'live-bar-fill' });
  fill.style.width = `${Math.max(0, Math.min(100, percent))}%`;
  const bar = el('span', { className: 'live-bar' }, [fill]);
  if (percent >= 90) bar.classList.add('high');
  return el('div', { className: 'live-row' }, [el('span', { className: 'live-label', text: label }), bar, el('span', { className: 'live-value', text: valueText })]);
}

/** A label and its value. */
export const valueRow = (label: string, valueText: string): HTMLElement =>
  el('div', { className: 'live-row plain' }, [el('span', { className: 'live-label', text: label }), el('span', { className: 'live-value', text: valueText })]);

/** A failed result in words, with its integration's (or source's) name: "Error (Home server): no answer within 5 s". */
export const resultError = (result: Result): HTMLElement => el('p', { className: 'live-error', text: `Error (${result.name}): ${result.message ?? 'no data'}` });

/**
 * One block per result: its data drawn by `drawOne`, or its error in words ("Error: …"). Each block is headed by the
 * integration's (or source's) name when there are several, or when the one result failed.
 */
export function perResult<T>(results: Result[], drawOne: (data: T, result: Result) => (Node | string)[]): HTMLElement[] {
  const named = results.length > 1;
  return results.map((result) => {
    const head = named ? [el('div', { className: 'live-source', text: result.name })] : [];
    if (result.status === 'error' || result.data === null) {
      const error = named ? el('p', { className: 'live-error', text: `Error: ${result.message ?? 'no data'}` }) : resultError(result);
      return el('div', { className: 'live-block' }, [...head, error]);
    }
    return el('div', { className: 'live-block' }, [...head, ...drawOne(result.data as T, result)]);
  });
}

/**
 * A table: a header row and rows of text cells (a cell may be an element). Columns marked optional hide first at narrow
 * widths; the one marked grow takes the room left and cuts its text with an ellipsis.
 */
export function table(columns: { label: string; optional?: boolean; numeric?: boolean; grow?: boolean }[], rows: (string | Node)[][]): HTMLElement {
  const cls = (column: { optional?: boolean; numeric?: boolean; grow?: boolean }) =>
    [column.optional ? 'optional' : '', column.numeric ? 'numeric' : '', column.grow ? 'grow' : ''].filter(Boolean).join(' ');
  const head = el('tr', {}, columns.map((column) => el('th', { className: cls(column), text: column.label })));
  const body = rows.map((cells) => el('tr', {}, cells.map((cell, i) => el('td', { className: cls(columns[i] ?? {}) }, [cell]))));
  return el('table', { className: 'live-table' }, [el('thead', {}, [head]), el('tbody', {}, body)]);
}
