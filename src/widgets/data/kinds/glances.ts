/**
 * LIVE-4: the Glances-backed kinds: systemResources, healthMonitoring and systemDisks. Each asks only the Glances
 * plugins it shows; the data shapes are openapi/components/widget-data/<kind>.yaml.
 */
import { readGlances, type GlancesFileSystem, type GlancesSnapshot } from '../../../integrations/clients/glances';
import type { LiveKind, WidgetOptions } from '../types';

const ttlMs = 10_000;

type Required<T, K extends keyof T> = T & { [P in K]-?: NonNullable<T[P]> };

export type SystemResourcesData = Pick<Required<GlancesSnapshot, 'cpu' | 'memory'>, 'cpu' | 'memory'> & { load: GlancesSnapshot['load'] | null; uptimeSeconds: number | null };
export type HealthMonitoringData = SystemResourcesData & { temperatures: { label: string; celsius: number }[]; fileSystems: GlancesFileSystem[] };
export interface SystemDisksData {
  disks: GlancesFileSystem[];
}

const noQuery = (_options: WidgetOptions) => ({});

export const systemResources: LiveKind<SystemResourcesData> = {
  widgetKind: 'systemResources',
  ttlMs,
  integrationKinds: ['glances'],
  query: noQuery,
  async fromIntegration(ctx, integration) {
    const s = await readGlances(ctx, integration.target, ['cpu', 'mem', 'load', 'uptime']);
    return { cpu: s.cpu!, memory: s.memory!, load: s.load ?? null, uptimeSeconds: s.uptimeSeconds ?? null };
  },
};

export const healthMonitoring: LiveKind<HealthMonitoringData> = {
  widgetKind: 'healthMonitoring',
  ttlMs,
  integrationKinds: ['glances'],
  query: noQuery,
  async fromIntegration(ctx, integration) {
    const s = await readGlances(ctx, integration.target, ['cpu', 'mem', 'load', 'uptime', 'fs', 'sensors']);
    return {
      cpu: s.cpu!,
      memory: s.memory!,
      load: s.load ?? null,
      uptimeSeconds: s.uptimeSeconds ?? null,
      temperatures: s.temperatures ?? [],
      fileSystems: s.fileSystems ?? [],
    };
  },
};

export const systemDisks: LiveKind<SystemDisksData> = {
  widgetKind: 'systemDisks',
  ttlMs,
  integrationKinds: ['glances'],
  query: noQuery,
  async fromIntegration(ctx, integration) {
    const s = await readGlances(ctx, integration.target, ['fs']);
    return { disks: s.fileSystems ?? [] };
  },
};
