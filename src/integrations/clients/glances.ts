/**
 * LIVE-4: the Glances client (REST API v3: `/api/3/<plugin>`). Basic authentication when the integration holds a
 * username and password (`glances -w --password`), none otherwise. Reads only the plugins it is asked for, at once.
 * Every number is checked to be a finite number before it is used; anything else is a `bad-answer`.
 */
import type { ClientContext, IntegrationTarget } from './types';
import { ServiceError } from './types';

export type GlancesPart = 'cpu' | 'mem' | 'load' | 'uptime' | 'fs' | 'sensors' | 'core';

export interface GlancesFileSystem {
  mountPoint: string;
  device: string;
  fsType: string;
  totalBytes: number;
  usedBytes: number;
  freeBytes: number;
  percent: number;
}

export interface GlancesSnapshot {
  cpu?: { percent: number; cores: number | null };
  memory?: { totalBytes: number; usedBytes: number; percent: number };
  load?: { one: number; five: number; fifteen: number } | null;
  uptimeSeconds?: number | null;
  fileSystems?: GlancesFileSystem[];
  temperatures?: { label: string; celsius: number }[];
}

const text = (value: unknown, max = 256): string => (typeof value === 'string' ? value.slice(0, max) : '');

function num(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new ServiceError('bad-answer', `Glances answered no number for ${what}`);
  return value;
}

const record = (value: unknown, what: string): Record<string, unknown> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ServiceError('bad-answer', `Glances answered no object for ${what}`);
  return value as Record<string, unknown>;
};

const list = (value: unknown, what: string): unknown[] => {
  if (!Array.isArray(value)) throw new ServiceError('bad-answer', `Glances answered no list for ${what}`);
  return value;
};

/** Glances' uptime text (`0:28:14`, `2 days, 3:04:05`) in seconds; null when it reads otherwise. */
export function parseUptime(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.floor(value);
  if (typeof value !== 'string') return null;
  const match = /^\s*(?:(\d+)\s+days?,\s*)?(\d+):(\d{2}):(\d{2})(?:\.\d+)?\s*$/.exec(value);
  if (!match) return null;
  return Number(match[1] ?? 0) * 86_400 + Number(match[2]) * 3600 + Number(match[3]) * 60 + Number(match[4]);
}

function base(url: string): string {
  return url.replace(/\/+$/, '');
}

async function getJson(ctx: ClientContext, target: IntegrationTarget, plugin: GlancesPart): Promise<unknown> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (target.secrets.username !== undefined && target.secrets.password !== undefined) {
    headers.Authorization = `Basic ${Buffer.from(`${target.secrets.username}:${target.secrets.password}`).toString('base64')}`;
  }
  const answer = await ctx.fetch(`${base(target.url)}/api/3/${plugin}`, { headers, timeoutMs: ctx.timeoutMs, maxBytes: ctx.maxBytes });
  if (answer.status === 401 || answer.status === 403) throw new ServiceError('unauthorized', `Glances refused the credentials (HTTP ${answer.status})`);
  if (answer.status < 200 || answer.status >= 300) throw new ServiceError('failed', `Glances answered HTTP ${answer.status} for ${plugin}`);
  try {
    return JSON.parse(answer.text);
  } catch {
    throw new ServiceError('bad-answer', `Glances answered something that is not JSON for ${plugin}`);
  }
}

/** The parts asked for, read from one Glances server. */
export async function readGlances(ctx: ClientContext, target: IntegrationTarget, parts: readonly GlancesPart[]): Promise<GlancesSnapshot> {
  const wanted = new Set(parts);
  if (wanted.has('cpu')) wanted.add('core');
  const answers = new Map<GlancesPart, unknown>();
  await Promise.all(
    [...wanted].map(async (part) => {
      try {
        answers.set(part, await getJson(ctx, target, part));
      } catch (error) {
        // The core count only completes the CPU figure: without it, the CPU plugin's own count (or none) is used.
        if (part !== 'core' || (error instanceof ServiceError && error.reason === 'unauthorized')) throw error;
      }
    }),
  );
  const snapshot: GlancesSnapshot = {};
  if (answers.has('cpu')) {
    const cpu = record(answers.get('cpu'), 'cpu');
    const core = answers.get('core');
    const cores = typeof core === 'object' && core !== null && typeof (core as { log?: unknown }).log === 'number' ? (core as { log: number }).log : typeof cpu.cpucore === 'number' ? cpu.cpucore : null;
    snapshot.cpu = { percent: num(cpu.total, 'cpu.total'), cores: cores !== null && Number.isInteger(cores) && cores >= 0 ? cores : null };
  }
  if (answers.has('mem')) {
    const mem = record(answers.get('mem'), 'mem');
    snapshot.memory = { totalBytes: num(mem.total, 'mem.total'), usedBytes: num(mem.used, 'mem.used'), percent: num(mem.percent, 'mem.percent') };
  }
  if (answers.has('load')) {
    const load = answers.get('load');
    snapshot.load = typeof load === 'object' && load !== null && !Array.isArray(load)
      ? { one: num((load as Record<string, unknown>).min1, 'load.min1'), five: num((load as Record<string, unknown>).min5, 'load.min5'), fifteen: num((load as Record<string, unknown>).min15, 'load.min15') }
      : null;
  }
  if (answers.has('uptime')) snapshot.uptimeSeconds = parseUptime(answers.get('uptime'));
  if (answers.has('fs')) {
    snapshot.fileSystems = list(answers.get('fs'), 'fs').map((entry) => {
      const fs = record(entry, 'fs');
      return {
        mountPoint: text(fs.mnt_point),
        device: text(fs.device_name),
        fsType: text(fs.fs_type, 64),
        totalBytes: num(fs.size, 'fs.size'),
        usedBytes: num(fs.used, 'fs.used'),
        freeBytes: num(fs.free, 'fs.free'),
        percent: num(fs.percent, 'fs.percent'),
      };
    });
  }
  if (answers.has('sensors')) {
    snapshot.temperatures = list(answers.get('sensors'), 'sensors')
      .map((entry) => record(entry, 'sensors'))
      .filter((sensor) => typeof sensor.type === 'string' && sensor.type.startsWith('temperature') && typeof sensor.value === 'number' && Number.isFinite(sensor.value))
      .map((sensor) => ({ label: text(sensor.label), celsius: sensor.value as number }));
  }
  return snapshot;
}
