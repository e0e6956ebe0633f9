import { BaseModel, col, rowSchema } from './BaseModel';

/** `provisioned_boards`: a board a provisioning source wrote, its file, and whether others may change it (PROV-4). */
export class ProvisionedBoard extends BaseModel {
  static override tableName = 'provisioned_boards';
  static override idColumn = 'boardId';
  declare boardId: string;
  declare source: string;
  declare file: string;
  declare allowApiUpdates: boolean;
  declare drifted: boolean;

  static override jsonSchema = rowSchema(['boardId', 'source', 'file'], { boardId: col.id, source: col.text, file: col.text, allowApiUpdates: col.bool, drifted: col.bool });

  static override relationMappings = () => ({
    board: { relation: BaseModel.BelongsToOneRelation, modelClass: 'Board', join: { from: 'provisioned_boards.boardId', to: 'boards.id' } },
  });
}
