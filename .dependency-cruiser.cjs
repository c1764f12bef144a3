/**
 * The product's layers (docs/architecture.md, "Folders and dependency direction"), checked by
 * dependency-cruiser: `npm run lint:deps`, and a step of `npm test`. Type-only imports count for
 * the order: a type is a dependency of the design even when the build erases it. Tests
 * (`*.test.ts`) are left out: they may reach across folders to set a case up. test/layers.test.ts
 * proves each rule refuses a violation, so none can silently stop matching.
 *
 * That no product module names an action outside lib/actions/ is an ESLint rule instead
 * (eslint.config.mjs): the names are string literals, which a dependency graph does not see.
 */

/**
 * The order of lib/'s folders and of the small modules in lib/ itself, from the bottom: a unit
 * imports only units of the groups before its own, never a peer of its group nor anything after
 * it. A unit is `lib/<name>/` or `lib/<name>.ts`. When a folder needs something from above, the
 * piece is misplaced: move it down to the folder that owns it. Adding an import between two folders
 * that the order does not allow is a design change: move the folder in this list, in the same
 * commit, and in docs/architecture.md.
 */
const LAYERS = [
  ['errors', 'ids', 'money', 'payload-hash', 'routing-rules', 'env-files', 'node-version', 'text', 'telemetry'],
  ['records', 'shared', 'input', 'paging', 'events', 'cache'],
  ['env', 'agents', 'oversight'],
  ['database', 'systems', 'signing'],
  ['actions'],
  ['contracts', 'notifications'],
  ['auth', 'definitions'],
  ['grants', 'quorum'],
  ['admin', 'passkeys', 'policy'],
  ['gates'],
  ['commands', 'proposals'],
  ['audit', 'intake'],
  ['decisions'],
  ['dashboard', 'jobs'],
  // The ways in and out, on top: nothing below imports them.
  ['api'],
  ['http', 'mcp', 'client'],
  ['agent-client'],
  ['adapters'],
  // The Next server's start (instrumentation.ts): the database, the worker, telemetry.
  ['server-start'],
];
const unit = (names) => `^lib/(${names.join('|')})(/|\\.tsx?$)`;
const ALL_UNITS = unit(LAYERS.flat());

/**
 * What may reach the browser is a place in the tree: `lib/client/` (the dashboard's API clients
 * and component state, which run only there) and `lib/shared/` (pure modules both sides run).
 * Components import anything else from lib/ as types only, and these places import, at run time,
 * only each other, packages and no Node built-in; a module only the Next server loads also starts
 * with `import 'server-only'`, which is refused here as well.
 */
const BROWSER_PLACES = ['^lib/client/', '^lib/shared/'];
/**
 * Temporary: client-safe modules that still live beside their owners, because the branches of
 * issues 35 and 36 edit the folders that import them (a move now would collide with every one of
 * them). They are held to the same rules as lib/shared/. Delete this list once those branches are
 * merged, by moving each module into lib/shared/ (the request bodies as lib/shared/<owner>-requests.ts).
 */
const NOT_YET_IN_LIB_SHARED = [
  '^lib/ids\\.ts$',
  '^lib/money\\.ts$',
  '^lib/text/',
  '^lib/input/request-body\\.ts$',
  '^lib/events/registry\\.ts$',
  '^lib/audit/history-view\\.ts$',
  '^lib/decisions/requests\\.ts$',
  '^lib/passkeys/requests\\.ts$',
  '^lib/grants/requests\\.ts$',
  '^lib/proposals/words\\.ts$',
  '^lib/proposals/fresh-facts\\.ts$',
];
const BROWSER = [...BROWSER_PLACES, ...NOT_YET_IN_LIB_SHARED];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...LAYERS.slice(0, -1).map((group, index) => ({
      name: 'lib-layer-order',
      comment:
        `lib/{${group.join(',')}} import only the groups below them (LAYERS in .dependency-cruiser.cjs), ` +
        'never a peer or a group above: move the piece down to the folder that owns it, or the folder in LAYERS.',
      severity: 'error',
      from: { path: unit(group) },
      to: { path: unit(LAYERS.slice(index).flat()), pathNot: '^lib/$1(/|\\.tsx?$)' },
    })),
    {
      name: 'lib-unit-has-a-layer',
      comment: 'Every folder of lib/ and module in lib/ itself has its place in LAYERS (.dependency-cruiser.cjs).',
      severity: 'error',
      from: { path: '^lib/', pathNot: ALL_UNITS },
      to: { path: '^(lib|db)/' },
    },
    {
      name: 'lib-unit-has-a-layer',
      comment: 'Every folder of lib/ and module in lib/ itself has its place in LAYERS (.dependency-cruiser.cjs).',
      severity: 'error',
      from: {},
      to: { path: '^lib/', pathNot: ALL_UNITS },
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
      comment:
        'db/ is the schema and the driver, the bottom layer: it imports nothing from lib/ (the settings are read in ' +
        'lib/database.ts).',
      severity: 'error',
      from: { path: '^db/' },
      to: { path: '^(lib|app|components)/' },
    },
    {
      name: 'app-imports-no-db',
      comment:
        'Pages and routes read and write through lib/ (its queries, view models and domain functions), never db/ ' +
        'itself.',
      severity: 'error',
      from: { path: '^app/' },
      to: { path: '^db/' },
    },
    {
      name: 'components-import-no-db',
      comment:
        'Components run in the browser too: they take the types of stored records from lib/ (lib/records.ts), ' +
        'never from db/.',
      severity: 'error',
      from: { path: '^components/' },
      to: { path: '^db/' },
    },
    {
      name: 'components-run-only-browser-modules',
      comment:
        'Components run in the browser too: from lib/ they import at run time only lib/client/ and lib/shared/; ' +
        'anything else as a type.',
      severity: 'error',
      from: { path: '^components/' },
      to: { path: '^lib/', pathNot: BROWSER, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'browser-modules-stay-browser-safe',
      comment:
        'lib/client/ and lib/shared/ reach the browser: at run time they import only each other and packages, no ' +
        'db/ and no other lib/ module (types are fine).',
      severity: 'error',
      from: { path: BROWSER },
      to: { path: '^(lib|db)/', pathNot: BROWSER, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'browser-modules-need-no-server',
      comment: 'lib/client/ and lib/shared/ reach the browser: no Node built-in and no server-only module.',
      severity: 'error',
      from: { path: BROWSER },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'browser-modules-need-no-server',
      comment: 'lib/client/ and lib/shared/ reach the browser: no Node built-in and no server-only module.',
      severity: 'error',
      from: { path: BROWSER },
      to: { path: '(^|node_modules/)server-only(/|$)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: {
      path: ['\\.test\\.tsx?$'],
    },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
