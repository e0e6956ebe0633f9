import { BaseModel, col, rowSchema } from './BaseModel';

/** `apps`: the app catalogue; (name, href) is unique with null hrefs equal (migration 0002). */
export class App extends BaseModel {
  static override tableName = 'apps';
  static override idColumn = 'id';
  declare id: string;
  declare name: string;
  declare description: string | null;
  declare iconUrl: string;
  declare href: string | null;
  declare pingUrl: string | null;
  declare createdAt: Date;

  static override jsonSchema = rowSchema(['id', 'name', 'iconUrl'], {
    id: col.id,
    name: col.text,
    description: col.nullableText,
    iconUrl: col.text,
    href: col.nullableText,
    pingUrl: col.nullableText,
    createdAt: col.timestamp,
  });

  static override relationMappings = () => ({
    userPermissions: { relation: BaseModel.HasManyRelation, modelClass: 'AppUserPermission', join: { from: 'apps.id', to: 'app_user_permissions.appId' } },
    groupPermissions: { relation: BaseModel.HasManyRelation, modelClass: 'AppGroupPermission', join: { from: 'apps.id', to: 'app_group_permissions.appId' } },
    placements: { relation: BaseModel.HasManyRelation, modelClass: 'AppPlacement', join: { from: 'apps.id', to: 'app_placements.appId' } },
    integrations: { relation: BaseModel.HasManyRelation, modelClass: 'Integration', join: { from: 'apps.id', to: 'integrations.appId' } },
  });
}
