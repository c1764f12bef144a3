/**
 * The product's layers (docs/architecture.md, "Folders and dependency direction"), checked by
 * dependency-cruiser: `npm run lint:deps`, and a step of `npm test`. Type-only imports count: a type
 * is a dependency of the design even when the build erases it. Tests (`*.test.ts`) are left out:
 * they may reach across folders to set a case up. test/layers.test.ts proves each rule refuses a
 * violation, so none can silently stop matching.
 *
 * That no product module names an action outside lib/actions/ is an ESLint rule instead
 * (eslint.config.mjs): the names are string literals, which a dependency graph does not see.
 */

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'lib-folder-cycle',
      comment:
        'Folders of lib/ depend one way: when lib/a imports lib/b, nothing in lib/b reaches back into lib/a, ' +
        'directly or around a longer loop. Move the shared piece down to the folder that owns it.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^lib/[^/]+' },
      to: { path: '^lib/[^/]+', circular: true },
    },
    {
      name: 'module-cycle',
      comment: 'No module of the product imports itself around a loop, inside a folder or across folders.',
      severity: 'error',
      from: { path: '^(lib|app|components|db)/' },
      to: { circular: true },
    },
    {
      name: 'db-imports-no-lib',
      comment: 'db/ is the schema and the driver, the bottom layer: it imports nothing from lib/ (the settings are read in lib/database.ts).',
      severity: 'error',
      from: { path: '^db/' },
      to: { path: '^(lib|app|components)/' },
    },
    {
      name: 'components-import-no-db',
      comment: 'Components run in the browser too: they take the types of stored records from lib/ (lib/records.ts), never from db/.',
      severity: 'error',
      from: { path: '^components/' },
      to: { path: '^db/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: {
      path: ['\\.test\\.tsx?$'],
    },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Folder rules need the folder graph, which dependency-cruiser derives with its metrics.
    metrics: true,
  },
};
