// Jest in native ESM mode with @swc/jest: middy and friends ship ESM only, and swc skips type-checking
// (tsc --noEmit runs separately in `npm test`), which keeps the suite fast on two cores.
const swc = [
  '@swc/jest',
  {
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'es6' },
    sourceMaps: 'inline',
  },
];

const common = {
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    // libphonenumber-js's ESM build imports JSON without import attributes, which Jest warns about once per
    // file; its CommonJS build is the same code without the warning.
    '^libphonenumber-js$': '<rootDir>/node_modules/libphonenumber-js/index.cjs',
    '^libphonenumber-js/max$': '<rootDir>/node_modules/libphonenumber-js/max/index.cjs',
    '^libphonenumber-js/mobile$': '<rootDir>/node_modules/libphonenumber-js/mobile/index.cjs',
  },
  transform: { '^.+\\.ts$': swc },
  testEnvironment: 'node',
};

export default {
  // One DynamoDB Local for the whole run (test/support/shared-dynamodb.ts).
  globalSetup: '<rootDir>/test/support/jest-global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/jest-global-teardown.mjs',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { ...common, displayName: 'integration', testMatch: ['<rootDir>/test/integration/**/*.test.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.test.ts'] },
    { ...common, displayName: 'infra', testMatch: ['<rootDir>/test/infra/**/*.test.ts'] },
  ],
  testTimeout: 60000,
};
