import { BaseModel, col, rowSchema } from './BaseModel';

/** `board_labels`: who owns a `managedBy` label (FLEET-13, migration 0015): a user, or provisioning. */
export class BoardLabel extends BaseModel {
  static override tableName = 'board_labels';
  static override idColumn = 'label';
  declare label: string;
  declare ownerKind: 'user' | 'provisioning';
  declare ownerUserId: string | null;
  declare claimedAt: Date;

  static override jsonSchema = rowSchema(['label', 'ownerKind'], {
    label: col.text,
    // `user` or `provisioning`: the table's CHECK constraint holds it to those (migration 0015).
    ownerKind: col.text,
    ownerUserId: col.nullableText,
    claimedAt: col.timestamp,
  });

  static override relationMappings = () => ({
    owner: { relation: BaseModel.BelongsToOneRelation, modelClass: 'User', join: { from: 'board_labels.ownerUserId', to: 'users.id' } },
  });
}
