/** Import rules checked by `npm run check` (see README, "Layout"). */
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'No import cycles.', from: {}, to: { circular: true } },
    {
      name: 'domain-not-http',
      severity: 'error',
      comment: 'Capabilities, the kernel and the database layer never import the transport (src/http); only the composition root (server.ts) does.',
      from: { path: '^src/', pathNot: '^src/(http/|server\\.ts$)' },
      to: { path: '^src/http/' },
    },
    {
      name: 'identity-not-boards',
      severity: 'error',
      comment: 'Authentication does not reach into boards: the pipeline asks board code through an interface.',
      from: { path: '^src/identity/' },
      to: { path: '^src/boards/' },
    },
    {
      name: 'models-are-leaves',
      severity: 'error',
      comment: 'MODEL-4: the models (src/db/models) describe tables; they import only each other, objection and knex, never a capability.',
      from: { path: '^src/db/models/' },
      to: { path: '^src/', pathNot: '^src/db/models/' },
    },
    {
      name: 'pure-rules-not-models',
      severity: 'error',
      comment:
        'MODEL-4: pure rules (state in, decision out) never import the models or the database layer; the stores do (the widget-data service and its cache store in widgets/data/ are such).',
      from: {
        path: '^src/(boards/document/(changes|contentPlan|grid|layoutPlan|limits|model|replacement|stateAfter|validate)|boards/history/(snapshot|summary)|boards/settings|boards/files/file|access/levels|identity/permissions|convert/.*|discover/.*|widgets/(registry|options|data/(types|shapes|limits|kinds/.*))|apps/(validation|urls)|integrations/kinds)\\.ts$',
      },
      to: { path: '^src/db/(models/|database\\.ts$)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
