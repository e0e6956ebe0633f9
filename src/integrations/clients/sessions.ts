/**
 * DL-15: login sessions of the download clients, kept in memory per instance between reads (a qBittorrent SID, a
 * Deluge web session, a Transmission session id), so a read every TTL does not log in again each time (and leave
 * a session behind on the service each time). Keyed by a hash of the URL and the credentials: a changed password is
 * another key, and no secret is kept as a key. Bounded: the oldest entry goes first.
 */
import { createHash } from 'node:crypto';

export class SessionCache {
  private readonly entries = new Map<string, string>();

  constructor(private readonly max = 1000) {}

  static key(url: string, ...credentials: (string | undefined)[]): string {
    return createHash('sha256').update(JSON.stringify([url, ...credentials])).digest('hex');
  }

  get(key: string): string | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: string): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}
