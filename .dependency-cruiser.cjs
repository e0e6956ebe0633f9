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
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
