/**
 * LIVEVIEW-5 system health from Glances (LIVE-4): `systemResources` (processor, memory, load, uptime),
 * `healthMonitoring` (the same, temperatures, file systems) and `systemDisks` (file systems), with the options of
 * each (visible charts, Fahrenheit, uptime, file systems, display mode, visible volumes).
 */
import type { components } from '../../../../generated/api';
import { el } from '../dom';
import { flag, type WidgetItem } from '../widgets/types';
import type { LiveView } from './controller';
import { formatBytes, formatDuration, formatPercent, formatTemperature } from './format';
import { meterRow, perResult, valueRow } from './parts';

type Resources = components['schemas']['systemResources'];
type Health = components['schemas']['healthMonitoring'];
type Disks = components['schemas']['systemDisks'];
type FileSystem = Disks['disks'][number];

const glancesEmpty = () => 'No system bound: bind a Glances integration to this widget.';

function cpuMemory(data: Resources, showCpu: boolean, showMemory: boolean): HTMLElement[] {
  const rows: HTMLElement[] = [];
  if (showCpu) rows.push(meterRow('CPU', data.cpu.percent, `${formatPercent(data.cpu.percent)}${data.cpu.cores ? ` of ${data.cpu.cores} cores` : ''}`));
  if (showMemory) rows.push(meterRow('Memory', data.memory.percent, `${formatPercent(data.memory.percent)} · ${formatBytes(data.memory.usedBytes)} of ${formatBytes(data.memory.totalBytes)}`));
  return rows;
}

function loadUptime(data: Resources, showUptime: boolean): HTMLElement[] {
  const rows: HTMLElement[] = [];
  if (data.load) rows.push(valueRow('Load', [data.load.one, data.load.five, data.load.fifteen].map((value) => value.toFixed(2)).join(' · ')));
  if (showUptime && data.uptimeSeconds !== null) rows.push(valueRow('Up', formatDuration(data.uptimeSeconds)));
  return rows;
}

/** The file systems the options leave visible (all when `visibleStorageVolumes` names none). */
function visible(disks: FileSystem[], item: WidgetItem): FileSystem[] {
  const names = Array.isArray(item.options.visibleStorageVolumes) ? item.options.visibleStorageVolumes.filter((name): name is string => typeof name === 'string') : [];
  return names.length === 0 ? disks : disks.filter((disk) => names.includes(disk.mountPoint) || names.includes(disk.device));
}

function diskRows(disks: FileSystem[], mode: string): HTMLElement[] {
  if (disks.length === 0) return [el('p', { className: 'live-state', text: 'No file systems.' })];
  return disks.map((disk) => {
    const value =
      mode === 'absolute'
        ? `${formatBytes(disk.usedBytes)} of ${formatBytes(disk.totalBytes)} used`
        : mode === 'free'
          ? `${formatBytes(disk.freeBytes)} free`
          : `${formatPercent(disk.percent)} used`;
    return meterRow(disk.mountPoint, disk.percent, value);
  });
}

export const systemResourcesView: LiveView = {
  empty: glancesEmpty,
  draw: (results, item) => {
    const charts = Array.isArray(item.options.visibleCharts) ? item.options.visibleCharts : ['cpu', 'memory'];
    return perResult<Resources>(results, (data) => [...cpuMemory(data, charts.includes('cpu'), charts.includes('memory')), ...loadUptime(data, true)]);
  },
};

export const healthMonitoringView: LiveView = {
  empty: glancesEmpty,
  draw: (results, item) => {
    const fahrenheit = flag(item.options, 'fahrenheit', false);
    return perResult<Health>(results, (data) => [
      ...cpuMemory(data, flag(item.options, 'cpu', true), flag(item.options, 'memory', true)),
      ...loadUptime(data, flag(item.options, 'showUptime', true)),
      ...data.temperatures.map((sensor) => valueRow(sensor.label, formatTemperature(sensor.celsius, fahrenheit))),
      ...(flag(item.options, 'fileSystem', true) ? diskRows(visible(data.fileSystems, item), 'percentage') : []),
    ]);
  },
};

export const systemDisksView: LiveView = {
  empty: glancesEmpty,
  draw: (results, item) => {
    const mode = typeof item.options.displayMode === 'string' ? item.options.displayMode : 'percentage';
    return perResult<Disks>(results, (data) => diskRows(visible(data.disks, item), mode));
  },
};
