/**
 * The calls the remote commands make, through the typed client (src/client): each answers its data or throws a
 * RemoteError with the server's message and code.
 */
import { createTesseraClient, type components, type TesseraClient } from '../../client';
import { RemoteError } from '../errors';
import type { Connection } from './connection';

type Schemas = components['schemas'];
export type BoardFile = Schemas['BoardFile'];
export type ImportPlan = Schemas['ImportPlan'];
export type ImportResult = Schemas['ImportResult'];
export type RevisionDiff = Schemas['RevisionDiff'];
export type HistoryPage = Schemas['HistoryPage'];
export type HistoryEntry = Schemas['HistoryEntry'];
export type ElementChanges = Schemas['ElementChanges'];
export type FieldChange = Schemas['FieldChange'];
export type BoardSetRequest = Schemas['BoardSetRequest'];
export type BoardSetPlan = Schemas['BoardSetPlan'];
export type BoardSetEntry = Schemas['BoardSetEntry'];
// As openapi-fetch types the answers (it leaves out properties whose type is only null, such as `creator.image`).
export type BoardSummary = Awaited<ReturnType<TesseraApi['listBoards']>>[number];
export type BoardDocument = Awaited<ReturnType<TesseraApi['board']>>;

export type FileFormat = 'yaml' | 'json';
export type OnConflict = 'fail' | 'rename' | 'replace';

const mediaTypes: Record<FileFormat, string> = { yaml: 'application/yaml', json: 'application/json' };

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

function remoteError(error: unknown, response: Response): RemoteError {
  const body = error as Partial<Schemas['Error']> | undefined;
  if (body && typeof body === 'object' && typeof body.message === 'string') {
    return new RemoteError(body.message, typeof body.code === 'string' ? body.code : null, response.status, body.data ?? {});
  }
  return new RemoteError(`HTTP ${response.status} ${response.statusText}`.trim(), null, response.status);
}

export class TesseraApi {
  private readonly client: TesseraClient;

  constructor(readonly connection: Connection) {
    this.client = createTesseraClient({ baseUrl: connection.url, apiKey: connection.apiKey });
  }

  /** Awaits a call; the data of a 2xx, or the server's error thrown (a network failure names the instance). */
  private async answer<T>(call: Promise<Answer<T>>): Promise<{ data: T; response: Response }> {
    let answer: Answer<T>;
    try {
      answer = await call;
    } catch (error) {
      const cause = (error as { cause?: { message?: string; code?: string } }).cause;
      throw new Error(`Cannot reach ${this.connection.url}: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
    }
    if (!answer.response.ok) throw remoteError(answer.error, answer.response);
    return { data: answer.data as T, response: answer.response };
  }

  async listBoards() {
    return (await this.answer(this.client.GET('/api/boards'))).data;
  }

  async boardByName(name: string) {
    return (await this.answer(this.client.GET('/api/boards/by-name/{name}', { params: { path: { name } } }))).data;
  }

  async board(id: string) {
    return (await this.answer(this.client.GET('/api/boards/{id}', { params: { path: { id } } }))).data;
  }

  /** The board file as the server writes it: YAML text, or JSON indented for people. */
  async exportBoard(id: string, format: FileFormat): Promise<string> {
    const params = { path: { id } };
    if (format === 'json') return `${JSON.stringify((await this.answer(this.client.GET('/api/boards/{id}/export', { params }))).data, null, 2)}\n`;
    const yaml = this.client.GET('/api/boards/{id}/export', { params, headers: { Accept: mediaTypes.yaml }, parseAs: 'text' });
    return (await this.answer(yaml)).data;
  }

  /**
   * Imports a board file. The file goes as its text (the server parses YAML itself, and checks that numbers are kept
   * exactly), so the typed body is only a stand-in that the serializer replaces.
   */
  async importBoard(text: string, format: FileFormat, query: { onConflict: OnConflict; dryRun?: boolean }): Promise<{ data: ImportResult | ImportPlan; status: number }> {
    const { data, response } = await this.answer(
      this.client.POST('/api/boards/import', {
        params: { query },
        body: {} as BoardFile,
        bodySerializer: () => text,
        headers: { 'Content-Type': mediaTypes[format] },
      }),
    );
    return { data, status: response.status };
  }

  async planImport(text: string, format: FileFormat): Promise<ImportPlan> {
    return (await this.importBoard(text, format, { onConflict: 'replace', dryRun: true })).data as ImportPlan;
  }

  /** FLEET-2: a set of board files applied as one (or planned, with `dryRun`). */
  async applySet(body: BoardSetRequest, query: { dryRun: boolean; prune: boolean; force?: boolean }): Promise<BoardSetPlan> {
    return (await this.answer(this.client.POST('/api/boards/apply', { params: { query }, body }))).data;
  }

  /** The id of the user named `username` (case-insensitively), or null: the user list read page by page. */
  async userIdByName(username: string): Promise<string | null> {
    let cursor: string | undefined;
    for (;;) {
      const { data, response } = await this.answer(this.client.GET('/api/users', { params: { query: { limit: 200, ...(cursor ? { cursor } : {}) } } }));
      const found = data.find((user) => user.username.toLowerCase() === username.toLowerCase());
      if (found) return found.id;
      cursor = response.headers.get('Tessera-Next-Cursor') ?? undefined;
      if (!cursor) return null;
    }
  }

  /** PASS-1: sets a user's password (admin). */
  async setUserPassword(userId: string, password: string): Promise<void> {
    await this.answer(this.client.PUT('/api/users/{userId}/password', { params: { path: { userId } }, body: { password } }));
  }

  /** The caller the key authenticates (login checks a key with it). */
  async session() {
    return (await this.answer(this.client.GET('/api/auth/session'))).data;
  }

  async history(id: string, limit?: number): Promise<HistoryPage> {
    return (await this.answer(this.client.GET('/api/boards/{id}/history', { params: { path: { id }, query: { limit } } }))).data;
  }

  async diff(id: string, from: number, to?: number): Promise<RevisionDiff> {
    return (await this.answer(this.client.GET('/api/boards/{id}/diff', { params: { path: { id }, query: { from, to } } }))).data;
  }

  /** The board document as it was after a revision. */
  async revision(id: string, revision: number) {
    return (await this.answer(this.client.GET('/api/boards/{id}/history/{revision}', { params: { path: { id, revision } } }))).data;
  }

  /** Restores a revision: the board as it now stands, and what the revision held that is gone (ids). */
  async restore(id: string, revision: number) {
    const { data, response } = await this.answer(this.client.POST('/api/boards/{id}/restore', { params: { path: { id } }, body: { revision } }));
    const header = response.headers.get('Tessera-Restore-Dropped');
    const dropped: Schemas['RestoreDropped'] = header ? JSON.parse(header) : { integrationIds: [], itemIds: [], appIds: [] };
    return { board: data, dropped };
  }
}
