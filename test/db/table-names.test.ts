import { findPlainKnex, findTableNames, staleAllowances, type PlainKnexAllowance } from '../../scripts/check-table-names';

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

describe('MODEL-5: the check that ordinary reads and writes go through Model.query', () => {
  const allowed: PlainKnexAllowance[] = [
    { file: 'src/a/store.ts', lines: ['Item.table(trx).insert'], reason: 'insert-or-ignore whose RETURNING rows decide' },
    { file: 'src/a/hot.ts', reason: 'hot path' },
  ];

  it('finds the model\'s knex and knex called with a model\'s table, outside the allowed lines', () => {
    const text = [
      'const rows = await Board.table(db).where({ id });',
      'await Item.table(trx).insert(row).onConflict().ignore().returning(\'id\');',
      'const recent = await trx(AuditEntry.tableName).first(\'id\');',
      '  .unionAll((q) => q.select(\'appId\').from(AppGroupPermission.tableName))',
      'await Board.query(trx).findById(id).patch({ name });',
      '// Board.table(db) in a comment',
    ].join('\n');
    const { findings, used } = findPlainKnex('src/a/store.ts', text, allowed);
    expect(findings.map((f) => f.line)).toEqual([1, 3, 4]);
    expect([...used]).toEqual(['src/a/store.ts\nItem.table(trx).insert']);
  });

  it('allows a whole file, and reports allowances that no longer match a line', () => {
    expect(findPlainKnex('src/a/hot.ts', 'const board = await Board.table(q).where({ id }).first();', allowed).findings).toEqual([]);
    const { used } = findPlainKnex('src/a/store.ts', 'await Item.query(trx).insert(row);', allowed);
    expect(staleAllowances(used, allowed)).toEqual(['src/a/store.ts: Item.table(trx).insert', 'src/a/hot.ts: *']);
  });
});
