import { BaseModel, col, rowSchema } from './BaseModel';

/** `board_history`: one committed change of a board (HIST-1..7), numbered per board from 1. */
export class BoardHistoryEntry extends BaseModel {
  static override tableName = 'board_history';
  static override idColumn = ['boardId', 'revision'];
  declare boardId: string;
  declare revision: number;
  declare version: number;
  declare at: Date;
  declare operation: string;
  declare actorUserId: string | null;
  declare actorName: string | null;
  declare apiKeyId: string | null;
  declare summary: unknown;
  declare reverseDelta: unknown;
  declare snapshot: unknown;
  declare deltaBytes: number;
  declare chainBytes: number;
  declare chainLength: number;
  declare snapshotBytes: number;
  declare origin: unknown;

  static override jsonSchema = rowSchema(['boardId', 'revision', 'version', 'operation', 'summary'], {
    boardId: col.id,
    revision: { type: 'integer', minimum: 1, maximum: 2147483647 },
    version: col.int,
    at: col.timestamp,
    operation: col.text,
    actorUserId: col.nullableText,
    actorName: col.nullableText,
    apiKeyId: col.nullableText,
    summary: col.json,
    reverseDelta: col.json,
    snapshot: col.json,
    deltaBytes: col.int,
    chainBytes: col.int,
    chainLength: col.int,
    snapshotBytes: col.int,
    origin: col.json,
  });

  static override relationMappings = () => ({
    board: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Board', join: { from: 'board_history.boardId', to: 'boards.id' } },
  });
}
