import { findTableNames } from '../../scripts/check-table-names';

const tables = ['boards', 'items', 'item_layouts', 'users'];

describe('MODEL-3: the check that no store names a table', () => {
  it('finds builder calls, qualified column literals and SQL text naming a table', () => {
    const text = [
      "const a = await db('boards').where({ id });",
      "const b = await trx('items as i').select('i.id');",
      "query.join('item_layouts', 'item_layouts.itemId', 'x');",
      "  .leftJoin(User.tableName, 'users.id', Board.col('creatorId'))",
      '  `INSERT INTO items (id) SELECT v.id FROM jsonb_to_recordset(?::jsonb) AS v(id text)`,',
      '  `DELETE FROM item_layouts AS il USING x`,',
    ].join('\n');
    expect(findTableNames(text, tables).map((f) => [f.line, f.table])).toEqual([
      [1, 'boards'],
      [2, 'items'],
      [3, 'item_layouts'],
      [4, 'users'],
      [5, 'items'],
      [6, 'item_layouts'],
    ]);
  });

  it('leaves alone names taken from models, document keys that share a table name, and comments', () => {
    const text = [
      'const a = await Board.table(db).where({ id });',
      '`INSERT INTO ${Item.tableName} (id) SELECT 1`',
      "const parts = (['items', 'sections', 'layouts'] as const).flatMap((kind) => kind);",
      "reportOtherFields(ctx, source, [], 'config', config, ['items', 'boards']);",
      "const layouts = split(current, target, 'items');",
      ' * Loads the rows FROM items of the board (a comment).',
      "// db('boards') in a comment",
    ].join('\n');
    expect(findTableNames(text, tables)).toEqual([]);
  });
});
