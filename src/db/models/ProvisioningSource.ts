import { BaseModel, col, rowSchema } from './BaseModel';

/** `provisioning_sources`: the status of each provisioning source, shared by every instance (PROV-3). */
export class ProvisioningSource extends BaseModel {
  static override tableName = 'provisioning_sources';
  static override idColumn = 'source';
  declare source: string;
  declare status: unknown;

  static override jsonSchema = rowSchema(['source', 'status'], { source: col.text, status: col.json });
}
