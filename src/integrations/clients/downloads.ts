/**
 * DL-1: the one shape every download client (qBittorrent, Transmission, Deluge, aria2, NZBGet) answers, and the small
 * helpers their clients share. Each family's file maps its service's raw answer onto this shape with pure functions.
 */
import type { OutboundAnswer } from '../../outbound/fetch';
import { ServiceError } from './types';

export const downloadStates = ['downloading', 'seeding', 'paused', 'queued', 'checking', 'completed', 'stalled', 'error', 'unknown'] as const;
export type DownloadState = (typeof downloadStates)[number];

export type DownloadType = 'torrent' | 'usenet' | 'http';

export interface DownloadItem {
  /** The service's own id (torrent hash, aria2 gid, NZBGet NZBID), as actions take it. */
  id: string;
  name: string;
  state: DownloadState;
  /** 0..1 */
  progress: number;
  sizeBytes: number;
  downloadedBytes: number;
  /** Bytes per second. */
  downloadSpeed: number;
  uploadSpeed: number;
  ratio: number | null;
  etaSeconds: number | null;
  category: string | null;
  type: DownloadType;
}

export interface DownloadTotals {
  /** Bytes per second over the whole client. */
  downloadSpeed: number;
  uploadSpeed: number;
  /** How many downloads the client lists (before any widget's filter or limit). */
  count: number;
  /** Uploaded over downloaded bytes of the torrents with a ratio (DL-13), or null when none has one. */
  ratio: number | null;
}

export interface DownloadClientData {
  items: DownloadItem[];
  totals: DownloadTotals;
}

/** A finite, non-negative number from a number or a numeric string (aria2 answers strings); otherwise 0. */
export function count(value: unknown): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 0;
}

export function clampProgress(value: number): number {
  if (!Number.isFinite(value) || value <= 0) return 0;
  return value >= 1 ? 1 : value;
}

export function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** DL-13: the ratio of a set of downloads: their uploaded bytes (ratio × downloaded) over their downloaded bytes. */
export function ratioOf(items: readonly DownloadItem[]): number | null {
  let uploaded = 0;
  let downloaded = 0;
  for (const item of items) {
    if (item.ratio === null || item.downloadedBytes <= 0) continue;
    uploaded += item.ratio * item.downloadedBytes;
    downloaded += item.downloadedBytes;
  }
  return downloaded > 0 ? uploaded / downloaded : null;
}

/** Totals summed over the items (every family: the speeds the items report). */
export function totalsOf(items: readonly DownloadItem[]): DownloadTotals {
  let downloadSpeed = 0;
  let uploadSpeed = 0;
  for (const item of items) {
    downloadSpeed += item.downloadSpeed;
    uploadSpeed += item.uploadSpeed;
  }
  return { downloadSpeed, uploadSpeed, count: items.length, ratio: ratioOf(items) };
}

/** `path` under the integration's base URL (which may carry a path prefix, with or without a trailing slash). */
export function under(base: string, path: string): string {
  return base.replace(/\/+$/, '') + path;
}

export function basicAuth(username: string | undefined, password: string | undefined): Record<string, string> {
  if (username === undefined && password === undefined) return {};
  return { authorization: `Basic ${Buffer.from(`${username ?? ''}:${password ?? ''}`).toString('base64')}` };
}

/** DL-2: a service refusing the credentials; the message names the service, never a secret. */
export function unauthorized(service: string, detail = 'the service refused the credentials'): ServiceError {
  return new ServiceError('unauthorized', `${service}: ${detail}`);
}

/** DL-3: an answer that is not what the service's API answers. */
export function badAnswer(service: string, detail: string): ServiceError {
  return new ServiceError('bad-answer', `${service}: ${detail}`);
}

export function parseJson(service: string, answer: OutboundAnswer): unknown {
  try {
    return JSON.parse(answer.text) as unknown;
  } catch {
    throw badAnswer(service, `the answer is not JSON (HTTP ${answer.status})`);
  }
}

/** DL-2, DL-3: 401/403 are the credentials; any other non-2xx is the service failing. */
export function checkStatus(service: string, answer: OutboundAnswer): void {
  if (answer.status === 401 || answer.status === 403) throw unauthorized(service);
  if (answer.status < 200 || answer.status >= 300) throw new ServiceError('failed', `${service}: HTTP ${answer.status}`);
}
