/**
 * LIVEVIEW-6 `downloads`: every bound client's downloads in one table, with the columns the options name (Homarr's
 * default set otherwise), the state always in words, and Pause/Resume buttons where the answer lists the actions
 * (WDATA-8: only for a viewer with `interact`).
 */
import type { components } from '../../../../generated/api';
import { el } from '../dom';
import type { Act, LiveView, Result } from './controller';
import { formatBytes, formatEta, formatPercent, formatRatio, formatSpeed } from './format';
import { resultError, table } from './parts';
import { downloadColumns } from './rules';

type Downloads = components['schemas']['DownloadsData'];
type Download = Downloads['items'][number];

interface Column {
  label: string;
  optional?: boolean;
  grow?: boolean;
  numeric?: boolean;
  cell: (download: Download, result: Result, act: Act) => string | Node;
}

const stateWords: Record<Download['state'], string> = {
  downloading: 'Downloading',
  seeding: 'Seeding',
  paused: 'Paused',
  queued: 'Queued',
  checking: 'Checking',
  completed: 'Completed',
  stalled: 'Stalled',
  error: 'Error',
  unknown: 'Unknown state',
};

function progressCell(download: Download, withState: boolean): Node {
  const fill = el('span', { className: 'live-bar-fill' });
  fill.style.width = `${Math.round(download.progress * 100)}%`;
  const words = `${formatPercent(download.progress * 100)}${withState ? ` · ${stateWords[download.state]}` : ''}`;
  return el('span', { className: 'live-progress' }, [el('span', { className: 'live-bar' }, [fill]), el('span', { text: words })]);
}

function actionCell(download: Download, result: Result, act: Act): Node | string {
  const action = download.state === 'paused' ? 'resume' : 'pause';
  if (!result.integrationId || !result.actions.includes(action)) return '';
  const label = action === 'pause' ? 'Pause' : 'Resume';
  const button = el('button', { type: 'button', className: 'live-action', text: label, ariaLabel: `${label} ${download.name}` }) as HTMLButtonElement;
  button.addEventListener('click', () => {
    button.disabled = true;
    void act(result.integrationId!, action, [download.id]).then((problem) => {
      button.disabled = false;
      if (problem) button.replaceWith(el('span', { className: 'live-error', role: 'status', text: problem }));
    });
  });
  return button;
}

const columns = (stateShown: boolean): Record<string, Column> => ({
  integration: { label: 'Client', optional: true, cell: (_d, result) => result.name },
  name: { label: 'Name', grow: true, cell: (d) => el('span', { className: 'live-name', text: d.name, title: d.name }) },
  progress: { label: 'Progress', cell: (d) => progressCell(d, !stateShown) },
  state: { label: 'State', cell: (d) => stateWords[d.state] },
  time: { label: 'ETA', optional: true, numeric: true, cell: (d) => formatEta(d.etaSeconds) },
  downSpeed: { label: 'Down', optional: true, numeric: true, cell: (d) => formatSpeed(d.downloadSpeed) },
  upSpeed: { label: 'Up', optional: true, numeric: true, cell: (d) => formatSpeed(d.uploadSpeed) },
  size: { label: 'Size', optional: true, numeric: true, cell: (d) => formatBytes(d.sizeBytes) },
  received: { label: 'Received', optional: true, numeric: true, cell: (d) => formatBytes(d.downloadedBytes) },
  ratio: { label: 'Ratio', optional: true, numeric: true, cell: (d) => formatRatio(d.ratio) },
  category: { label: 'Category', optional: true, cell: (d) => d.category ?? '' },
  type: { label: 'Type', optional: true, cell: (d) => d.type },
  id: { label: 'Id', optional: true, cell: (d) => d.id },
  actions: { label: 'Actions', cell: (d, result, act) => actionCell(d, result, act) },
});

export const downloadsView: LiveView = {
  empty: () => 'No download client bound: bind qBittorrent, Transmission, Deluge, aria2, NZBGet or SABnzbd to this widget.',
  draw: (results, item, act) => {
    const ok = results.filter((result): result is Result & { data: Downloads } => result.status === 'ok' && result.data !== null);
    // a viewer who may take no action (no `interact`) gets no empty Actions column
    const names = downloadColumns(item.options.columns).filter((name) => name !== 'actions' || ok.some((result) => result.actions.length > 0));
    const all = columns(names.includes('state'));
    const chosen = names.map((name) => all[name]);
    const errors = results.filter((result) => result.status === 'error' || result.data === null);
    const rows = ok.flatMap((result) => result.data.items.map((download) => chosen.map((column) => column.cell(download, result, act))));
    const down = ok.reduce((sum, result) => sum + result.data.totals.downloadSpeed, 0);
    const up = ok.reduce((sum, result) => sum + result.data.totals.uploadSpeed, 0);
    const count = ok.reduce((sum, result) => sum + result.data.totals.count, 0);
    const ratio = ok.length === 1 ? ok[0].data.totals.ratio : null;
    const summary = [`Down ${formatSpeed(down)}`, `Up ${formatSpeed(up)}`, `${count} download${count === 1 ? '' : 's'}`, ...(ratio !== null ? [`ratio ${formatRatio(ratio)}`] : [])].join(' · ');
    return [
      ...errors.map(resultError),
      ...(ok.length > 0 ? [el('p', { className: 'live-summary', text: summary })] : []),
      ...(rows.length > 0 ? [table(chosen, rows)] : ok.length > 0 ? [el('p', { className: 'live-state', text: 'Nothing to show.' })] : []),
    ];
  },
};
