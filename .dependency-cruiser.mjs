// @ts-check
// The import rules of docs/architecture.md ("The layer picture"), run by `npm run lint`. They are allow-lists: a
// file in a layer may import its own layer and the layers its entry names, nothing else; a file in no layer may
// import nothing. test/architecture/layers.test.ts checks that the picture in the docs and these rules agree.

/** The server kernel: error codes, logging, metrics and small helpers every layer may use. */
const KERNEL = '^server/(hub-error|logger|metrics|archive-metrics|one-or-set|request-url)[.]ts$';

/**
 * Each layer: the files it holds (a regular expression on the path from the repository root) and the layers it may
 * import besides itself. Top to bottom, as in the picture.
 * @type {Record<string, { path: string, imports: string[] }>}
 */
const layers = {
  cli: {
    path: '^server/cli/',
    imports: [
      'index',
      'hub',
      'config',
      'ws',
      'http',
      'archive',
      'auth',
      'limits',
      'store',
      'kernel',
      'client',
      'shared',
    ],
  },
  index: {
    path: '^server/index[.]ts$',
    imports: ['hub', 'config', 'ws', 'snapshot', 'archive', 'auth', 'limits', 'store', 'kernel', 'shared'],
  },
  hub: {
    path: '^server/hub[.]ts$',
    imports: [
      'config',
      'ws',
      'http',
      'append',
      'fanout',
      'presence',
      'snapshot',
      'archive',
      'limits',
      'auth',
      'store',
      'kernel',
      'shared',
    ],
  },
  config: {
    path: '^server/config[.]ts$',
    imports: ['ws', 'http', 'snapshot', 'archive', 'limits', 'auth', 'store', 'kernel', 'shared'],
  },
  ws: {
    path: '^server/ws/',
    imports: ['append', 'fanout', 'presence', 'snapshot', 'archive', 'limits', 'auth', 'store', 'kernel', 'shared'],
  },
  http: {
    path: '^server/http/',
    imports: ['append', 'fanout', 'presence', 'snapshot', 'archive', 'limits', 'auth', 'store', 'kernel', 'shared'],
  },
  append: { path: '^server/append/', imports: ['limits', 'auth', 'store', 'kernel', 'shared'] },
  fanout: { path: '^server/fanout/', imports: ['limits', 'auth', 'store', 'kernel', 'shared'] },
  presence: { path: '^server/presence/', imports: ['limits', 'auth', 'store', 'kernel', 'shared'] },
  snapshot: { path: '^server/snapshot/', imports: ['limits', 'store', 'kernel', 'shared'] },
  archive: { path: '^server/archive/', imports: ['limits', 'store', 'kernel', 'shared'] },
  limits: { path: '^server/limits/', imports: ['auth', 'store', 'kernel', 'shared'] },
  auth: { path: '^server/auth/', imports: ['store', 'kernel', 'shared'] },
  store: { path: '^server/store/', imports: ['kernel', 'shared'] },
  kernel: { path: KERNEL, imports: ['shared'] },
  inspector: { path: '^inspector/src/', imports: ['client', 'adapters', 'shared'] },
  client: { path: '^client/', imports: ['shared'] },
  adapters: { path: '^shared/adapters/', imports: ['shared'] },
  shared: { path: '^shared/(?!adapters/)', imports: [] },
};

/** Code that runs in browsers: no Node built-ins, no server-only packages (the SDK's Node transport excepted). */
const BROWSER = { path: '^(shared|client|inspector/src)/', pathNot: '^client/transport-node[.]ts$' };

/** @param {string} name */
function layerPath(name) {
  const layer = layers[name];
  if (layer === undefined) throw new Error(`.dependency-cruiser.mjs: no layer ${name}`);
  return layer.path;
}

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle of imports (type-only ones included): split out what both sides need.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'browser-no-node',
      severity: 'error',
      comment: 'shared/, client/ and the inspector run in browsers: no Node built-ins (client transport: #transport).',
      from: BROWSER,
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'browser-no-server-packages',
      severity: 'error',
      comment: 'shared/, client/ and the inspector run in browsers: no server-only packages.',
      from: BROWSER,
      to: { path: '^node_modules/(ws|ioredis|pino|prom-client|pg)/' },
    },
  ],
  allowed: [
    ...Object.entries(layers).map(([name, layer]) => ({
      comment: `layer ${name}`,
      from: { path: layer.path },
      to: { path: [layer.path, ...layer.imports.map(layerPath)] },
    })),
    {
      comment: 'packages and Node built-ins (the browser rules above narrow these for browser code)',
      from: { path: Object.values(layers).map((layer) => layer.path) },
      to: { dependencyTypes: ['npm', 'npm-dev', 'core'] },
    },
  ],
  allowedSeverity: 'error',
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['source', 'import', 'default'],
      extensions: ['.ts', '.tsx', '.js', '.mjs'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
