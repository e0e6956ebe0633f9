/**
 * Serialized board documents of this instance, so that repeated reads skip loading and serializing the board.
 *
 * Never trusted on its own: every entry is keyed by what the database says on each request (the board's
 * revision, which every board write moves, its creator, the caller, the caller's groups and own permission
 * rows, its collapsed sections, and whether it sees the creator's e-mail), so a write on any instance makes the old entries unreachable at once. Bounded by bytes;
 * least recently used entries go first. Requests that miss the same key at the same time share one build, so a burst
 * of reads of a large board holds one copy of it in memory, not one per request (also with the cache disabled).
 * An entry keeps its compressed forms (HTTP-7), counted against the same budget: each coding is paid once per entry.
 */
import { EncodedForms } from '../../core/contentCoding';
import { metrics } from '../../observability/metrics';

export interface CachedDocument {
  /** The UTF-8 bytes of the document, in parts (model.ts serializeState). */
  parts: readonly Buffer[];
  length: number;
  etag: string;
  /** Whether the document has category sections (whose `collapsed` depends on the caller). */
  hasCategorySections: boolean;
}

export class BoardDocumentCache {
  private readonly entries = new Map<string, CachedDocument>();
  /** boardId:revision -> whether that revision has category sections, so a read can skip the collapse query. */
  private readonly categoryFlags = new Map<string, boolean>();
  /** Builds under way, by key. */
  private readonly building = new Map<string, Promise<CachedDocument>>();
  private readonly keys = new WeakMap<CachedDocument, string>();
  /** The board of each held key of a current document (setCurrent), and per board its newest revision and held keys. */
  private readonly boardOfKey = new Map<string, string>();
  private readonly current = new Map<string, { revision: number; keys: Set<string> }>();
  private readonly forms = new WeakMap<CachedDocument, EncodedForms>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  /** `creatorEmail`: whether the caller sees the creator's e-mail (PRIV-1; admins and the creator do), which the document shows or hides. */
  static key(parts: {
    boardId: string;
    revision: number;
    creatorId: string | null;
    userId: string | null;
    groupIds: string;
    ownRows: string;
    collapsed: string;
    creatorEmail: boolean;
  }): string {
    return JSON.stringify([parts.boardId, parts.revision, parts.creatorId, parts.userId, parts.groupIds, parts.ownRows, parts.collapsed, parts.creatorEmail]);
  }

  hasCategorySections(boardId: string, revision: number): boolean | undefined {
    return this.categoryFlags.get(`${boardId}:${revision}`);
  }

  get(key: string): CachedDocument | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  /** The entry under `key`, else the one `build` makes, started once for all the requests that ask meanwhile. */
  async getOrBuild(key: string, build: () => Promise<CachedDocument>): Promise<CachedDocument> {
    const hit = this.get(key);
    // METRIC-3: document cache hits and misses.
    metrics.documentCache.inc({ result: hit ? 'hit' : 'miss' });
    if (hit) return hit;
    let pending = this.building.get(key);
    if (!pending) {
      pending = build().finally(() => this.building.delete(key));
      this.building.set(key, pending);
    }
    return pending;
  }

  /** Keeps a document under `key` (of the board's `revision`: a revision read, whose older revisions stay readable too). */
  set(key: string, boardId: string, revision: number, entry: CachedDocument): void {
    this.categoryFlags.set(`${boardId}:${revision}`, entry.hasCategorySections);
    if (this.categoryFlags.size > 4 * Math.max(1, this.entries.size) + 1024) this.categoryFlags.clear();
    if (!this.enabled || entry.length > this.maxBytes) return;
    this.delete(key);
    this.entries.set(key, entry);
    this.keys.set(entry, key);
    this.bytes += this.sizeOf(entry);
    this.evictOverBudget();
  }

  /**
   * Keeps the board's document as of its current revision `revision`. A request is keyed on the revision the database
   * gives it and every board write moves it, so the entries of the board's older revisions can never be asked for
   * again: they go now, rather than when the byte budget pushes them out (a board written often filled the cache
   * with its past, pushing out the documents of other boards). A build that ends after a newer revision was kept is
   * not kept.
   */
  setCurrent(key: string, boardId: string, revision: number, entry: CachedDocument): void {
    let held = this.current.get(boardId);
    if (held && held.revision > revision) return;
    if (held && held.revision < revision) for (const old of held.keys) this.delete(old);
    this.set(key, boardId, revision, entry);
    if (this.entries.get(key) !== entry) return;
    held = this.current.get(boardId);
    if (!held) this.current.set(boardId, (held = { revision, keys: new Set() }));
    held.revision = revision;
    held.keys.add(key);
    this.boardOfKey.set(key, boardId);
  }

  /**
   * The compressed forms of a document (HTTP-7), kept with it: a cached document is compressed once per coding, and
   * the forms leave the cache with it.
   */
  formsOf(entry: CachedDocument): EncodedForms {
    let forms = this.forms.get(entry);
    if (!forms) {
      forms = new EncodedForms(() => entry.parts);
      forms.onMade = (bytes) => {
        const key = this.keys.get(entry);
        if (key === undefined || this.entries.get(key) !== entry) return;
        this.bytes += bytes;
        this.evictOverBudget();
      };
      this.forms.set(entry, forms);
    }
    return forms;
  }

  private sizeOf(entry: CachedDocument): number {
    return entry.length + (this.forms.get(entry)?.bytes ?? 0);
  }

  private evictOverBudget(): void {
    for (const [oldKey] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.delete(oldKey);
    }
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= this.sizeOf(entry);
    const boardId = this.boardOfKey.get(key);
    if (boardId === undefined) return;
    this.boardOfKey.delete(key);
    const held = this.current.get(boardId);
    held?.keys.delete(key);
    if (held?.keys.size === 0) this.current.delete(boardId);
  }
}
