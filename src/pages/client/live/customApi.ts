/**
 * LIVEVIEW-11 `customApi`: the fields a custom API definition picks, as label and value formatted as it says (CAPI-5),
 * or its list as a table with how many entries there were.
 */
import type { components } from '../../../../generated/api';
import { el } from '../dom';
import type { LiveView } from './controller';
import { formatPicked } from './format';
import { perResult, table, valueRow } from './parts';

type CustomApi = components['schemas']['CustomApiData'];

export const customApiView: LiveView = {
  empty: () => 'No custom API chosen: set this widget’s definitionId.',
  draw: (results) => {
    const now = new Date();
    // one result is headed by its definition's name (several are by perResult)
    const named = (data: CustomApi) => (results.length === 1 ? [el('div', { className: 'live-source', text: data.name })] : []);
    return perResult<CustomApi>(results, (data) => {
      if (data.mode === 'fields') return [...named(data), ...data.fields.map((field) => valueRow(field.label, formatPicked(field.value, field.format, now)))];
      if (data.rows === null) return [el('p', { className: 'live-state', text: 'The answer had no list.' })];
      return [
        ...named(data),
        table(
          data.columns.map((column) => ({ label: column.label })),
          data.rows.map((row) => row.map((value, i) => formatPicked(value, data.columns[i]?.format ?? 'text', now))),
        ),
        ...(data.total !== null && data.total > data.rows.length ? [el('p', { className: 'live-state', text: `${data.rows.length} of ${data.total}` })] : []),
      ];
    });
  },
};
