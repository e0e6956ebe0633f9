import type { Knex } from 'knex';

/**
 * Vouched app placements: one row per (item, app) pair that an app or bookmarks widget references and that was
 * written by someone who could use the app at the time (src/apps/placements.ts). Anonymous GET /api/apps/{id}
 * counts only these, so an app id typed onto a public board never publishes an app its writer could not read.
 *
 * Existing placements have no recorded writer: they are vouched when the board's creator can use the app now
 * (a user or group row on the app, or a global permission implying app-use-all). The others stay unvouched until
 * a writer with use access writes the item again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('app_placements', (t) => {
    t.text('item_id').notNullable().references('id').inTable('items').onDelete('CASCADE');
    t.text('app_id').notNullable().references('id').inTable('apps').onDelete('CASCADE');
    t.primary(['item_id', 'app_id']);
    t.index(['app_id']);
  });
  await vouchExistingPlacements(knex);
}

/** The backfill of `up`, exported for its test. */
export async function vouchExistingPlacements(knex: Knex): Promise<void> {
  await knex.raw(`
    INSERT INTO app_placements (item_id, app_id)
    SELECT DISTINCT r.item_id, r.app_id
    FROM (
      SELECT i.id AS item_id, i.board_id, i.options->>'appId' AS app_id
      FROM items i WHERE i.kind = 'app' AND jsonb_typeof(i.options->'appId') = 'string'
      UNION ALL
      SELECT i.id, i.board_id, e.value #>> '{}'
      FROM items i CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(i.options->'items') = 'array' THEN i.options->'items' ELSE '[]'::jsonb END) AS e(value)
      WHERE i.kind = 'bookmarks' AND jsonb_typeof(e.value) = 'string'
    ) r
    JOIN apps a ON a.id = r.app_id
    JOIN boards b ON b.id = r.board_id
    WHERE b.creator_id IS NOT NULL AND (
      EXISTS (SELECT 1 FROM app_user_permissions up WHERE up.app_id = r.app_id AND up.user_id = b.creator_id)
      OR EXISTS (
        SELECT 1 FROM group_members gm JOIN app_group_permissions gp ON gp.group_id = gm.group_id
        WHERE gm.user_id = b.creator_id AND gp.app_id = r.app_id)
      OR EXISTS (
        SELECT 1 FROM group_members gm JOIN group_permissions p ON p.group_id = gm.group_id
        WHERE gm.user_id = b.creator_id AND p.permission IN ('admin', 'app-full-all', 'app-modify-all', 'app-use-all'))
    )
    ON CONFLICT DO NOTHING`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('app_placements');
}
