import { audited } from '../../observability/audit';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { HandlerMap } from '../../core/operation';
import { headerList, requirePrincipal, TextBody } from '../../core/operation';
import { prefersYaml } from '../../core/mediaTypes';
import { boardDocumentRead } from '../document/handlers';
import type { BoardCaches } from '../document/save';
import { historyContext } from '../history/record';
import { exportBoardFile, findBoardIdByName } from './exportBoard';
import type { BoardFile } from './file';
import { importBoardFile } from './importBoard';

/** A board file as YAML (FILE-1); the yaml package is loaded on first use, not at start. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const yamlText = (file: BoardFile): string => (require('yaml') as typeof import('yaml')).stringify(file, { lineWidth: 0 });

/** The board file's JSON Schema as `npm run generate` wrote it (generated/board-file.schema.json), read once. */
let boardFileSchema: string | undefined;
const schemaText = () => (boardFileSchema ??= readFileSync(path.join(__dirname, '../../../generated/board-file.schema.json'), 'utf8'));

/** Board files (FILE-*): export, lookup by name, import, and the file's JSON Schema. */
export const boardFileHandlers = ({ caches }: { caches: BoardCaches }) =>
  ({
    async exportBoard({ params }, ctx) {
      const file = await exportBoardFile(ctx.db, ctx.principal, params.id);
      if (prefersYaml(headerList(ctx, 'accept'))) return { status: 200, body: new TextBody<BoardFile>(yamlText(file), 'application/yaml; charset=utf-8') };
      return { status: 200, body: file };
    },

    async getBoardByName({ params }, ctx) {
      return boardDocumentRead(ctx, caches, await findBoardIdByName(ctx.db, params.name));
    },

    async importBoard({ query, body }, ctx) {
      const dryRun = query.dryRun ?? false;
      const run = (db: typeof ctx.db) =>
        importBoardFile(db, {
          principal: requirePrincipal(ctx),
          file: body,
          onConflict: query.onConflict ?? 'fail',
          dryRun,
          history: historyContext(ctx, 'importBoard'),
          caches,
        });
      // AUDIT-1: an import that writes is audited in its transaction; a dry run, or a replace by what the board
      // already is, writes nothing and is not.
      const outcome = dryRun
        ? await run(ctx.db)
        : await audited<Awaited<ReturnType<typeof importBoardFile>>>(
            ctx,
            (done) =>
              done.kind === 'plan' || done.kind === 'unchanged'
                ? null
                : { action: 'board.import', targetType: 'board', targetId: done.boardId, details: { name: done.name, outcome: done.kind, onConflict: query.onConflict ?? 'fail' } },
            run,
          );
      if (outcome.kind === 'plan') return { status: 200, body: outcome.plan };
      const result = { boardId: outcome.boardId, name: outcome.name, outcome: outcome.kind };
      if (outcome.kind === 'created') return { status: 201, body: result, headers: { Location: `/api/boards/${outcome.boardId}` } };
      return { status: 200, body: result };
    },

    async getBoardFileSchema() {
      return { status: 200, body: new TextBody(schemaText(), 'application/schema+json') };
    },
  }) satisfies Partial<HandlerMap>;
