import type { Db } from '../../db/database';
import { Grants, readGrants, replaceGrants } from '../../access/grants';
import type { Principal } from '../../identity/principal';
import { assertBoardAccess, boardGrantTables, type BoardPermissionLevel } from '../access';
import { touchBoard } from './boards';

export type BoardGrants = Grants<BoardPermissionLevel>;

/** GET /api/boards/{id}/permissions: full access; every user and group row of the board. */
export async function getBoardGrants(db: Db, principal: Principal, boardId: string): Promise<BoardGrants> {
  await assertBoardAccess(db, boardId, principal, 'full');
  return readGrants(db, boardGrantTables, boardId);
}

/**
 * PUT /api/boards/{id}/permissions: full access; replaces every user and group row of the board in one
 * transaction. Repeated entries collapse; unknown user or group ids are a 400 naming them.
 */
export async function setBoardGrants(db: Db, principal: Principal, boardId: string, input: BoardGrants): Promise<BoardGrants> {
  return db.transaction(async (trx) => {
    await assertBoardAccess(trx, boardId, principal, 'full');
    // Locks the board row (and bumps the revision) before anything else is written.
    // PROV-5: grants are not part of a board file: a provisioned board's grants may change.
    await trx.raw(`SELECT set_config('tessera.grant_write', 'on', true)`);
    await touchBoard(trx, boardId, {});
    await replaceGrants(trx, boardGrantTables, boardId, input);
    return readGrants(trx, boardGrantTables, boardId);
  });
}
